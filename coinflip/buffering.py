"""gunicorn's threaded worker with request buffering: a slow client never holds a thread (issue 14).

gunicorn's ``gthread`` worker hands a connection to a thread as soon as its first byte arrives, and that thread then
reads the headers and the body with blocking reads and no timeout: ten clients sending one byte per second held all
eight threads of the compose defaults (2 workers × 4 threads) and kept a normal report POST waiting 28 s.

``BufferingThreadWorker`` reads each request in the worker's event loop instead — non-blocking, as nginx or Caddy
buffer a body — and gives it to a thread only once it is complete (headers plus the ``Content-Length`` bytes, or
every chunk of a chunked body). Bounds (environment variables, documented in docker/README.md):

- ``GUNICORN_REQUEST_READ_TIMEOUT`` (seconds, default 20): a request must arrive whole within this time of its first
  byte (of the connection's accept for a new one); otherwise the connection is answered 408 and closed.
- ``GUNICORN_REQUEST_BUFFER_BYTES`` (default 1 MiB, above ``MAX_REPORT_BYTES``): a larger body (an admin upload) is
  read by its thread from the socket, each read bounded by what is left of the read timeout — such a client holds a
  thread for at most that time. Headers longer than 64 KiB go to gunicorn's parser, which refuses them (400).
- Writes: a response the client does not read for gunicorn's ``timeout`` seconds is abandoned.

Expect: 100-continue is answered here (gunicorn's own 100 is then not sent twice). A connection whose buffered bytes
do not end exactly where gunicorn's parser ends the request (pipelined requests, or framing the parser rejects) is
closed after that request, so the two framings can never disagree about where a request starts. TLS is not buffered
(gunicorn terminates no TLS here: the proxy does); with ``certfile`` set the worker behaves as ``gthread``.
"""
from __future__ import annotations

import errno
import os
import selectors
import socket
import time
from datetime import datetime
from functools import partial

from gunicorn.workers.gthread import TConn, ThreadWorker

from coinflip import inline  # gunicorn only: loads no Django

READ_TIMEOUT = float(os.environ.get("GUNICORN_REQUEST_READ_TIMEOUT", "20"))
BUFFER_BYTES = int(os.environ.get("GUNICORN_REQUEST_BUFFER_BYTES", str(1 << 20)))
#: Simple POSTs with a fast path served in the event loop (``coinflip.inline``); "0" sends them to threads as well.
INLINE = os.environ.get("GUNICORN_INLINE_FAST_PATH", "1") != "0"
HEADER_BYTES = 64 * 1024
RECV_BYTES = 64 * 1024
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

INCOMPLETE = None  # Framing.end(): more bytes are needed
STREAM = -1  # Framing.end(): too large to buffer, the thread reads the rest from the socket
MAX_CHUNKS = 4096  # more chunks than this: streamed (bounds the event loop's work per request)


class Framing:
    """Where the first request of a growing buffer ends (``end``), scanning each byte once.

    Framing this scanner finds malformed (a bad ``Content-Length``, a length and chunked together, a bad chunk size)
    ends the request at once: gunicorn's parser then reads it and answers 400.
    """

    def __init__(self, limit: int = BUFFER_BYTES):
        self.limit = limit
        self.searched = 0  # the header end was not found before this offset
        self.body = None  # offset of the body once the headers are complete
        self.length = None  # Content-Length, or None for chunked
        self.expect_continue = False
        self.position = 0  # chunked: offset of the next chunk-size line
        self.total = self.chunks = 0

    def end(self, buffer: bytearray | bytes) -> int | None:
        if self.body is None:
            found = buffer.find(b"\r\n\r\n", max(0, self.searched - 3))
            if found < 0:
                self.searched = len(buffer)
                return STREAM if len(buffer) > HEADER_BYTES else INCOMPLETE
            malformed = self._headers(bytes(buffer[:found]))
            self.body = self.position = found + 4
            if malformed:
                return self.body
        if self.length is not None:
            if self.length > self.limit:
                return STREAM
            return self.body + self.length if len(buffer) >= self.body + self.length else INCOMPLETE
        return self._chunked(buffer)

    def _headers(self, head: bytes) -> bool:
        """Read the framing headers; True if they are malformed."""
        lengths, chunked = [], False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if name == b"content-length":
                lengths.append(value)
            elif name == b"transfer-encoding":
                chunked = True
            elif name == b"expect":
                self.expect_continue = value.lower() == b"100-continue"
        if chunked:
            return bool(lengths)
        if len(lengths) > 1 or (lengths and not (lengths[0].isdigit() and len(lengths[0]) <= 18)):
            return True  # bytes.isdigit() is ASCII-only
        self.length = int(lengths[0]) if lengths else 0
        return False

    def _chunked(self, buffer) -> int | None:
        while True:
            eol = buffer.find(b"\r\n", self.position)
            if eol < 0:
                return len(buffer) if len(buffer) - self.position > 1024 else INCOMPLETE
            size = bytes(buffer[self.position:eol]).split(b";", 1)[0].strip()
            if not size or len(size) > 16 or size.strip(b"0123456789abcdefABCDEF"):
                return len(buffer)  # malformed: the parser refuses it
            if int(size, 16) == 0:
                position = eol + 2
                while True:  # trailer fields, up to the empty line
                    eol = buffer.find(b"\r\n", position)
                    if eol < 0:
                        return INCOMPLETE
                    if eol == position:
                        return eol + 2
                    position = eol + 2
            self.total += int(size, 16)
            self.chunks += 1
            if self.total > self.limit or self.chunks > MAX_CHUNKS:
                return STREAM
            if len(buffer) < eol + 2 + int(size, 16) + 2:
                return INCOMPLETE
            self.position = eol + 2 + int(size, 16) + 2


