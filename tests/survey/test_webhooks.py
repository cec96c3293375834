"""Signed webhooks on a new model version (survey_app/webhooks.py): a receiver on this machine gets one POST per
version, whose signature checks with the survey's secret; bad addresses are refused."""
import http.server
import json
import threading

import pytest
from django.core.exceptions import ValidationError

from aggregator import services
from survey_app import webhooks
from survey_app.services import clone_survey
from tests.factories import add_reports, after_midnight, make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    """An HTTP server on 127.0.0.1 that records each POST (headers, body) and answers 204."""
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((dict(self.headers), body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()


def test_a_published_version_is_announced_signed(receiver, settings, django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    url, received = receiver
    survey = make_survey(webhook_url=url)
    assert len(survey.webhook_secret) >= 40
    add_reports(survey, 300)
    with django_capture_on_commit_callbacks(execute=True):
        version = services.retrain(survey, now=after_midnight())
    assert version is not None and len(received) == 1
    headers, body = received[0]
    assert headers["Coinflip-Signature"] == webhooks.signature(survey.webhook_secret, headers["Coinflip-Timestamp"],
                                                               body)
    assert json.loads(body) == {"event": "model.published", "survey": "health", "version": version.version,
                                "through_day": version.through_day.isoformat(), "model": "/api/surveys/health/model/"}
    # Another secret does not verify, and a survey without an address hears nothing.
    assert headers["Coinflip-Signature"] != webhooks.signature("not the secret", headers["Coinflip-Timestamp"], body)
    other = make_survey(slug="quiet")
    add_reports(other, 300)
    with django_capture_on_commit_callbacks(execute=True):
        services.retrain(other, now=after_midnight())
    assert len(received) == 1


def test_an_unreachable_receiver_never_breaks_publishing(settings, django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    survey = make_survey(webhook_url="http://127.0.0.1:9/closed")  # the discard port: nothing listens
    add_reports(survey, 300)
    with django_capture_on_commit_callbacks(execute=True):
        version = services.retrain(survey, now=after_midnight())
    assert version is not None  # the version stands; the delivery was retried and dropped in its own task


@pytest.mark.parametrize("url, ok", [
    ("https://hooks.example.org/coinflip", True), ("http://127.0.0.1:8080/x", True), ("http://localhost/x", True),
    ("http://hooks.example.org/x", False), ("ftp://example.org/x", False), ("file:///etc/passwd", False),
])
def test_webhook_addresses_need_https_except_to_this_machine(url, ok):
    survey = make_survey(status="draft")
    survey.webhook_url = url
    if ok:
        survey.full_clean()
    else:
        with pytest.raises(ValidationError) as error:
            survey.full_clean()
        assert "webhook_url" in error.value.message_dict


def test_a_clone_tells_no_one():
    copy = clone_survey(make_survey(webhook_url="https://hooks.example.org/x"))
    assert copy.webhook_url == "" and copy.webhook_secret == ""
