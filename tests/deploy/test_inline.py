"""Simple POSTs served in the worker's event loop (coinflip/inline.py, BufferingThreadWorker._serve_inline).

What is read must be exactly what gunicorn would read: every accepted request gives the environ gunicorn's own parser
and ``wsgi.create`` give (compared key by key), and every request gunicorn treats specially is left to it. Then the
worker: answers on a kept-alive connection mixed with thread-served requests, ``Connection: close``, the worker's
request limit, and an answer the client's window cannot take at once (finished by a thread)."""
from __future__ import annotations

import concurrent.futures
import http.client
import io
import json
import selectors
import socket
import threading
from collections import deque

import pytest
from gunicorn.config import Config
from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.http.parser import RequestParser

from coinflip import inline
from coinflip.buffering import BufferedSocket, BufferingThreadWorker, Framing

from .live_server import HTTPS, production_database, production_gunicorn

PATH = b"/api/surveys/health/reports/"
BODY = b'{"report": {"input": 1, "report": "AQ=="}}'
CLIENT, SERVER = ("127.0.0.1", 50123), ("127.0.0.1", 8000)


def request(*fields: bytes, body: bytes = BODY, line: bytes = b"POST " + PATH + b" HTTP/1.1",
            length: bool = True) -> bytes:
    head = [line, b"Host: 127.0.0.1", *fields]
    if length:
        head.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def config(**settings) -> Config:
    cfg = Config()
    for name, value in settings.items():
        cfg.set(name, value)
    return cfg


def parse(data: bytes, cfg: Config | None = None, client=CLIENT):
    return inline.simple_post(data, data.index(b"\r\n\r\n") + 4, client, cfg or config())


class Unreadable:
    """A socket for gunicorn's parser: ``data``, then nothing."""

    def __init__(self, data: bytes):
        self.data = io.BytesIO(data)

    def recv(self, size: int) -> bytes:
        return self.data.read(size)


def gunicorn_environ(data: bytes, cfg: Config, client=CLIENT) -> dict:
    req = next(RequestParser(cfg, Unreadable(data), client))
    _, environ = gunicorn_wsgi.create(req, None, client, SERVER, cfg)
    environ["wsgi.multithread"] = True  # as gthread's handle_request sets it
    assert environ["wsgi.input"].read() == data[data.index(b"\r\n\r\n") + 4:]
    return environ


OBJECTS = ("wsgi.errors", "wsgi.input", "gunicorn.socket")  # per-request objects, compared by content above


@pytest.mark.parametrize("fields", [
    (),
    (b"Content-Type: application/json", b"Accept: application/json"),
    (b"X-Forwarded-Proto: https", b"X-Forwarded-For: 203.0.113.7, 10.0.0.1", b"Forwarded: for=203.0.113.7"),
    (b"X-Forwarded-Proto: http",),
    (b"Accept-Language: fr", b"accept-language: de", b"Cookie: a=b", b"User-Agent: x\tz"),
    (b"Connection: keep-alive", b"Origin: https://example.org", b"X-Empty:"),
])
@pytest.mark.parametrize("client", [CLIENT, ("10.1.2.3", 4000)])  # trusted (forwarded_allow_ips) or not
def test_the_environ_is_gunicorns(fields, client):
    cfg = config()
    data = request(*fields)
    simple = parse(data, cfg, client)
    assert simple is not None and simple.body == BODY
    ours = inline.environ(simple, None, client, SERVER, cfg)
    theirs = gunicorn_environ(data, cfg, client)
    assert ours["wsgi.input"].read() == BODY
    assert set(ours) == set(theirs)
    assert {k: v for k, v in ours.items() if k not in OBJECTS} == {k: v for k, v in theirs.items() if k not in OBJECTS}
    assert ours["wsgi.url_scheme"] == ("https" if b"X-Forwarded-Proto: https" in fields and client == CLIENT
                                       else "http")


