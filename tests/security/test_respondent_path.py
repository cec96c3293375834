"""The respondent's POSTs (a report, a redemption) on Django's normal request path: the stock WSGI application
(``coinflip.wsgi``), the whole middleware chain, plain csrf-exempt Django views (``survey_app.respondent_views``)
that parse the body once and call one service — and every check made once (``test_each_check_runs_once``).

Requests go through ``coinflip.wsgi.application`` as a WSGI server calls it (``wsgi_post``).
"""
from __future__ import annotations

import io
import json
import sys
from collections import Counter
from dataclasses import dataclass

import pytest
from django.core.signals import request_finished, request_started
from django.db import OperationalError, close_old_connections, connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver

from aggregator.privacy import blind_rsa
from aggregator.privacy.protocol import SurveyProtocol
from survey_app import credentials, respondent_views, surveys
from survey_app import reports as ingestion
from survey_app.models import InvitationToken, PendingReport, Survey
from survey_app.services import generate_tokens
from tests.factories import make_survey, simulated_reports

pytestmark = pytest.mark.django_db


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def wsgi_call(method: str, path: str, body: bytes = b"", host: str = "testserver", language: str | None = None,
              query: str = "", application=None, stream=None) -> Answer:
    """One request through the production WSGI application (or ``application``), as gunicorn calls it."""
    if application is None:
        from coinflip.wsgi import application

    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "testserver",
               "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.version": (1, 0), "wsgi.url_scheme": "http",
               "wsgi.input": stream or io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
               "wsgi.multiprocess": True, "wsgi.run_once": False, "HTTP_HOST": host, "REMOTE_ADDR": "127.0.0.1"}
    if body or stream is not None:
        environ.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
    if language:
        environ["HTTP_ACCEPT_LANGUAGE"] = language
    started = []
    # As Django's test client does: the test's transaction must outlive the request.
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


def wsgi_post(path: str, data, **options) -> Answer:
    return wsgi_call("POST", path, json.dumps(data).encode(), **options)


