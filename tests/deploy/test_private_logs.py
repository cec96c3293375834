"""No log line identifies a respondent: gunicorn's access log (docker/gunicorn.conf.py) holds neither the client's
address, user agent, referrer nor query string, and invitation tokens in survey paths are replaced by <token> — in
gunicorn's log and in Django's own (django.request logs the path of 4xx answers). gunicorn's error log and Django's
console handler go through RedactAddressesFilter: no IP address, token or query string in any line — checked live
with malformed HTTP sent to the production gunicorn (test_no_client_address_in_any_log_line). The end-to-end run is
in test_live.py."""
import importlib.util
import json
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from gunicorn.config import Config

from coinflip.security import RedactAddressesFilter, RedactTokensFilter, redact_addresses, redact_path

from .live_server import production_database, production_gunicorn, raw_request

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
    assert conf.bind == "0.0.0.0:8000" and conf.threads == 4
    assert conf.worker_class == "gthread" and conf.keepalive == 5
    assert conf.logger_class is conf.PrivateLogger and conf.accesslog == "-"
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_ACCESS_LOG", "")
    conf = load_conf()
    assert conf.workers == 3 and conf.accesslog is None


def test_gunicorn_worker_warms_the_protocols_and_serves_even_if_that_fails(monkeypatch):
    """``post_worker_init`` warms within a third of the worker timeout; an error (no database yet) is logged by
    class name only and does not stop the worker."""
    from survey_app import api

    conf, budgets, lines = load_conf(), [], []

    class Log:
        def info(self, message, *args):
            lines.append(message % args)

        warning = info

    worker = type("Worker", (), {"log": Log()})()
    monkeypatch.setattr(api, "warm_protocols", lambda budget: budgets.append(budget) or 3)
    conf.post_worker_init(worker)
    assert budgets == [conf.timeout / 3] and lines == ["warmed the protocols of 3 open surveys"]

    def fails(budget):
        raise RuntimeError("connection refused to db.internal:5432")

    monkeypatch.setattr(api, "warm_protocols", fails)
    conf.post_worker_init(worker)
    assert lines[-1] == "protocol warm-up skipped: RuntimeError"  # no host or address in the log


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


@pytest.mark.parametrize("message, expected", [
    ("Invalid request from ip=203.0.113.7: Invalid HTTP request line: 'x'",
     "Invalid request from ip=<address>: Invalid HTTP request line: 'x'"),
    ("Invalid request from ip=2001:db8::7: bad", "Invalid request from ip=<address>: bad"),
    ("Invalid request from ip=::ffff:203.0.113.7: bad", "Invalid request from ip=<address>: bad"),
    ("peer 203.0.113.7:51234 closed", "peer <address>:51234 closed"),
    ("Error handling request /s/health/t/tok3n-SECRET/?utm_source=mail", "Error handling request /s/health/t/<token>/"),
    ("[2026-01-01 12:00:00 +0000] [12] [INFO] Booting worker with pid: 12 (gunicorn 23.0.0)",
     "[2026-01-01 12:00:00 +0000] [12] [INFO] Booting worker with pid: 12 (gunicorn 23.0.0)"),
])
def test_redact_addresses(message, expected):
    assert redact_addresses(message) == expected


def test_gunicorn_error_log_records_lose_addresses_even_in_tracebacks(tmp_path):
    conf = load_conf()
    cfg = Config()
    cfg.set("errorlog", str(tmp_path / "error.log"))
    logger = conf.PrivateLogger(cfg)
    assert any(isinstance(f, RedactAddressesFilter) for f in logger.error_log.filters)
    logger.warning("Invalid request from ip={ip}: {error}".format(ip="203.0.113.7", error="Invalid HTTP Version"))
    try:
        raise OSError("connection from 198.51.100.9 reset")
    except OSError:
        logger.exception("Error handling request %s", "/s/health/t/tok3n-SECRET/?utm_source=mail")
    for handler in logger.error_log.handlers:
        handler.flush()
    text = (tmp_path / "error.log").read_text()
    assert "ip=<address>" in text and "connection from <address> reset" in text and "OSError" in text
    assert not any(secret in text for secret in SECRETS + ("198.51.100.9",)), text


@pytest.mark.slow
def test_no_client_address_in_any_log_line(tmp_path):
    """Malformed HTTP (and a request that Django answers 4xx) sent from 127.0.0.2 to gunicorn with the production
    configuration: gunicorn answers 400 and logs "Invalid request from ip=…"; not one line of the process's output
    (gunicorn's error and access logs and Django's log, all on its stdout/stderr) holds the client's address, the
    address a header claimed, a token or a query string."""
    hostile = [
        b"GARBAGE\r\n\r\n",
        b"GET /s/health/t/tok3n-SECRET/?utm_source=mail HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /s/health/t/tok3n-SECRET/ HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
        b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\n\r\n",
        b"GET /api/surveys/nosuch/reports/?utm_source=mail HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
        b"X-Forwarded-For: 203.0.113.7\r\nUser-Agent: secret-agent\r\nConnection: close\r\n\r\n",
        b"GET /s/ HTTP/1.1\r\nHost: 203.0.113.7\r\nConnection: close\r\n\r\n",  # DisallowedHost, logged
        b"POST /api/surveys/nosuch/reports/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
        b"X-Forwarded-For: 203.0.113.7\r\nUser-Agent: secret-agent\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}",  # declined by the fast path: a thread's 404
    ]
    with production_database("h17_private_logs", reports=1) as (url, data):
        body = json.dumps({"report": data["reports"][0]}).encode()
        hostile.append(  # a report, stored: 201
            f"POST /api/surveys/{data['slug']}/reports/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
            f"X-Forwarded-For: 203.0.113.7\r\nUser-Agent: secret-agent\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        log = tmp_path / "gunicorn.log"
        with production_gunicorn(url, log, GUNICORN_LOG_LEVEL="debug", DJANGO_LOG_LEVEL="DEBUG") as (port, web):
            answers = [raw_request(port, data, source="127.0.0.2") for data in hostile]
        text = log.read_text(errors="replace")
    # gunicorn closes the connection of a line that is no request line at all, and answers 414 to one too long.
    assert answers[0][:12] in (b"", b"HTTP/1.1 400") and answers[4][:12] in (b"HTTP/1.1 400", b"HTTP/1.1 414")
    assert [answer[:12] for answer in answers[1:4]] == [b"HTTP/1.1 400"] * 3, answers
    assert answers[5][:12] in (b"HTTP/1.1 404", b"HTTP/1.1 405") and answers[6].startswith(b"HTTP/1.1 400"), answers[5:]
    assert text.count("Invalid request from ip=<address>") >= 4, text
    assert "Invalid HTTP_HOST header: '<address>'" in text, text  # Django's log is in the output too
    assert "GET /api/surveys/nosuch/reports/ HTTP/1.1" in text  # the access log (no query string)
    assert answers[7].startswith(b"HTTP/1.1 404") and answers[8].startswith(b"HTTP/1.1 201"), answers[7:]
    assert "POST /api/surveys/nosuch/reports/ HTTP/1.1\" 404" in text  # the access log line of each
    assert f"POST /api/surveys/{data['slug']}/reports/ HTTP/1.1\" 201" in text
    for secret in ("127.0.0.2", "127.0.0.1", "203.0.113.7", "tok3n-SECRET", "utm_source", "secret-agent"):
        assert secret not in text, (secret, [line for line in text.splitlines() if secret in line])