@pytest.mark.parametrize("data", [
    request(line=b"GET " + PATH + b" HTTP/1.1"),
    request(line=b"PUT " + PATH + b" HTTP/1.1"),
    request(line=b"POST " + PATH + b" HTTP/1.0"),
    request(line=b"POST " + PATH + b"?next=1 HTTP/1.1"),
    request(line=b"POST /api/surveys/h%65alth/reports/ HTTP/1.1"),
    request(line=b"POST /api/surveys/health;x/reports/ HTTP/1.1"),
    request(line=b"POST /api/surveys/h\xc3\xa9/reports/ HTTP/1.1"),
    request(line=b"POST http://127.0.0.1" + PATH + b" HTTP/1.1"),
    request(line=b"POST  " + PATH + b" HTTP/1.1"),
    request(line=b"POST /" + b"a" * 5000 + b" HTTP/1.1"),
    request(b"X_Forwarded_For: 1.2.3.4"),  # gunicorn drops names with "_"
    request(b"SCRIPT_NAME: /x"),
    request(b"Bad Header: 1"),
    request(b"Name : 1"),
    request(b"Name: a\x01b"),
    request(b"Name: a\x00b"),
    request(b"Name: a\x7fb"),
    request(b"Name: a", b" folded"),
    request(b"NoColon"),
    request(b"Transfer-Encoding: chunked", length=False, body=b"2\r\n{}\r\n0\r\n\r\n"),
    request(b"Transfer-Encoding: identity"),
    request(b"Expect: 100-continue"),
    request(length=False, body=b""),
    request(b"Content-Length: 2"),  # two lengths
    request(b"Content-Length: 2", length=False),  # not the body's
    request(b"Content-Length: +43", length=False),
    request(b"X-Long: " + b"v" * 9000),
    request(*[b"X-%d: 1" % i for i in range(100)]),  # 102 fields: gunicorn's limit is 100
    request(b"X-Forwarded-Proto: https", b"X-Forwarded-Ssl: off"),  # conflicting scheme headers: gunicorn's 400
    b"POST " + PATH + b" HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",  # no Host
])
def test_what_gunicorn_treats_specially_is_left_to_it(data):
    assert parse(data) is None


def test_the_limits_are_gunicorns_own():
    at_limit = request(*[b"X-%d: 1" % i for i in range(98)])  # Host + 98 + Content-Length = 100 fields
    assert parse(at_limit) is not None and gunicorn_environ(at_limit, config())
    assert parse(request(b"X-Long: " + b"v" * 9000), config(limit_request_field_size=0)) is not None
    assert parse(request(line=b"POST /" + b"a" * 5000 + b" HTTP/1.1"), config(limit_request_line=0)) is not None
    # gunicorn clamps a request-line limit at 8190 and a field count at 32768, whatever the configuration says
    assert parse(request(line=b"POST /" + b"a" * 8500 + b" HTTP/1.1"), config(limit_request_line=9000)) is None
    assert inline.limits(config(limit_request_fields=0, limit_request_line=8190)) == (8190, 8190, 32768)


@pytest.mark.parametrize("value, close", [("close", True), ("keep-alive, Close", True), ("keep-alive", False)])
def test_connection_close_is_heard(value, close):
    assert parse(request(b"Connection: " + value.encode())).close is close


def test_the_head_is_gunicorns_shape():
    answer = inline.Answer()
    answer.start_response("201 Created", [("Content-Type", "application/json"), ("Connection", "upgrade"),
                                          ("Transfer-Encoding", "chunked"), ("X-Frame-Options", "DENY")])
    head = answer.head(b"x" * 20, close=False).decode("latin-1")
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/1.1 201 Created" and head.endswith("\r\n\r\n")
    assert lines[1:4] == ["Server: gunicorn", f"Date: {inline.http_date()}", "Connection: keep-alive"]
    assert "Content-Length: 20" in lines and "X-Frame-Options: DENY" in lines
    assert "Connection: upgrade" not in lines and "Transfer-Encoding: chunked" not in lines  # hop-by-hop: dropped
    given = inline.Answer()
    given.start_response("200 OK", [("Content-Length", "5")])
    head = given.head(b"12345", close=True)
    assert head.count(b"Content-Length") == 1 and b"Connection: close" in head
    with pytest.raises(ValueError, match="Content-Length"):
        given.head(b"1234", close=False)  # gunicorn would cut the body and the connection would lose its framing


@pytest.mark.parametrize("header", [("X-Split", "a\r\nSet-Cookie: x=1"), ("X Bad", "1"), ("X-Nul", "a\x00"),
                                    ("X-Int", 1), ("X-Ctl", "a\x01")])
