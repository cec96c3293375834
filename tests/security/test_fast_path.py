"""``coinflip.fastpath.RespondentFastPath``: a respondent's usual POST (a report, a redemption) is answered at the WSGI
entry, before Django's handler; everything else goes through the whole stack.

What must hold: only ``csrf_exempt`` JSON views take the fast path; its answers keep the headers of the middleware
above it (security, CSP); a request it does not answer — anything unusual, any refusal — gets the full stack's
answer, in the respondent's language, with the body it sent; and nothing is stored twice or half. Requests go
through ``coinflip.wsgi.application`` as a WSGI server sends them (``wsgi_post``).
"""
from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from coinflip import fastpath
from survey_app.api import RedeemView, ReportView
from survey_app.models import PendingReport, Survey
from tests.factories import make_survey, simulated_reports


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def wsgi_post(path: str, data, host: str = "testserver", language: str | None = None, query: str = "",
              application=None, body: bytes | None = None) -> Answer:
    """POST ``data`` as JSON (or the raw ``body``) through the production WSGI application (or ``application``), as
    gunicorn calls it."""
    if application is None:
        from coinflip.wsgi import application

    body = json.dumps(data).encode() if body is None else body
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "testserver",
               "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.version": (1, 0), "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
               "wsgi.multiprocess": True, "wsgi.run_once": False, "HTTP_HOST": host, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body))}
    if language:
        environ["HTTP_ACCEPT_LANGUAGE"] = language
    started = []
    # As Django's test client does: the test's transaction must outlive the request (close_old_connections would
    # close a connection that is not in autocommit mode).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        chunks = application(environ, lambda status, headers, exc_info=None: started.append((status, headers)))
        try:
            content = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    status, headers = started[0]
    return Answer(int(status.split()[0]), dict(headers), content)


def test_the_fast_path_applies_exactly_the_middleware_above_it():
    """``fastpath.ABOVE`` is the head of ``settings.MIDDLEWARE``: a middleware added above would be skipped."""
    assert tuple(settings.MIDDLEWARE[:len(fastpath.ABOVE)]) == fastpath.ABOVE


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
    one, two = simulated_reports(survey, n=2)
    first = client.post(url, {"report": one}, format="json")
    second = wsgi_post(url, {"report": two})
    assert first.status_code == second.status == 201 and first.json() == second.json() == {"status": "stored"}
    # The first read and cached the survey (the full stack answered); the second was answered before the handler.
    assert page_middleware_calls == [url]
    assert "Content-Language" in first and "Content-Language" not in second.headers
    for name in ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
                 "Cross-Origin-Opener-Policy", "Allow", "Content-Type"):
        assert second.headers[name] == first[name], name
    assert second.headers["Content-Length"] == str(len(second.body))
    assert PendingReport.objects.filter(survey=survey).count() == 2


def test_what_the_fast_path_does_not_store_gets_the_full_answer_in_the_respondents_language(cached,
                                                                                           page_middleware_calls):
    url, report = cached.url, cached.reports[0]
    Survey.objects.filter(pk=cached.survey.pk).update(status=Survey.Status.CLOSED)
    closed = wsgi_post(url, {"report": report}, language="de")
    assert closed.status == 410
    assert closed.json()["detail"] == "Diese Umfrage ist geschlossen und nimmt keine Antworten mehr an."
    Survey.objects.filter(pk=cached.survey.pk).update(status=Survey.Status.OPEN)
    assert wsgi_post(url, {"report": report}).status == 201  # caches the open survey again (whole stack)
    # A body the fast path read and declined reaches the whole stack as sent: DRF names the malformed field.
    malformed = wsgi_post(url, {"report": {"input": 0, "report": "not base64!"}})
    assert malformed.status == 400 and "report.report" in malformed.json()
    assert PendingReport.objects.filter(survey=cached.survey).count() == 2
    # Every refusal went through the whole stack (the fixture's first report was posted before the spy).
    assert page_middleware_calls.count(url) == 3


def test_a_host_outside_allowed_hosts_is_refused_and_nothing_stored(cached):
    response = wsgi_post(cached.url, {"report": cached.reports[0]}, host="evil.example")
    assert response.status == 400
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1


def test_nul_bytes_and_unknown_paths_are_answered_by_the_whole_stack(cached):
    assert wsgi_post("/api/surveys/x\x00y/reports/", {"report": {}}).status == 400
    assert wsgi_post(cached.url, {"report": cached.reports[0]}, query="a=%00").status == 400
    assert wsgi_post(cached.url, {"report": cached.reports[0]}, query="a=\x00").status == 400
    assert wsgi_post("/api/surveys/nope/reports/", {"report": {}}).status == 404
    assert wsgi_post("/api/nothing-here/", {}).status == 404
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1


