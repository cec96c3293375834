"""Respondent pages. The page itself holds no answers: a JavaScript module (static/js/survey.mjs) renders the
questions from the protocol API, randomizes in the browser and sends only the randomized report.

Respondent pages are served with ``Referrer-Policy: no-referrer`` (``respondent``), so no request they make carries
their address. An invitation link carries its token in the URL fragment (``invitation_link``), which browsers never
send: the page reads it, takes it out of the address bar and redeems it at the first answer (static/js/survey.mjs).
Links of the earlier form ``/s/<slug>/t/<token>/`` are redirected to the fragment form (``token_link``); their path
is redacted in every log (coinflip/security.py).

The survey page loads that randomizer integrity-checked (survey_app/integrity.py): an inline import map lists the
SHA-256 of every module, the Content-Security-Policy of the response allows exactly that import map (by its hash) and
no other inline script, and the page shows the randomizer hash so anyone can check which code randomized the answers."""
from __future__ import annotations

import functools
from urllib.parse import urlsplit

from csp.decorators import csp_replace, csp_update
from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_sameorigin

from aggregator.privacy import blind_rsa

from . import languages, ohttp, theme
from .api import protocol_body
from .credentials import public_credential
from .integrity import groups_of_8, randomizer
from .models import InvitationToken, Survey, SurveyLogo
from .permissions import can_manage
from .protocol import get_protocol


def _problem(request, template: str, status: int, survey: Survey | None = None):
    return render(request, template, {"survey": survey}, status=status)


def respondent(view):
    """A respondent page: ``Referrer-Policy: no-referrer`` (none of its requests says which page it came from) and
    never cached (``no-store``: after Send, Back must not bring the answered form back from a cache)."""
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["Referrer-Policy"] = "no-referrer"
        add_never_cache_headers(response)
        return response
    return wrapped


def invitation_link(survey: Survey, token: str, base: str = "") -> str:
    """The invitation link of ``token``: ``base`` + /s/<slug>/i/#<token>. The token is in the fragment, which the
    browser never sends; the page reads it and removes it from the address bar."""
    return f"{base}{reverse('survey-invited', args=[survey.slug])}#{token}"


def _open_survey(slug: str):
    """(survey, None) for a survey respondents may open, else (None, the problem page's template and status)."""
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
    if survey is None:
        return None, ("survey/unknown.html", 404)
    if survey.status == Survey.Status.CLOSED:
        return survey, ("survey/closed.html", 410)
    return survey, None


@respondent
def survey_page(request, slug: str):
    survey, problem = _open_survey(slug)
    if problem:
        return _problem(request, problem[0], problem[1], survey)
    if survey.access == Survey.Access.TOKENS:
        return _problem(request, "survey/token_needed.html", 403, survey)
    return _respond_page(request, survey)


@respondent
def invited_page(request, slug: str):
    """A token survey's page for invitees: the same for every invitation (the token is in the fragment, never
    sent). The page redeems the token itself, so an unknown or used one is refused by the redemption."""
    survey, problem = _open_survey(slug)
    if problem:
        return _problem(request, problem[0], problem[1], survey)
    if survey.access != Survey.Access.TOKENS:
        return redirect("survey", slug=survey.slug)
    return _respond_page(request, survey, invited=True, survey_key=public_credential(survey))


@never_cache  # the redirect holds the token
@respondent
def token_link(request, slug: str, token: str):
    """An invitation link of the earlier form ``/s/<slug>/t/<token>/``: an unknown token 404, a used one 409 (as
    before), else a redirect to the fragment form, so the token leaves the address bar and every later request."""
    survey, problem = _open_survey(slug)
    if problem:
        return _problem(request, problem[0], problem[1], survey)
    if survey.access != Survey.Access.TOKENS:
        return redirect("survey", slug=survey.slug)
    invitation = InvitationToken.objects.filter(survey=survey, token=token).only("used").first()
    if invitation is None:
        return _problem(request, "survey/unknown.html", 404)
    if invitation.used:
        return _problem(request, "survey/token_used.html", 409, survey)
    return HttpResponseRedirect(invitation_link(survey, token))


def _respond_page(request, survey: Survey, *, invited: bool = False, survey_key: dict | None = None,
                  preview: bool = False, settings_url: str = ""):
    """The respondent's page (templates/survey/respond.html) with the integrity-checked randomizer: the import map,
    and the CSP that allows exactly it."""
    code = randomizer()
    if survey_key is not None:
        survey_key["key_id_parts"] = groups_of_8(survey_key["key_id"])
    context = {"survey": survey, "invited": invited, "randomizer": code, "survey_key": survey_key, "preview": preview,
               "settings_url": settings_url,
               "verify_url": getattr(settings, "COINFLIP_VERIFY_RANDOMIZER_URL", ""),
               "unprotected": _unprotected(survey), "theme": theme_of(survey)}

    # django-csp's decorator, applied per request: the import map's hash follows the modules' files.
    # connect-src: the survey's Oblivious HTTP relay, if it has one.
    @csp_update({"script-src": [code.import_map_csp_source], **ohttp.csp_update(survey)})
    def page(request):
        return render(request, "survey/respond.html", context)

    return page(request)