def test_a_header_gunicorn_would_refuse_is_refused(header):
    answer = inline.Answer()
    answer.start_response("200 OK", [header])
    with pytest.raises(ValueError, match="invalid response header"):
        answer.head(b"", close=False)


# -- the worker ----------------------------------------------------------------------------------------------------

class Poller:
    def __init__(self):
        self.registered: dict = {}

    def register(self, sock, events, data):
        assert sock not in self.registered
        self.registered[sock] = data

    def unregister(self, sock):
        del self.registered[sock]


class Log:
    def __init__(self):
        self.lines: list = []

    def access(self, resp, req, environ, request_time):
        self.lines.append((resp.status, req.path, resp.sent))

    def exception(self, *args):
        self.lines.append(("exception",) + args)

    def info(self, *args):
        self.lines.append(args)

    def debug(self, *args):
        pass


class Application:
    """A WSGI application whose fast path is ``fast_only``; the whole application is never called here."""

    def __init__(self, fast_only):
        self.fast_only = fast_only

    def __call__(self, environ, start_response):
        raise AssertionError("the whole application runs in a thread, not in the event loop")


def worker(fast_only, **settings) -> BufferingThreadWorker:
    """The worker's state without its process: what ``_serve_inline`` and ``finish_request`` touch."""
    w = BufferingThreadWorker.__new__(BufferingThreadWorker)
    w.cfg, w.log, w.wsgi, w.nr, w.alive = config(**settings), Log(), Application(fast_only), 0, True
    w.max_requests, w.max_keepalived = settings.get("max_requests", 0) or 2 ** 62, 100
    w._keep, w._lock, w.poller, w.futures, w._reading, w.nr_conns = deque(), threading.RLock(), Poller(), [], {}, 1
    w.tpool = concurrent.futures.ThreadPoolExecutor(1)
    return w


def connection(w, data: bytes):
    """A client socket and the worker's connection with ``data`` buffered whole, registered for reading."""
    from gunicorn.workers.gthread import TConn

    server_side, client = socket.socketpair()
    conn = TConn(w.cfg, BufferedSocket(server_side, 5.0), CLIENT, SERVER)
    conn.sock.framing = Framing()
    conn.sock.pending += data
    assert conn.sock.framing.end(conn.sock.pending) == len(data)
    w.poller.register(conn.sock, selectors.EVENT_READ, "readable")
    return conn, client


