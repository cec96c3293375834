"""Slow clients cannot stall the web tier (issue 14): gunicorn as the image runs it (docker/gunicorn.conf.py, the
compose defaults of 2 workers × 4 threads, production settings, PostgreSQL) keeps answering report POSTs while
slow connections send their headers or bodies one byte per second.

Before (gunicorn's stock gthread worker, which the control test runs): a thread reads a body as its bytes arrive,
so ten such connections held all eight threads and a report POST waited 28 s (issue 14 measured 17 s; 39 s with
eight connections for 45 s). After (coinflip.buffering.BufferingThreadWorker): the event loop buffers each request
and a thread takes it only once whole. The bound: under attack, the p99 of 100 report POSTs stays within the p99
of 100 POSTs measured just before on the same server plus 100 ms — the stall it guards against is two orders of
magnitude larger, and the margin absorbs the noise of a shared 2-core machine; the slow connections are checked to
be still open when the measurement ends. Loopback only; every loop is bounded in time.
"""
import http.client
import json
import socket
import threading
import time

import pytest

from .live_server import HTTPS, production_database, production_gunicorn, raw_request

pytestmark = pytest.mark.slow
SLOW_BODIES, SLOW_HEADERS = 10, 4  # 14 slow connections against 8 threads


@pytest.fixture(scope="module")
def database():
    with production_database("h17_slow_clients") as (url, data):
        yield url, data


@pytest.fixture(scope="module")
def server(database, tmp_path_factory):
    url, data = database
    with production_gunicorn(url, tmp_path_factory.mktemp("slow") / "gunicorn.log") as (port, web):
        yield port, data, web


def post_report(port: int, data: dict, index: int, timeout: float = 60) -> tuple[int, float]:
    """(status, seconds) of one report POST on a fresh connection."""
    body = json.dumps({"report": data["reports"][index % len(data["reports"])]})
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", f"/api/surveys/{data['slug']}/reports/", body,
                           {**HTTPS, "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def p99(latencies: list[float]) -> float:
    return sorted(latencies)[int(0.99 * len(latencies)) - 1]


class SlowClients:
    """Connections sending one byte per second for at most ``seconds``: ``bodies`` send their headers at once
    then a body, ``headers`` send their headers themselves byte by byte."""

    def __init__(self, port: int, slug: str, bodies: int, headers: int, seconds: float):
        self.port, self.deadline, self.stop = port, time.monotonic() + seconds, threading.Event()
        self.head = (f"POST /api/surveys/{slug}/reports/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
                     f"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n").encode()
        self.cut: list[str] = []
        self.threads = [threading.Thread(target=self.run, args=(i < bodies,)) for i in range(bodies + headers)]

    def run(self, body: bool):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            pending = b" " * 1000 if body else self.head
            if body:
                sock.sendall(self.head)
            try:
                for byte in pending:
                    if self.stop.is_set() or time.monotonic() > self.deadline:
                        return
                    sock.sendall(bytes([byte]))
                    self.stop.wait(1.0)
            except OSError as error:
                self.cut.append(repr(error))

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for thread in self.threads:
            thread.join(10)


def test_report_posts_keep_their_p99_while_slow_clients_hold_connections(server):
    port, data, web = server
    for i in range(40):  # warm every thread's database connection
        assert post_report(port, data, i)[0] == 201
    baseline = [post_report(port, data, 40 + i) for i in range(100)]
    assert {status for status, _ in baseline} == {201}
    with SlowClients(port, data["slug"], SLOW_BODIES, SLOW_HEADERS, seconds=30) as slow:
        time.sleep(2)  # every slow connection is open and has sent bytes
        attacked = [post_report(port, data, 140 + i, timeout=10) for i in range(100)]
        assert slow.cut == [], slow.cut  # still connected: the attack lasted the whole measurement
    before, under = p99([t for _, t in baseline]), p99([t for _, t in attacked])
    assert {status for status, _ in attacked} == {201}
    assert under <= before + 0.1, (before, under)
    assert max(t for _, t in attacked) < 5, attacked


def test_control_gunicorn_stock_gthread_worker_stalls(database, tmp_path):
    """The same attack on gunicorn's own gthread worker (the configuration before issue 14): a POST does not answer
    within 3 s while 8 slow bodies hold its threads — the scenario above is real. One worker process of 4 threads, so
    that how the kernel spreads connections over processes cannot leave a thread free (with two processes a 5/3
    split did, once in a clean-clone run)."""
    url, data = database
    with production_gunicorn(url, tmp_path / "gunicorn.log", "--worker-class", "gthread", "--workers", "1") as (
            port, web):
        assert post_report(port, data, 0)[0] == 201
        with SlowClients(port, data["slug"], bodies=8, headers=0, seconds=8):
            time.sleep(1.5)
            with pytest.raises(TimeoutError):
                post_report(port, data, 1, timeout=3)


def test_a_request_must_arrive_within_the_read_timeout(database, tmp_path):
    url, data = database
    with production_gunicorn(url, tmp_path / "gunicorn.log", GUNICORN_REQUEST_READ_TIMEOUT="2") as (port, web):
        for i in range(4):  # both workers have booted (the deadline runs from a worker's accept)
            assert post_report(port, data, i)[0] == 201
        started = time.monotonic()
        answer = raw_request(port, b"POST /api/surveys/slow/reports/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   b"Content-Length: 50\r\n\r\n{", timeout=8)
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert 1.9 < time.monotonic() - started < 7  # 2 s (+ the loop's 1-s tick), closed before our 8-s timeout
        with socket.create_connection(("127.0.0.1", port), timeout=8) as idle:  # a connection that sends nothing
            assert idle.recv(100).startswith(b"HTTP/1.1 408 ")
        assert post_report(port, data, 0)[0] == 201


def test_http_semantics_through_the_buffering_worker(server):
    port, data, web = server
    path = f"/api/surveys/{data['slug']}/reports/"
    body = json.dumps({"report": data["reports"][0]}).encode()
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\nContent-Type: application/json\r\n"
    # Keep-alive: two requests on one connection.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(2):
        connection.request("POST", path, body, {**HTTPS, "Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 201 and json.loads(response.read())
    connection.close()
    # Expect: 100-continue — answered once, then the body.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"{head}Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n".encode())
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        rest = b""
        while chunk := sock.recv(65536):
            rest += chunk
        assert rest.startswith(b"HTTP/1.1 201 ") and b"100 Continue" not in rest, rest
    # A body past the buffer (1 MiB) is streamed to its thread; the API refuses it (MAX_REPORT_BYTES): 413.
    large = b'{"report": "' + b"A" * (1536 * 1024) + b'"}'
    answer = raw_request(port, f"{head}Content-Length: {len(large)}\r\nConnection: close\r\n\r\n".encode() + large)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    # Malformed framing reaches gunicorn's parser, which refuses it.
    for bad in (b"Content-Length: 1\xc2\xb2\r\n\r\n{}", b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"):
        answer = raw_request(port, head.encode() + bad)
        assert answer.startswith(b"HTTP/1.1 400 "), (bad, answer[:200])
    # Pipelined requests: the first is answered, then the connection closes (never a hang, never a misread).
    answer = raw_request(port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 2)
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1 ") in (1, 2), answer
    assert post_report(port, data, 1)[0] == 201
