"""No log line identifies a respondent: gunicorn's access log (docker/gunicorn.conf.py) holds neither the client's
address, user agent, referrer nor query string, and invitation tokens in survey paths are replaced by <token> — in
gunicorn's log and in Django's own (django.request logs the path of 4xx answers). The live run is in test_live.py."""
import importlib.util
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from gunicorn.config import Config

from coinflip.security import RedactTokensFilter, redact_path

CONF = Path(__file__).resolve().parents[2] / "docker" / "gunicorn.conf.py"
SECRETS = ("203.0.113.7", "tok3n-SECRET", "secret-agent", "utm_source", "mail.example")


def load_conf():
    spec = importlib.util.spec_from_file_location("coinflip_gunicorn_conf", CONF)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path, expected", [
    ("/s/health/t/tok3n-SECRET/", "/s/health/t/<token>/"),
    ("/s/health/t/tok3n-SECRET", "/s/health/t/<token>"),
    ("/s/health/t/tok3n-SECRET/?utm_source=mail", "/s/health/t/<token>/"),
    ("/s/health/?token=abc", "/s/health/"),
    ("/api/surveys/health/reports/", "/api/surveys/health/reports/"),
    ("/s/t/t/x/", "/s/t/t/<token>/"),
])
def test_redact_path(path, expected):
    assert redact_path(path) == expected


class Response:
    status, sent = "404 Not Found", 1234
    headers = [("Content-Type", "text/html"), ("Set-Cookie", "x=1")]


class Request:
    headers = [("USER-AGENT", "Mozilla/5.0 secret-agent"), ("X-FORWARDED-FOR", "203.0.113.7"),
               ("REFERER", "https://mail.example/")]


ENVIRON = {"REQUEST_METHOD": "GET", "RAW_URI": "/s/health/t/tok3n-SECRET/?utm_source=mail",
           "PATH_INFO": "/s/health/t/tok3n-SECRET/", "QUERY_STRING": "utm_source=mail", "SERVER_PROTOCOL": "HTTP/1.1",
           "REMOTE_ADDR": "203.0.113.7", "HTTP_REFERER": "https://mail.example/", "HTTP_USER_AGENT": "secret-agent"}


def access_line(tmp_path, access_log_format=None) -> str:
    conf = load_conf()
    cfg = Config()
    cfg.set("accesslog", str(tmp_path / "access.log"))
    cfg.set("access_log_format", access_log_format or conf.access_log_format)
    logger = conf.PrivateLogger(cfg)
    logger.access(Response(), Request(), dict(ENVIRON), timedelta(milliseconds=12))
    for handler in logger.access_log.handlers:
        handler.flush()
    return (tmp_path / "access.log").read_text()


def test_access_log_line_holds_nothing_identifying(tmp_path):
    line = access_line(tmp_path)
    assert '"GET /s/health/t/<token>/ HTTP/1.1" 404 1234 12ms' in line
    assert not any(secret in line for secret in SECRETS), line


def test_even_a_format_asking_for_them_gets_dashes(tmp_path):
    hostile = ('%(h)s|%(r)s|%(q)s|%(a)s|%(f)s|%(u)s|%({user-agent}i)s|%({x-forwarded-for}i)s|%({remote_addr}e)s|'
               '%({set-cookie}o)s|%(U)s')
    line = access_line(tmp_path, hostile).strip()
    assert line == "-|GET /s/health/t/<token>/ HTTP/1.1||-|-|-|-|-|-|-|/s/health/t/<token>/"


def test_gunicorn_conf_defaults(monkeypatch):
    for name in ("GUNICORN_BIND", "WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_ACCESS_LOG"):
        monkeypatch.delenv(name, raising=False)
    conf = load_conf()
    assert conf.bind == "0.0.0.0:8000" and conf.worker_class == "gthread" and conf.threads == 4
    assert conf.logger_class is conf.PrivateLogger and conf.accesslog == "-"
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_ACCESS_LOG", "")
    conf = load_conf()
    assert conf.workers == 3 and conf.accesslog is None


def test_django_log_records_lose_their_tokens():
    record = logging.LogRecord("django.request", logging.WARNING, __file__, 1, "%s: %s", ("Conflict",
                               "/s/health/t/tok3n-SECRET/"), None)
    assert RedactTokensFilter().filter(record) is True
    assert record.getMessage() == "Conflict: /s/health/t/<token>/"


@pytest.mark.django_db
def test_django_request_log_of_a_used_token_page_has_no_token(client):
    """A used invitation link answers 409, which django.request logs with the path: the console handler configured
    by the settings (LOGGING) writes it with the token redacted."""
    import io

    from survey_app.models import InvitationToken
    from survey_app.services import generate_tokens
    from tests.factories import make_survey

    console = [h for h in logging.getLogger().handlers if any(isinstance(f, RedactTokensFilter) for f in h.filters)]
    assert len(console) == 1, "the settings' console handler has no RedactTokensFilter"
    survey = make_survey("logged", access="tokens")
    token = generate_tokens(survey, 1)[0]
    InvitationToken.objects.filter(pk=token.pk).update(used=True)
    written = io.StringIO()
    previous = console[0].setStream(written)
    try:
        assert client.get(f"/s/logged/t/{token.token}/").status_code == 409
    finally:
        console[0].setStream(previous)
    assert "/s/logged/t/<token>/" in written.getvalue()
    assert token.token not in written.getvalue()