def test_a_database_outage_on_the_fast_path_is_a_503_with_retry_after(cached, monkeypatch):
    """The fast path answers an outage as ``DatabaseUnavailableMiddleware`` does for views, with nothing written."""
    from django.db import OperationalError

    from survey_app import reports as ingestion
    from survey_app.models import InvitationToken
    from survey_app.services import generate_tokens

    def cut(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(ingestion, "store_report", cut)
    response = wsgi_post(cached.url, {"report": cached.reports[0]})
    assert response.status == 503 and response.headers["Retry-After"] == "5"
    assert response.json()["code"] == "database_unavailable"
    assert "Content-Security-Policy" in response.headers and "X-Content-Type-Options" in response.headers
    monkeypatch.undo()
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1

    tokens = make_survey(slug="invited", access="tokens")
    token = generate_tokens(tokens, 1)[0].token
    monkeypatch.setattr("survey_app.api.redeem_if_unchanged", cut)
    redeem = wsgi_post(f"/api/surveys/{tokens.slug}/invitations/redeem/", {"token": token, "blinded_msg": "AAAA"})
    assert redeem.status == 503 and redeem.json()["code"] == "database_unavailable"
    assert not InvitationToken.objects.get(token=token).used


def test_behind_the_https_redirect_a_foreign_host_is_refused_and_plain_http_redirected(cached):
    """With ``SECURE_SSL_REDIRECT`` (production's default) the HTTPS redirect reads the host too: a host outside
    ``ALLOWED_HOSTS`` gets the whole stack's 400, an allowed one over plain HTTP its redirect; nothing is stored."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import override_settings

    with override_settings(SECURE_SSL_REDIRECT=True):  # middleware reads its settings once: both stacks built here
        application = fastpath.RespondentFastPath(WSGIHandler())
        foreign = wsgi_post(cached.url, {"report": cached.reports[0]}, host="evil.example", application=application)
        plain = wsgi_post(cached.url, {"report": cached.reports[0]}, application=application)
    assert foreign.status == 400
    assert plain.status == 301 and plain.headers["Location"] == f"https://testserver{cached.url}"
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1


def test_a_body_whose_read_failed_is_not_read_again_and_nothing_is_stored(cached):
    """A body read that failed on the fast path (a client gone mid-body) reaches the whole stack as unreadable — its
    400 — even if the server's stream would now hand out bytes again: part of a body is never taken for all of it."""

    class FailingOnce(io.RawIOBase):
        def __init__(self, data: bytes):
            self.data, self.failed = io.BytesIO(data), False

        def read(self, size=-1):
            if not self.failed:
                self.failed = True
                raise OSError("client gone")
            return self.data.read(size)

    body = json.dumps({"report": cached.reports[0]}).encode()
    answer = wsgi_post(cached.url, None, body=body, application=_with_stream(FailingOnce(body)))
    assert answer.status == 400 and "could not be read" in answer.json()["detail"]
    assert PendingReport.objects.filter(survey=cached.survey).count() == 1


def _with_stream(stream):
    """The production application with ``wsgi.input`` replaced by ``stream``."""
    from coinflip.wsgi import application

    def wrapped(environ, start_response):
        environ["wsgi.input"] = stream
        return application(environ, start_response)
    return wrapped


@pytest.mark.django_db
def test_a_started_worker_answers_its_first_token_respondents_on_the_fast_path(page_middleware_calls):
    """As a worker starts, ``warm_protocols`` also reads each token survey's keys (``credentials.warm_keys``): its
    first redemption and its first report are then answered by the fast path. Without them both were declined and
    served by the whole stack in a thread (bench/load/README.md: the first half second of the load)."""
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement paths are PostgreSQL's")
    from survey_app import api, credentials
    from survey_app import reports as ingestion
    from survey_app.services import generate_tokens

    survey = make_survey(slug="invited", access="tokens")
    first, second = (t.token for t in generate_tokens(survey, 2))
    public = credentials.public_credential(survey)  # the protocol GET makes the active key
    report = simulated_reports(survey, n=1)[0]

    def forget():  # a new worker process: nothing read yet
        for cache in (ingestion._SURVEYS, ingestion._PROTOCOLS, credentials._PRIVATE_KEYS, credentials._PUBLIC_KEYS):
            cache.clear()
        credentials._read_signing_key.cache_clear()
        credentials._public_key.cache_clear()

    def respondent(token):
        blinded, pending = credentials.start_credential(public)
        redeemed = wsgi_post(f"/api/surveys/{survey.slug}/invitations/redeem/",
                             {"token": token, "blinded_msg": blinded, "key_id": pending.key_id})
        assert redeemed.status == 200, redeemed.body
        credential = credentials.finish_credential(pending, redeemed.json()["blind_signature"])
        stored = wsgi_post(f"/api/surveys/{survey.slug}/reports/", {"report": report, "credential": credential})
        assert stored.status == 201, stored.body

    forget()
    assert api.warm_protocols(budget=60) == 1
    respondent(first)
    assert page_middleware_calls == []  # both answered above the page middleware: the fast path

    forget()
    ingestion.find_public_survey(survey.slug)  # the survey read, its keys not: what workers did before
    respondent(second)
    assert page_middleware_calls == [f"/api/surveys/{survey.slug}/invitations/redeem/",
                                      f"/api/surveys/{survey.slug}/reports/"]


@pytest.mark.django_db
def test_a_signing_key_read_before_is_kept_for_the_fast_path_again_after_its_cache_empties():
    """``_PRIVATE_KEYS`` (what ``redeem_if_unchanged`` signs with) is emptied when it holds 256 keys; a key read again
    afterwards — from the process's cache of keys handed to OpenSSL — goes back into it, so its survey's redemptions
    return to the fast path (before, only a key read from the database did)."""
    from survey_app import credentials

    survey = make_survey(slug="invited", access="tokens")
    key_id = credentials.public_credential(survey)["key_id"]
    private = credentials._signing_key(key_id)
    credentials._PRIVATE_KEYS.clear()  # as when a 257th key arrives
    assert credentials._signing_key(key_id) is private and credentials._PRIVATE_KEYS[key_id] is private