def request_end(buffer: bytes, limit: int = BUFFER_BYTES) -> int | None:
    """``Framing(limit).end(buffer)`` for a buffer seen at once."""
    return Framing(limit).end(buffer)


class BufferedSocket:
    """A client socket whose parser first reads the bytes the event loop buffered (``pending``)."""

    def __init__(self, sock: socket.socket, send_timeout: float | None):
        self._sock = sock
        self.pending = bytearray()
        self.streaming = False
        self.deadline = 0.0
        self.continue_sent = False
        self.framing = Framing()
        self.send_timeout = send_timeout

    def recv(self, size: int, flags: int = 0) -> bytes:
        if self.pending:
            data = bytes(self.pending[:size])
            del self.pending[:size]
            return data
        if not self.streaming:
            return b""  # the request was buffered whole: reading further would be the next one
        self._sock.settimeout(max(0.01, self.deadline - time.monotonic()))
        try:
            return self._sock.recv(size, flags)
        finally:
            self._sock.settimeout(self.send_timeout)

    def send(self, data, flags: int = 0) -> int:
        if self.continue_sent and bytes(data) == CONTINUE:
            self.continue_sent = False  # the event loop already answered Expect: 100-continue
            return len(data)
        return self._sock.send(data, flags)

    def __getattr__(self, name):
        return getattr(self._sock, name)


