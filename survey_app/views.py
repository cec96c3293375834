"""Respondent pages. The page itself holds no answers: a JavaScript module (static/js/survey.mjs) renders the
questions from the protocol API, randomizes in the browser and sends only the randomized report."""
from __future__ import annotations

from django.shortcuts import render
from django.templatetags.static import static

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
    return render(request, "survey/respond.html", {"survey": survey, "token": token or "",
                                                    "randomizer": static("js/survey.mjs")})


def thanks_page(request, slug: str):
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
    if survey is None:
        return _problem(request, "survey/unknown.html", 404)
    return render(request, "survey/thanks.html", {"survey": survey})