def answer_of(client: socket.socket) -> bytes:
    client.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += client.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    lengths = [line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    length = int(lengths[0])
    while len(body) < length:
        body += client.recv(65536)
    return head + b"\r\n\r\n" + body


def test_an_answer_is_written_and_the_connection_kept_alive():
    def app(environ, start_response):
        start_response("201 Created", [("Content-Type", "application/json")])
        return [b'{"status": ', b'"stored"}']
    w = worker(app)
    conn, client = connection(w, request())
    assert w._serve_inline(conn)
    answer = answer_of(client)
    assert answer.startswith(b"HTTP/1.1 201 Created\r\n") and answer.endswith(b'{"status": "stored"}')
    assert b"Connection: keep-alive" in answer and b"Content-Length: 20" in answer
    assert list(w._keep) == [conn] and conn.sock in w.poller.registered and not conn.sock.pending
    assert w.nr == 1 and w.log.lines == [("201 Created", PATH.decode(), 20)]


def test_a_request_the_inline_path_refuses_or_the_fast_path_declines_is_left_untouched():
    w = worker(lambda environ, start_response: pytest.fail("the fast path was asked"))
    conn, _ = connection(w, request(b"Expect: 100-continue"))  # gunicorn's Expect
    assert not w._serve_inline(conn)
    asked = []
    w = worker(lambda environ, start_response: asked.append(environ["PATH_INFO"]))  # declines: None
    data = request(line=b"POST /api/surveys/health/ HTTP/1.1")
    conn, _ = connection(w, data)
    assert not w._serve_inline(conn)
    assert asked == ["/api/surveys/health/"] and bytes(conn.sock.pending) == data and w.nr == 0 and not w._keep
    assert conn.sock in w.poller.registered  # the caller hands it to a thread


@pytest.mark.parametrize("settings, environment", [
    ({"pre_request": lambda worker, req: None}, {}), ({"post_request": lambda worker, req, environ, resp: None}, {}),
    ({}, {"SCRIPT_NAME": "/coinflip"})])
def test_hooks_or_a_script_name_keep_every_request_in_threads(settings, environment, monkeypatch):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    w = worker(lambda environ, start_response: pytest.fail("the fast path was asked"), **settings)
    conn, _ = connection(w, request())
    assert not w._serve_inline(conn) and w._inline is False


def test_connection_close_and_the_request_limit_close_the_connection():
    def app(environ, start_response):
        start_response("201 Created", [])
        return [b"{}"]
    w = worker(app)
    conn, client = connection(w, request(b"Connection: close"))
    assert w._serve_inline(conn)
    assert b"Connection: close" in answer_of(client) and client.recv(1) == b""  # closed
    assert not w._keep and conn.sock not in w.poller.registered
    w = worker(app, max_requests=1)
    conn, client = connection(w, request())
    assert w._serve_inline(conn)
    assert b"Connection: close" in answer_of(client) and not w.alive


def raises(environ, start_response):
    raise ValueError("boom")


def splits(environ, start_response):
    start_response("200 OK", [("X-Split", "a\r\nSet-Cookie: x=1")])
    return [b"{}"]


def lies(environ, start_response):
    start_response("200 OK", [("Content-Length", "10")])
    return [b"{}"]


@pytest.mark.parametrize("fast_only", [raises, splits, lies])
def test_an_application_error_is_a_500_and_a_closed_connection(fast_only):
    w = worker(fast_only)
    conn, client = connection(w, request())
    assert w._serve_inline(conn)  # never handed to a thread: the fast path may have written already
    answer = answer_of(client)
    assert answer.startswith(b"HTTP/1.1 500 Internal Server Error") and b"boom" not in answer
    assert b"Set-Cookie" not in answer and b"Connection: close" in answer and client.recv(1) == b""
    assert w.log.lines[0][0] == "exception" and not w._keep


def test_an_answer_the_client_cannot_take_at_once_is_finished_by_a_thread():
    big = b"x" * (4 << 20)  # far more than the socket buffers hold

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return [big]
    w = worker(app)
    conn, client = connection(w, request())
    assert w._serve_inline(conn)
    assert conn.sock not in w.poller.registered and len(w.futures) == 1  # a thread waits for the client
    answer = answer_of(client)
    assert answer.endswith(big)
    w.futures[0].result(5)
    w.tpool.shutdown(wait=True)
    assert conn.sock in w.poller.registered and list(w._keep) == [conn]  # kept alive by gthread's finish_request


# -- end to end ----------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_gunicorn_serves_reports_inline_and_other_requests_on_the_same_connection(tmp_path):
    with production_database("h14_inline", reports=6) as (url, data):
        with production_gunicorn(url, tmp_path / "gunicorn.log", WEB_CONCURRENCY="1", GUNICORN_LOG_LEVEL="debug",
                                 GUNICORN_MAX_REQUESTS="5", GUNICORN_MAX_REQUESTS_JITTER="0") as (port, web):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            statuses, closing = [], []
            for index in range(5):
                if index == 2:  # a GET in between: served by a thread, on the same connection
                    connection.request("GET", f"/api/surveys/{data['slug']}/protocol/", headers=HTTPS)
                else:
                    connection.request("POST", f"/api/surveys/{data['slug']}/reports/",
                                       json.dumps({"report": data["reports"][index]}),
                                       {**HTTPS, "Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                statuses.append(response.status)
                closing.append(response.getheader("Connection"))
            connection.close()
            log = web.log()
    assert statuses == [201, 201, 200, 201, 201], (statuses, log[-3000:])
    assert closing == ["keep-alive"] * 4 + ["close"]  # the fifth request was the worker's last
    assert "Autorestarting worker after current request." in log
    assert log.count(f"Serving /api/surveys/{data['slug']}/reports/ in the event loop") == 4
    assert log.count(f"POST /api/surveys/{data['slug']}/reports/ HTTP/1.1\" 201") == 4  # the access log, inline too
