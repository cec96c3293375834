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
still open ``timeout`` seconds after that are abandoned as errors).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import numpy as np

#: Status recorded for a request without an HTTP answer (connection refused or reset, timeout).
NO_ANSWER = 0


@dataclass
class LoadResult:
    """Per request (in stream order): HTTP ``status`` (``NO_ANSWER`` on error, -1 never sent), ``latency`` and
    ``finished`` (seconds after the start), plus the wall time of the run and a few non-201 answers to show."""

    status: np.ndarray
    latency: np.ndarray
    finished: np.ndarray
    elapsed: float
    samples: list[str]
    cpu_seconds: dict[str, float] = field(default_factory=dict)  #: filled by the caller (``run._load``)

    @property
    def sent(self) -> np.ndarray:
        return self.status != -1


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


async def _run(host: str, port: int, requests: list[bytes], rate: float, duration: float, connections: int,
               timeout: float) -> LoadResult:
    loop = asyncio.get_running_loop()
    n = len(requests) if rate <= 0 else min(len(requests), int(rate * duration))
    status = np.full(len(requests), -1, dtype=np.int16)
    latency = np.full(len(requests), np.nan)
    finished = np.full(len(requests), np.nan)
    samples: list[str] = []
    next_index = 0
    start = loop.time() + 0.05
    stop_sending = start + duration

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
            try:
                async with asyncio.timeout(timeout):
                    if writer is None:
                        reader, writer = await asyncio.open_connection(host, port)
                    writer.write(requests[i])
                    code, keep, body = await read_response(reader)
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError) as exc:
                code, keep, body = NO_ANSWER, False, repr(exc).encode()
            done = loop.time()
            status[i], latency[i], finished[i] = code, done - sent, done - start
            if code != 201 and len(samples) < 5:
                samples.append(f"{code}: {body[:200].decode(errors='replace')}")
            if not keep and writer is not None:
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    tasks = [asyncio.create_task(connection_loop()) for _ in range(connections)]
    _, pending = await asyncio.wait(tasks, timeout=max(start + duration + timeout - loop.time(), 0.0))
    # Bounded in time: whatever is still open now is abandoned (its status stays "sent, no answer").
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    elapsed = float(np.nanmax(finished)) if np.isfinite(finished).any() else 0.0
    return LoadResult(status, latency, finished, elapsed, samples)


def run(host: str, port: int, requests: list[bytes], *, rate: float, duration: float, connections: int = 64,
        timeout: float = 10.0) -> LoadResult:
    """Send ``requests`` (``build_requests``) in order: open loop at ``rate`` per second, or closed loop over
    ``connections`` connections with ``rate`` = 0; stop sending after ``duration`` seconds."""
    return asyncio.run(_run(host, port, requests, rate, duration, connections, timeout))
