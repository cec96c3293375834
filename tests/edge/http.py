"""Small HTTP clients of the edge tests: one request on a fresh connection, and raw bytes on one socket."""
from __future__ import annotations

import contextlib
import http.client
import re
import socket
import time


def request(port: int, method: str, path: str, body: bytes | None = None, timeout: float = 30,
            headers: dict | None = None) -> tuple[int, float, bytes]:
    """(status, seconds, body) of one request on a fresh connection; status 0 when no answer came in time."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body, {"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        data = response.read()
        return response.status, time.monotonic() - started, data
    except (OSError, http.client.HTTPException):
        return 0, time.monotonic() - started, b""
    finally:
        connection.close()


def raw(port: int, data: bytes, timeout: float = 10.0, quiet: float = 1.0) -> bytes:
    """Send ``data`` on one connection and read until the server closes it, ``quiet`` seconds pass without a byte
    after the first, or ``timeout`` seconds in all."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(data)
        chunks, deadline = [], time.monotonic() + timeout
        with contextlib.suppress(OSError):
            while (left := deadline - time.monotonic()) > 0:
                sock.settimeout(min(left, quiet) if chunks else left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks)


def statuses(answer: bytes) -> list[int]:
    """The status codes of the HTTP/1.x responses in ``answer``, in order (their bodies here hold no status line)."""
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] (\d{3}) ", answer)]


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[max(int(0.99 * len(ordered)) - 1, 0)]