class BufferingThreadWorker(ThreadWorker):
    """``gthread`` with the request read in the event loop (see the module docstring)."""

    def init_process(self):
        self._reading: dict[TConn, None] = {}  # connections being read, oldest deadline first
        super().init_process()

    def accept(self, server, listener):
        if self.cfg.is_ssl:
            return super().accept(server, listener)
        try:
            sock, client = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        conn = TConn(self.cfg, BufferedSocket(sock, self.cfg.timeout or None), client, server)
        self.nr_conns += 1
        self._start_reading(conn)
        with self._lock:
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_client_socket_readable, conn))

    def _start_reading(self, conn):
        conn.sock.deadline = time.monotonic() + READ_TIMEOUT
        conn.sock.streaming = conn.sock.continue_sent = False
        conn.sock.framing = Framing()
        self._reading[conn] = None

    def on_client_socket_readable(self, conn, client):
        if not isinstance(conn.sock, BufferedSocket):
            return super().on_client_socket_readable(conn, client)
        if conn not in self._reading:  # a kept-alive connection: its next request begins
            with self._lock:
                try:
                    self._keep.remove(conn)
                except ValueError:
                    return  # closed by murder_keepalived meanwhile
            self._start_reading(conn)
        buffered = conn.sock
        try:
            data = buffered._sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(conn)
            return
        buffered.pending += data
        end = buffered.framing.end(buffered.pending)
        if end is INCOMPLETE:
            if buffered.framing.expect_continue and not buffered.continue_sent:
                try:
                    buffered._sock.send(CONTINUE)
                    buffered.continue_sent = True
                except OSError:
                    pass
            return
        del self._reading[conn]
        if end == len(buffered.pending) and self._serve_inline(conn):
            return
        with self._lock:
            self.poller.unregister(conn.sock)
        buffered.streaming = end == STREAM
        if not buffered.streaming and end < len(buffered.pending):
            conn.extra = True  # pipelined or misframed bytes: close after this request
            del buffered.pending[end:]
        self.enqueue_req(conn)

    def _serve_inline(self, conn) -> bool:
        """Answer a simple POST by the application's fast path here, in the event loop (``coinflip.inline``); False,
        with nothing read or written, if it is not one or the fast path declines it (a thread then serves it as any
        other request). The connection stays registered for reading: a kept-alive one waits in ``_keep`` as
        gthread's do. An answer the socket does not take at once is finished by a thread."""
        answered = self._lean_answer(conn)
        if answered is None:
            return False
        data, close = answered
        try:
            sent = conn.sock._sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._drop(conn)
            return True
        if sent < len(data):  # the client's window is full: a thread waits for it, within the send timeout
            with self._lock:
                self.poller.unregister(conn.sock)
            future = self.tpool.submit(self._send_rest, conn, data[sent:], close)
            self._wrap_future(future, conn)
        elif close:
            self._drop(conn)
        else:
            conn.set_timeout()
            with self._lock:
                self._keep.append(conn)
        return True

    def _lean_answer(self, conn) -> tuple[bytes, bool] | None:
        """(the answer's bytes, close the connection after it) for a simple POST the fast path answers, the access
        logged; ``None``, with nothing read, written or counted, otherwise."""
        fast_only = getattr(self.wsgi, "fast_only", None)
        buffered = conn.sock
        if fast_only is None or not self._inline_allowed() or not (
                isinstance(conn.client, tuple) and isinstance(conn.server, tuple)):
            return None  # an application without a fast path, hooks or SCRIPT_NAME to honour, a UNIX socket
        request = inline.simple_post(bytes(buffered.pending), buffered.framing.body, conn.client, self.cfg)
        if request is None:
            return None
        environ = inline.environ(request, buffered, conn.client, conn.server, self.cfg)
        answer = inline.Answer()
        started = datetime.now()
        failed = False
        try:
            result = fast_only(environ, answer.start_response)
        except Exception:  # noqa: BLE001 — a defect (the fast path answers its own errors): 500, as gunicorn's
            self.log.exception("Error handling request %s", request.path)
            result, failed = None, True
        if result is None and not failed:
            return None  # declined, nothing written: gunicorn parses the same buffered bytes in a thread
        self.log.debug("Serving %s in the event loop", request.path)
        buffered.pending.clear()
        self.nr += 1
        if self.nr >= self.max_requests and self.alive:
            self.log.info("Autorestarting worker after current request.")
            self.alive = False
        close = request.close or not self.alive or not self.cfg.keepalive or len(self._keep) >= self.max_keepalived
        try:
            if failed:
                raise RuntimeError("the fast path raised")
            try:
                body = b"".join(result)
            finally:
                if hasattr(result, "close"):
                    result.close()
            data = answer.head(body, close) + body
        except Exception:  # noqa: BLE001 — as gunicorn's handle_error: logged, answered 500, connection closed
            if not failed:
                self.log.exception("Error handling request %s", request.path)
            answer, body, close = inline.Answer(), inline.ERROR_BODY, True
            answer.start_response("500 Internal Server Error", [("Content-Type", "text/html")])
            data = answer.head(body, close) + body
        answer.sent = len(body)
        try:
            self.log.access(answer, request, environ, datetime.now() - started)
        except Exception:  # noqa: BLE001 — as gunicorn's handle_request: a broken access log never drops the answer
            self.log.exception("Failed to log the access of %s", request.path)
        return data, close

    def _inline_allowed(self) -> bool:
        """Inline answers keep gunicorn's behaviour only without hooks around requests, without a ``SCRIPT_NAME``
        prefix and without TLS: otherwise every request goes to a thread (``GUNICORN_INLINE_FAST_PATH``)."""
        allowed = getattr(self, "_inline", None)
        if allowed is None:
            settings = self.cfg.settings
            allowed = self._inline = (
                INLINE and not self.cfg.is_ssl and not os.environ.get("SCRIPT_NAME")
                and all(settings[hook].value is type(settings[hook]).default
                        for hook in ("pre_request", "post_request")))
        return allowed

    @staticmethod
    def _send_rest(conn, data: bytes, close: bool):
        conn.sock.settimeout(conn.sock.send_timeout)
        conn.sock._sock.sendall(data)
        return not close, conn

    def enqueue_req(self, conn):
        if isinstance(conn.sock, BufferedSocket):
            conn.init()
            conn.sock.settimeout(conn.sock.send_timeout)
            future = self.tpool.submit(self.handle, conn)
            self._wrap_future(future, conn)
        else:
            super().enqueue_req(conn)

    def handle(self, conn):
        keepalive, conn = super().handle(conn)
        buffered = conn.sock
        if keepalive and isinstance(buffered, BufferedSocket):
            if buffered.streaming or getattr(conn, "extra", False):
                return False, conn
            message = conn.parser.mesg
            try:
                while message is not None and message.body.read(8192):  # an unread body, from memory
                    pass
            except Exception:  # noqa: BLE001 — a body the parser refuses: close the connection
                return False, conn
            if buffered.pending:
                return False, conn
        return keepalive, conn

    def murder_keepalived(self):
        super().murder_keepalived()
        now = time.monotonic()
        for conn in list(self._reading):
            if conn.sock.deadline > now:
                break  # the rest started later
            try:
                conn.sock._sock.send(TIMED_OUT)
            except OSError:
                pass
            self._drop(conn)
        if self.nr_conns >= self.worker_connections and not self.futures:
            time.sleep(0.05)  # full of connections still being read: gthread's loop would spin until they expire

    def _drop(self, conn):
        self._reading.pop(conn, None)
        with self._lock:
            try:
                self.poller.unregister(conn.sock)
            except (KeyError, ValueError, OSError):
                pass
        self.nr_conns -= 1
        conn.close()