def _callbacks(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _callbacks(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            yield pattern.callback


def test_the_wsgi_entry_is_djangos_own_application():
    from django.core.handlers.wsgi import WSGIHandler

    from coinflip.wsgi import application

    assert type(application) is WSGIHandler


def test_the_respondent_views_are_plain_csrf_exempt_django_views_and_the_schema_views_are_not_served():
    callbacks = list(_callbacks(get_resolver().url_patterns))
    served = {cb for cb in callbacks if cb in (respondent_views.report, respondent_views.redeem_invitation)}
    assert served == {respondent_views.report, respondent_views.redeem_invitation}
    for view in served:
        assert getattr(view, "csrf_exempt", False)  # no session, no cookie: nothing for CSRF to protect
        assert not hasattr(view, "cls") and not hasattr(view, "view_class")  # neither DRF's nor a class-based view
    schema_only = (respondent_views.ReportSchema, respondent_views.RedeemSchema)
    assert not [cb for cb in callbacks if getattr(cb, "view_class", None) in schema_only]


def test_a_get_or_put_is_a_405_naming_post():
    survey = make_survey()
    for method in ("GET", "PUT", "DELETE"):
        answer = wsgi_call(method, f"/api/surveys/{survey.slug}/reports/")
        assert answer.status == 405 and answer.headers["Allow"] == "POST", method
        assert answer.json()["detail"] == f'Method "{method}" not allowed.'
    assert wsgi_call("GET", f"/api/surveys/{survey.slug}/invitations/redeem/").status == 405
    assert PendingReport.objects.count() == 0


def test_a_report_goes_through_the_whole_middleware_chain_with_its_security_headers():
    survey = make_survey()
    url = f"/api/surveys/{survey.slug}/reports/"
    answer = wsgi_post(url, {"report": simulated_reports(survey, n=1)[0]})
    assert answer.status == 201 and answer.json() == {"status": "stored"}
    for name in ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy",
                 "Content-Language", "Allow"):
        assert name in answer.headers, name
    assert "default-src 'self'" in answer.headers["Content-Security-Policy"]
    assert PendingReport.objects.filter(survey=survey).count() == 1


def test_a_refusal_is_in_the_respondents_language():
    survey = make_survey(status="closed")
    closed = wsgi_post(f"/api/surveys/{survey.slug}/reports/", {"report": simulated_reports(survey, n=1)[0]},
                       language="de")
    assert closed.status == 410
    assert closed.json()["detail"] == "Diese Umfrage ist geschlossen und nimmt keine Antworten mehr an."


def test_a_foreign_host_nul_bytes_and_unknown_paths_are_refused_and_nothing_stored():
    survey = make_survey()
    url, report = f"/api/surveys/{survey.slug}/reports/", simulated_reports(survey, n=1)[0]
    assert wsgi_post(url, {"report": report}, host="evil.example").status == 400
    assert wsgi_post("/api/surveys/x\x00y/reports/", {"report": {}}).status == 400
    assert wsgi_post(url, {"report": report}, query="a=%00").status == 400
    assert wsgi_post("/api/surveys/nope/reports/", {"report": {}}).status == 404
    assert wsgi_post("/api/nothing-here/", {}).status == 404
    assert PendingReport.objects.count() == 0


def test_behind_the_https_redirect_a_foreign_host_is_refused_and_plain_http_redirected():
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import override_settings

    survey = make_survey()
    url, report = f"/api/surveys/{survey.slug}/reports/", simulated_reports(survey, n=1)[0]
    with override_settings(SECURE_SSL_REDIRECT=True):  # middleware reads its settings once: the stack built here
        application = WSGIHandler()
        foreign = wsgi_post(url, {"report": report}, host="evil.example", application=application)
        plain = wsgi_post(url, {"report": report}, application=application)
    assert foreign.status == 400
    assert plain.status == 301 and plain.headers["Location"] == f"https://testserver{url}"
    assert PendingReport.objects.count() == 0


def test_the_health_check_answers_before_the_host_check_and_the_https_redirect():
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import override_settings

    with override_settings(SECURE_SSL_REDIRECT=True):
        answer = wsgi_call("GET", "/healthz", host="127.0.0.1:8000", application=WSGIHandler())
    assert answer.status == 200 and answer.body == b"ok\n"
    assert answer.headers["Cache-Control"] == "no-store"
    assert wsgi_call("POST", "/healthz").status == 404  # anything else: the URLs


def test_the_health_check_is_a_503_when_the_database_does_not_answer(monkeypatch):
    monkeypatch.setattr("coinflip.middleware.database_answers", lambda: False)
    answer = wsgi_call("GET", "/healthz")
    assert answer.status == 503 and answer.body == b"unavailable\n"


def test_a_database_outage_is_a_503_with_retry_after_and_nothing_written(monkeypatch):
    def cut(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    survey = make_survey()
    monkeypatch.setattr(ingestion, "store_report", cut)
    answer = wsgi_post(f"/api/surveys/{survey.slug}/reports/", {"report": simulated_reports(survey, n=1)[0]})
    assert answer.status == 503 and answer.headers["Retry-After"] == "5"
    assert answer.json()["code"] == "database_unavailable"
    assert "Content-Security-Policy" in answer.headers and "X-Content-Type-Options" in answer.headers

    invited = make_survey(slug="invited", access="tokens")
    token = generate_tokens(invited, 1)[0].token
    monkeypatch.setattr(credentials, "consume_token", cut)
    public = credentials.public_credential(invited)
    blinded, _ = credentials.start_credential(public)
    redeem = wsgi_post(f"/api/surveys/{invited.slug}/invitations/redeem/",
                       {"token": token, "blinded_msg": blinded, "key_id": public["key_id"]})
    assert redeem.status == 503 and redeem.json()["code"] == "database_unavailable"
    assert not InvitationToken.objects.get(token=token).used
    assert PendingReport.objects.count() == 0


def test_a_body_whose_read_failed_is_a_400_and_nothing_is_stored():
    """A client gone mid-body: the parser's 400, never part of a body taken for all of it."""

    class Failing(io.RawIOBase):
        def read(self, size=-1):
            raise OSError("client gone")

    survey = make_survey()
    body = json.dumps({"report": simulated_reports(survey, n=1)[0]}).encode()
    environ_body = body  # declared length of the body the client did not send
    answer = wsgi_call("POST", f"/api/surveys/{survey.slug}/reports/", environ_body, stream=Failing())
    assert answer.status == 400 and "could not be read" in answer.json()["detail"]
    assert PendingReport.objects.count() == 0


@pytest.mark.parametrize("flow", ["report", "redeem"])
@pytest.mark.parametrize(("text", "named"), [
    ('{"report": [1e400]}', None), ('{"report": {"x": -1e999}, "nonce": 1e400}', None),
    ('{"credential": {"value": 1e400}}', None),
    ('{"token": "t", "blinded_msg": "m", "\\ud800": 1}', "\\ud800"), ('{"report": {"\\udfff": "a"}}', "report"),
    ('{"report": {"bits": "a\\u0000b"}}', "report"), ('{"report": ["x", {"k": ["\\udc00"]}]}', "report"),
    ('{"\\u0000": 1}', "\x00"), ('{"nonce": "AAAAAAAAAAAAAAAAAAAAA\\u0000"}', "nonce"),
], ids=["huge-float", "huge-nonce", "huge-in-credential", "surrogate-key", "surrogate-report-key", "nul-value",
        "surrogate-nested", "nul-key", "nul-nonce"])
def test_values_json_or_postgresql_cannot_carry_are_a_400_and_nothing_is_stored(flow, text, named):
    """A number beyond a float's range (``1e400`` decodes to infinity), a NUL or a lone surrogate in any string or
    key: 400 at the reader, before any check or write (the key named) — never a 500 from the answer's encoding or the
    INSERT."""
    survey = make_survey(access="tokens" if flow == "redeem" else "link")
    token = generate_tokens(survey, 1)[0].token if flow == "redeem" else None
    path = (f"/api/surveys/{survey.slug}/invitations/redeem/" if flow == "redeem"
            else f"/api/surveys/{survey.slug}/reports/")
    answer = wsgi_call("POST", path, text.encode())
    assert answer.status == 400, answer.body
    errors = answer.json()
    if named is None:  # the reader's parse error
        assert errors["detail"].startswith("JSON parse error - Out of range float"), errors
    else:  # the key holding it, named (its surrogates escaped), with Django's or DRF's message
        (key, messages), = errors.items()
        assert key == named and messages[0].startswith(("Null", "Surrogate")), errors
    assert PendingReport.objects.count() == 0
    if token is not None:
        assert not InvitationToken.objects.get(token=token).used


def test_an_escaped_emoji_is_not_a_lone_surrogate():
    """A surrogate pair (``\\ud83d\\ude00``) decodes to one character: the body is judged on its keys as usual."""
    survey = make_survey()
    answer = wsgi_call("POST", f"/api/surveys/{survey.slug}/reports/", b'{"report": {}, "\\ud83d\\ude00": 1}')
    assert answer.status == 400 and "\U0001F600" in answer.json()


# -- each check once ---------------------------------------------------------------------------------------------------

@pytest.fixture
def calls(monkeypatch):
    """How often each check and each write ran (the originals run: only counted)."""
    counted: Counter = Counter()

    def spy(owner, name, key):
        original = getattr(owner, name)

        def counting(*args, **kwargs):
            counted[key] += 1
            return original(*args, **kwargs)
        monkeypatch.setattr(owner, name, counting)

    spy(SurveyProtocol, "parse_one", "parse_one")
    spy(SurveyProtocol, "validated_version", "validated_version")
    for owner in (ingestion, credentials):  # the survey as this process last read it, then as it is now
        spy(owner, "cached_public_survey", "cached_public_survey")
        spy(owner, "read_public_survey", "read_public_survey")
    spy(surveys, "read_public_survey", "read_public_survey")  # still_current: a refusal made with the cached one
    spy(ingestion, "store_report", "store_report")
    spy(credentials, "store_report", "store_report")
    spy(respondent_views, "read_json", "read_json")
    spy(respondent_views, "submit_report", "submit_report")
    spy(respondent_views, "redeem", "redeem")
    spy(respondent_views.Body, "check", "body_check")
    spy(credentials, "parse_credential", "parse_credential")
    spy(blind_rsa, "verify", "verify")
    spy(blind_rsa, "blind_sign", "blind_sign")
    spy(credentials, "consume_token", "consume_token")
    return counted


def once(counted: Counter, *names: str) -> None:
    assert all(count == 1 for count in counted.values()), dict(counted)
    assert set(names) <= set(counted), (names, dict(counted))


def test_each_check_runs_once(calls):
    """A valid report, an invalid one, a token survey's redemption and reports: every check and every write at most
    once per request."""
    link = make_survey(slug="checked-once")  # a slug no other test's survey had: nothing of it cached before
    url = f"/api/surveys/{link.slug}/reports/"
    good, bad, third = simulated_reports(link, n=3)
    bad = {**bad, "report": "not base64!"}
    for report, status in ((good, 201), (bad, 400), (third, 201)):  # the second and third: the survey cached
        calls.clear()
        with CaptureQueriesContext(connection) as queries:
            assert wsgi_post(url, {"report": report}).status == status
        once(calls, "read_json", "submit_report", "cached_public_survey", "body_check", "parse_one")
        assert calls["store_report"] == (1 if status == 201 else 0)
    assert len(queries) == 1, [q["sql"] for q in queries]  # cached: the guarded INSERT is the only statement

    # The survey changed since it was cached: the guarded INSERT writes nothing, and the report is judged again
    # against the survey as it is now (a new version: its checks run again, once each), and stored once.
    Survey.objects.filter(pk=link.pk).update(title="Renamed")
    calls.clear()
    assert wsgi_post(url, {"report": simulated_reports(link, n=1)[0]}).status == 201
    assert calls["parse_one"] == 2 and calls["store_report"] == 2 and calls["body_check"] == calls["read_json"] == 1
    assert PendingReport.objects.filter(survey=link).count() == 3

    invited = make_survey(slug="checked-once-invited", access="tokens")
    token = generate_tokens(invited, 1)[0].token
    public = credentials.public_credential(invited)
    blinded, pending = credentials.start_credential(public)
    calls.clear()
    redeemed = wsgi_post(f"/api/surveys/{invited.slug}/invitations/redeem/",
                         {"token": token, "blinded_msg": blinded, "key_id": public["key_id"]})
    assert redeemed.status == 200
    once(calls, "read_json", "redeem", "cached_public_survey", "read_public_survey", "body_check", "consume_token",
         "blind_sign")
    token2 = generate_tokens(invited, 1)[0].token
    calls.clear()
    with CaptureQueriesContext(connection) as queries:  # the survey and its active key cached: one statement
        assert wsgi_post(f"/api/surveys/{invited.slug}/invitations/redeem/",
                         {"token": token2, "blinded_msg": credentials.start_credential(public)[0],
                          "key_id": public["key_id"]}).status == 200
    once(calls, "read_json", "redeem", "cached_public_survey", "body_check", "consume_token", "blind_sign")
    assert len(queries) == 1, [q["sql"] for q in queries]
    credential = credentials.finish_credential(pending, redeemed.json()["blind_signature"])
    report = simulated_reports(invited, n=1)[0]
    for body, status in (({"report": {**report, "report": "not base64!"}, "credential": credential}, 400),
                         ({"report": report, "credential": credential}, 201),
                         ({"report": report, "credential": credential}, 409)):  # spent: refused, checked once
        calls.clear()
        assert wsgi_post(f"/api/surveys/{invited.slug}/reports/", body).status == status
        once(calls, "read_json", "submit_report", "cached_public_survey", "body_check", "parse_one")
        if status != 400:
            once(calls, "parse_credential", "verify")  # store_report: at most once (once() checks every count)
    assert PendingReport.objects.filter(survey=invited).count() == 1
    assert Survey.objects.count() == 2


def test_a_redemption_takes_only_a_bounded_json_body_and_spends_nothing_it_refuses():
    """The redemption's body is read as the report's is (``read_json``): a Content-Type other than application/json —
    wildcards included — is a 415, a body over ``MAX_REDEEM_BYTES`` a 413, JSON that does not parse a 400 with a
    ``detail``, an unknown key a 400 naming it; the token stays unused."""
    invited = make_survey(slug="redeem-bounded", access="tokens")
    token = generate_tokens(invited, 1)[0].token
    public = credentials.public_credential(invited)
    body = {"token": token, "blinded_msg": credentials.start_credential(public)[0], "key_id": public["key_id"]}
    url = f"/api/surveys/{invited.slug}/invitations/redeem/"

    def send(raw: bytes, content_type: str = "application/json") -> Answer:
        from coinflip.wsgi import application

        def with_type(environ, start_response):  # wsgi_call sends application/json
            return application({**environ, "CONTENT_TYPE": content_type}, start_response)
        return wsgi_call("POST", url, raw, application=with_type)

    raw = json.dumps(body).encode()
    for content_type in ("application/*", "*/*", "text/plain", "application/x-www-form-urlencoded"):
        assert send(raw, content_type).status == 415, content_type
    assert send(raw, "application/json; charset=latin-1").status == 400
    too_big = json.dumps({**body, "blinded_msg": "A" * respondent_views.MAX_REDEEM_BYTES}).encode()
    assert send(too_big).status == 413
    broken = send(raw[:-1])
    assert broken.status == 400 and broken.json()["detail"].startswith("JSON parse error - ")
    unknown = send(json.dumps({**body, "report": {}}).encode())
    assert unknown.status == 400 and list(unknown.json()) == ["report"]
    missing = send(json.dumps({"token": token}).encode())
    assert missing.status == 400 and missing.json() == {"blinded_msg": ["This field is required."]}
    assert not InvitationToken.objects.get(token=token).used
    assert send(raw).status == 200 and InvitationToken.objects.get(token=token).used
