"""The load generator: one asyncio process sending pre-built HTTP/1.1 requests over keep-alive loopback connections.

It shares the 2 cores with the server and PostgreSQL, so it does as little as possible per request: every request
is serialised to bytes before the clock starts, and a response is read as its status line, headers and
``Content-Length`` body (``asyncio`` streams of the standard library — no client library, so the smoke test in the dev
venv drives the very same code). A connection the server closes (``Connection: close``, as gunicorn's sync workers
always answer) is reopened for the next request; a request is never retried, since a retry could store a report
twice: a failed connection or a timeout is counted as an error of unknown outcome.

Open loop (``rate`` > 0): request i is due at ``start + i / rate`` whatever happened before, and its latency runs
from that due time — time spent waiting for a free connection counts, so a slow server cannot hide its queue
(no coordinated omission). Closed loop (``rate`` = 0): every connection sends its next request as soon as the
previous answer arrives — the server's saturation throughput, with latency measured from the send.
Bounded in count (one request per pre-built body at most) and in time (nothing is sent after ``duration``; requests
still open ``timeout`` seconds after that are abandoned as errors). ``grace`` extends the sending past ``duration``
for requests already due (a smoke test on a busy machine sends its whole short stream; the benchmark's is 0).

A stream item may be a ``TwoStep`` respondent (a token survey's redemption, then its report, bench/load/tokens.py):
its second request is built from the first answer and sent on the same connection as soon as that answer arrives.
The item's status and latency are the respondent's (due time to the last answer); the first step's status and
latency and the second step's latency (from its send) are kept beside them.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: Status recorded for a request without an HTTP answer (connection refused or reset, timeout).
NO_ANSWER = 0


@dataclass(frozen=True)
class TwoStep:
    """A respondent making two requests: ``first``, then ``then(body of the first answer)`` if the first answer's
    status is ``first_ok`` (otherwise that answer is the respondent's outcome)."""

    first: bytes
    then: Callable[[bytes], bytes]
    first_ok: int = 200


@dataclass
class LoadResult:
    """Per stream item (in stream order): HTTP ``status`` of its last answer (``NO_ANSWER`` on error, -1 never
    sent), ``latency`` from its due time to that answer and ``finished`` (seconds after the start); for ``TwoStep``
    items also the first step's ``first_status`` and ``first_latency`` (from the due time) and the second step's
    ``second_latency`` (from its send; -1 and NaN for one-request items). Plus the wall time of the run and a few
    non-2xx answers to show."""

    status: np.ndarray
    latency: np.ndarray
    finished: np.ndarray
    elapsed: float
    samples: list[str]
    first_status: np.ndarray
    first_latency: np.ndarray
    second_latency: np.ndarray
    cpu_seconds: dict[str, float] = field(default_factory=dict)  #: filled by the caller (``run._load``)

    @property
    def sent(self) -> np.ndarray:
        return self.status != -1

    @property
    def two_step(self) -> np.ndarray:
        """The items that were ``TwoStep`` respondents and were sent."""
        return self.first_status != -1

    @property
    def http_requests(self) -> int:
        """HTTP requests answered: the one-request items' answers, and each answered step of the ``TwoStep`` ones."""
        single = (self.first_status == -1) & (self.status > NO_ANSWER)
        return int(single.sum() + (self.first_status > NO_ANSWER).sum() + (~np.isnan(self.second_latency)).sum())


def build_requests(host: str, port: int, paths: list[str], bodies: list[bytes]) -> list[bytes]:
    """Complete HTTP/1.1 POST requests (headers and JSON body) for the pre-generated stream."""
    head = ("POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json\r\nContent-Length: {n}\r\n\r\n")
    return [head.format(path=p, host=host, port=port, n=len(b)).encode("ascii") + b
            for p, b in zip(paths, bodies, strict=True)]


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bool, bytes]:
    """(status, keep the connection open?, body) of one HTTP/1.1 response (``Content-Length`` or chunked body)."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionResetError("connection closed before the response")
    status = int(status_line.split(b" ", 2)[1])
    length, chunked, keep = 0, False, not status_line.startswith(b"HTTP/1.0")
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = value == b"chunked"
        elif name == b"connection":
            keep = value != b"close"
    if not chunked:
        return status, keep, (await reader.readexactly(length) if length else b"")
    body = b""
    while size := int((await reader.readline()).split(b";", 1)[0], 16):
        body += (await reader.readexactly(size + 2))[:-2]
    await reader.readline()  # the blank line after the last (empty) chunk
    return status, keep, body


async def _run(host: str, port: int, requests: list[bytes | TwoStep], rate: float, duration: float,
               connections: int, timeout: float, grace: float = 0.0) -> LoadResult:
    loop = asyncio.get_running_loop()
    n = len(requests) if rate <= 0 else min(len(requests), int(rate * duration))
    status = np.full(len(requests), -1, dtype=np.int16)
    latency = np.full(len(requests), np.nan)
    finished = np.full(len(requests), np.nan)
    first_status = np.full(len(requests), -1, dtype=np.int16)
    first_latency = np.full(len(requests), np.nan)
    second_latency = np.full(len(requests), np.nan)
    samples: list[str] = []
    next_index = 0
    start = loop.time() + 0.05
    stop_sending = start + duration + grace

    async def connection_loop() -> None:
        nonlocal next_index
        reader = writer = None
        while True:
            i = next_index
            if i >= n:
                break
            next_index += 1
            due = start + i / rate if rate > 0 else loop.time()
            now = loop.time()
            if due > now:
                await asyncio.sleep(due - now)
            if loop.time() >= stop_sending:
                break
            sent = due if rate > 0 else loop.time()
            status[i] = NO_ANSWER  # until an answer arrives: a cancelled request counts as sent without an answer
            item = requests[i]
            try:
                async with asyncio.timeout(timeout):
                    if writer is None:
                        reader, writer = await asyncio.open_connection(host, port)
                    if type(item) is bytes:
                        writer.write(item)
                        code, keep, body = await read_response(reader)
                    else:
                        first_status[i] = NO_ANSWER
                        writer.write(item.first)
                        code, keep, body = await read_response(reader)
                        first_status[i], first_latency[i] = code, loop.time() - sent
                        if code == item.first_ok:
                            if not keep:
                                writer.close()
                                reader, writer = await asyncio.open_connection(host, port)
                            second = loop.time()
                            writer.write(item.then(body))
                            code, keep, body = await read_response(reader)
                            second_latency[i] = loop.time() - second
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError, KeyError) as exc:
                code, keep, body = NO_ANSWER, False, repr(exc).encode()
            done = loop.time()
            status[i], latency[i], finished[i] = code, done - sent, done - start
            if code not in (200, 201) and len(samples) < 5:
                samples.append(f"{code}: {body[:200].decode(errors='replace')}")
            if not keep and writer is not None:
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    tasks = [asyncio.create_task(connection_loop()) for _ in range(connections)]
    _, pending = await asyncio.wait(tasks, timeout=max(stop_sending + timeout - loop.time(), 0.0))
    # Bounded in time: whatever is still open now is abandoned (its status stays "sent, no answer").
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    elapsed = float(np.nanmax(finished)) if np.isfinite(finished).any() else 0.0
    return LoadResult(status, latency, finished, elapsed, samples, first_status, first_latency, second_latency)


def run(host: str, port: int, requests: list[bytes | TwoStep], *, rate: float, duration: float,
        connections: int = 64, timeout: float = 10.0, grace: float = 0.0) -> LoadResult:
    """Send ``requests`` (``build_requests``, or ``TwoStep`` respondents) in order: open loop at ``rate`` per second,
    or closed loop over ``connections`` connections with ``rate`` = 0; stop sending after ``duration`` (+ ``grace``)
    seconds."""
    return asyncio.run(_run(host, port, requests, rate, duration, connections, timeout, grace))