def _unprotected(survey: Survey) -> list[str]:
    """The questions the survey's settings give no privacy (``SurveyProtocol.unprotected``): the page then never says
    that it randomizes them. Empty when the protocol cannot be built (the page says why once loaded)."""
    try:
        return get_protocol(survey).unprotected()
    except ValueError:
        return []


# -- a designer's preview ----------------------------------------------------------------------------------------------

def _settings_url(request, survey: Survey) -> str:
    """Where a preview's "Back to the survey's settings" leads: the designer's workspace for those who may use it
    (active staff with ``survey_app.view_survey``, as ``design.designer_required`` asks), the admin otherwise."""
    if request.user.is_active and request.user.is_staff and request.user.has_perm("survey_app.view_survey"):
        return reverse("design-edit", args=[survey.slug])
    return reverse("admin:survey_app_survey_change", args=[survey.pk])


def _previewed(request, slug: str) -> Survey:
    """The survey ``slug`` — any status, drafts included — if the signed-in staff member designs it (or is a
    superuser); 404 otherwise, so that other staff do not learn which drafts exist."""
    survey = Survey.objects.filter(slug=slug).first()
    if survey is None or not can_manage(request.user, survey):
        raise Http404("No survey of yours has this address.")
    return survey


@never_cache
@xframe_options_sameorigin
@csp_replace({"frame-ancestors": ["'self'"]})  # type: ignore[arg-type]  # django-csp's stubs: request-only views
@staff_member_required
def survey_preview(request, slug: str):
    """The survey exactly as respondents will see it — the same page, the same randomizer, integrity-checked — with
    a banner, its protocol from ``survey_preview_protocol``, and its send step disabled: nothing can be sent from it
    (and the report API refuses a draft's report anyway). Creates no row: no invitation token, credential or key.
    This site's own pages may frame it (the designer's workspace shows it beside the editor); no other site may."""
    survey = _previewed(request, slug)
    try:
        get_protocol(survey)
    except ValueError as exc:
        return render(request, "survey/preview_problem.html", {
            "survey": survey, "problem": str(exc),
            "admin_url": _settings_url(request, survey),
        }, status=409)
    key = survey.keys.filter(active=True).first() if survey.access == Survey.Access.TOKENS else None
    survey_key = {"variant": blind_rsa.VARIANT, "key_id": key.key_id} if key is not None else None
    return _respond_page(request, survey, survey_key=survey_key, preview=True,
                         settings_url=_settings_url(request, survey))


@never_cache
def survey_preview_protocol(request, slug: str):
    """The protocol of a survey being previewed (``api.protocol_body(preview=True)``): for its designers (and
    superusers) only, drafts included — the public protocol API refuses drafts. 403 for anyone not signed in as
    staff, 404 for a survey they do not design, 409 for a survey whose settings the engine refuses."""
    if not (request.user.is_active and request.user.is_staff):
        return JsonResponse({"detail": "Sign in as one of the survey's designers to preview it."}, status=403)
    survey = _previewed(request, slug)
    try:
        return JsonResponse(protocol_body(survey, preview=True))
    except ValueError as exc:
        return JsonResponse({"detail": str(exc)}, status=409)


@respondent
def thanks_page(request, slug: str):
    """After Send: the survey's own thank-you text, else the standard one; or, when the designer set one, a redirect
    to the survey's end address — the same address for everyone (nothing of the respondent's added), and, as from
    every respondent page, no Referer (``Referrer-Policy: no-referrer`` on this response too)."""
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
    if survey is None:
        return _problem(request, "survey/unknown.html", 404)
    if survey.end_url:
        return HttpResponseRedirect(survey.end_url, status=303)
    return render(request, "survey/thanks.html", {"survey": survey, "end_text": languages.survey_end_text(survey),
                                                  "theme": theme_of(survey)})


def theme_of(survey: Survey) -> dict:
    """What the survey's pages need of its theme: the stylesheet's and the logo's addresses (``None`` if unset),
    each naming its version so that a change is fetched at once; the host of its end address, if it has one."""
    logo = SurveyLogo.objects.filter(survey=survey).values_list("digest", flat=True).first()
    return {
        "end_host": urlsplit(survey.end_url).hostname if survey.end_url else None,
        "stylesheet": reverse("survey-theme", args=[survey.slug, survey.accent_color.lstrip("#").lower()])
        if survey.accent_color else None,
        "logo": reverse("survey-logo", args=[survey.slug, logo]) if logo else None,
    }


_LONG_CACHE = "public, max-age=31536000, immutable"  # the address names the version


def theme_stylesheet(request, slug: str, colour: str):
    """The survey's stylesheet (``theme.stylesheet``): a file of the site, so the CSP needs no inline style."""
    survey = Survey.objects.filter(slug=slug).first()
    if survey is None or survey.accent_color.lstrip("#").lower() != colour:
        raise Http404("No such stylesheet.")
    response = HttpResponse(theme.stylesheet(survey.accent_color), content_type="text/css; charset=utf-8")
    response["Cache-Control"] = _LONG_CACHE
    return response


def logo(request, slug: str, digest: str):
    """The survey's logo, with its checked content type, never sniffed."""
    image = SurveyLogo.objects.filter(survey__slug=slug, digest=digest).values_list("data", "content_type").first()
    if image is None:
        raise Http404("No such logo.")
    response = HttpResponse(bytes(image[0]), content_type=image[1])
    response["Cache-Control"] = _LONG_CACHE
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response
