"""``coinflip.middleware.RespondentFastPathMiddleware``: a respondent's usual POST (a report, a redemption) is answered
before the middleware of pages and sessions; everything else goes through the whole stack.

What must hold: only ``csrf_exempt`` JSON views take the fast path; its answers keep the headers of the middleware
above it (security, CSP); a request it does not answer — anything unusual, any refusal — gets the full stack's
answer, in the respondent's language; and nothing is stored twice or half.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import connection
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from survey_app.api import RedeemView, ReportView
from survey_app.models import PendingReport, Survey
from tests.factories import make_survey, simulated_reports


def _callbacks(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _callbacks(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            yield pattern.callback


def test_only_csrf_exempt_respondent_views_take_the_fast_path():
    """The middleware answers for any view class with ``fast_response``: those are exactly the report and the
    redemption view, both without authentication and ``csrf_exempt`` (the skipped CSRF middleware would not have
    checked them)."""
    fast = [cb for cb in _callbacks(get_resolver().url_patterns)
            if hasattr(getattr(cb, "view_class", None), "fast_response")]
    assert {cb.view_class for cb in fast} == {ReportView, RedeemView}
    # No authentication (DRF's session authentication would enforce CSRF), and exempt from Django's CSRF check.
    assert all(cb.view_class.authentication_classes == [] and getattr(cb, "csrf_exempt", False) for cb in fast)


@dataclass
class Cached:
    """A link survey whose first report went through the whole stack and cached it: the fast path is open."""

    client: APIClient
    survey: Survey
    url: str
    reports: list


@pytest.fixture
def cached(db) -> Cached:
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement report path is PostgreSQL's")
    client, survey = APIClient(), make_survey()
    url = f"/api/surveys/{survey.slug}/reports/"
    first, *rest = simulated_reports(survey, n=3)
    assert client.post(url, {"report": first}, format="json").status_code == 201
    return Cached(client, survey, url, rest)


@pytest.fixture
def page_middleware_calls(monkeypatch):
    """How many requests reached ``LocaleMiddleware`` (below the fast path, above the views)."""
    from django.middleware.locale import LocaleMiddleware

    calls = []
    original = LocaleMiddleware.process_request
    monkeypatch.setattr(LocaleMiddleware, "process_request",
                        lambda self, request: calls.append(request.path) or original(self, request))
    return calls


@pytest.mark.django_db
def test_a_usual_report_skips_the_page_middleware_and_keeps_the_security_headers(page_middleware_calls):
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement report path is PostgreSQL's")
    client, survey = APIClient(), make_survey(validation_share=0.1)
    url = f"/api/surveys/{survey.slug}/reports/"
    first, second = (client.post(url, {"report": r}, format="json") for r in simulated_reports(survey, n=2))
    assert first.status_code == second.status_code == 201 and first.json() == second.json() == {"status": "stored"}
    # The first read and cached the survey (the full stack answered); the second was answered above LocaleMiddleware.
    assert page_middleware_calls == [url]
    assert "Content-Language" in first and "Content-Language" not in second
    for name in ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
                 "Cross-Origin-Opener-Policy", "Allow", "Content-Type"):
        assert second[name] == first[name], name
    assert second["Content-Length"] == str(len(second.content))
    assert PendingReport.objects.filter(survey=survey).count() == 2


def test_what_the_fast_path_does_not_store_gets_the_full_answer_in_the_respondents_language(cached,
                                                                                           page_middleware_calls):
    client, url, report = cached.client, cached.url, cached.reports[0]
    Survey.objects.filter(pk=cached.survey.pk).update(status=Survey.Status.CLOSED)
    closed = client.post(url, {"report": report}, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert closed.status_code == 410
    assert closed.json()["detail"] == "Diese Umfrage ist geschlossen und nimmt keine Antworten mehr an."
    Survey.objects.filter(pk=cached.survey.pk).update(status=Survey.Status.OPEN)
    client.post(url, {"report": report}, format="json")  # caches the open survey again
    malformed = client.post(url, {"report": {"input": 0, "report": "not base64!"}}, format="json")
    assert malformed.status_code == 400 and "report.report" in malformed.json()
    assert PendingReport.objects.filter(survey=cached.survey).count() == 2
    # Every refusal went through the whole stack (the fixture's first report was posted before the spy).
    assert page_middleware_calls.count(url) == 3


def test_a_host_outside_allowed_hosts_is_refused_and_nothing_stored(cached):
    response = cached.client.post(cached.url, {"report": cached.reports[0]}, format="json", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1


@pytest.mark.django_db
def test_nul_bytes_and_unknown_paths_are_answered_above_the_fast_path():
    client = APIClient()
    assert client.post("/api/surveys/x%00y/reports/", {"report": {}}, format="json").status_code == 400
    assert client.post("/api/surveys/nope/reports/", {"report": {}}, format="json").status_code == 404
    assert client.post("/api/nothing-here/", {}, format="json").status_code == 404


def test_a_database_outage_on_the_fast_path_is_a_503_with_retry_after(cached, monkeypatch):
    """``DatabaseUnavailableMiddleware`` sees only views' exceptions; the fast path answers an outage the same way."""
    from django.db import OperationalError

    from survey_app import reports as ingestion
    from survey_app.models import InvitationToken
    from survey_app.services import generate_tokens

    def cut(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(ingestion, "store_report", cut)
    response = cached.client.post(cached.url, {"report": cached.reports[0]}, format="json")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["code"] == "database_unavailable"
    monkeypatch.undo()
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1

    tokens = make_survey(slug="invited", access="tokens")
    token = generate_tokens(tokens, 1)[0].token
    monkeypatch.setattr("survey_app.api.redeem_if_unchanged", cut)
    redeem = cached.client.post(f"/api/surveys/{tokens.slug}/invitations/redeem/",
                                {"token": token, "blinded_msg": "AAAA"}, format="json")
    assert redeem.status_code == 503 and redeem.json()["code"] == "database_unavailable"
    assert not InvitationToken.objects.get(token=token).used
