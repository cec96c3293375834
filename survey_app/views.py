"""Respondent pages. The page itself holds no answers: a JavaScript module (static/js/survey.mjs) renders the
questions from the protocol API, randomizes in the browser and sends only the randomized report.

The survey page loads that randomizer integrity-checked (survey_app/integrity.py): an inline import map lists the
SHA-256 of every module, the Content-Security-Policy of the response allows exactly that import map (by its hash) and
no other inline script, and the page shows the randomizer hash so anyone can check which code randomized the answers."""
from __future__ import annotations

from django.conf import settings
from django.shortcuts import render

from .credentials import public_credential
from .integrity import groups_of_8, randomizer
from .models import InvitationToken, Survey


def _problem(request, template: str, status: int, survey: Survey | None = None):
    return render(request, template, {"survey": survey}, status=status)


def survey_page(request, slug: str, token: str | None = None):
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
    if survey is None:
        return _problem(request, "survey/unknown.html", 404)
    if survey.status == Survey.Status.CLOSED:
        return _problem(request, "survey/closed.html", 410, survey)
    if survey.access == Survey.Access.TOKENS:
        if token is None:
            return _problem(request, "survey/token_needed.html", 403, survey)
        invitation = InvitationToken.objects.filter(survey=survey, token=token).only("used").first()
        if invitation is None:
            return _problem(request, "survey/unknown.html", 404)
        if invitation.used:
            return _problem(request, "survey/token_used.html", 409, survey)
    code = randomizer()
    survey_key = public_credential(survey)  # a token survey's active key (made on first use), shown to verify
    if survey_key is not None:
        survey_key["key_id_parts"] = groups_of_8(survey_key["key_id"])
    response = render(request, "survey/respond.html", {
        "survey": survey, "token": token or "", "randomizer": code, "survey_key": survey_key,
        "verify_url": getattr(settings, "COINFLIP_VERIFY_RANDOMIZER_URL", ""),
    })
    response._csp_update = {"script-src": [code.import_map_csp_source]}  # what django-csp's @csp_update sets
    return response


def thanks_page(request, slug: str):
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
    if survey is None:
        return _problem(request, "survey/unknown.html", 404)
    return render(request, "survey/thanks.html", {"survey": survey})
