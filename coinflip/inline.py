"""A respondent's usual POST served in ``BufferingThreadWorker``'s event loop, without gunicorn's per-request
machinery (issue 14 item 7; bench/load/README.md, "Fourth pass").

Once the worker has buffered a request whole, gunicorn hands it to a thread, which parses it again (``Request``),
builds the environ (``wsgi.create``) and writes the answer through ``Response``: a link report cost 0.92–1.01 ms
of a worker's CPU that way, against 0.57–0.62 answered here, mostly for the hand-off. A request that is plainly simple —
``POST`` of an exact path with a ``Content-Length`` body, HTTP/1.1, only well-formed header fields, none of those
gunicorn treats specially — is instead read here (``simple_post``), given gunicorn's environ (``environ``) and asked
of the application's fast path alone (``coinflip.fastpath.RespondentFastPath.fast_only``), in the event loop; its
answer is written as gunicorn's ``Response`` would (``Answer.head``, headers checked as gunicorn checks them). A
request the fast path declines, and anything else, goes to a thread as before, its buffered bytes untouched. What is
read is only what ``Framing`` already delimited, so the two framings cannot disagree about where a request ends.

Refused here (left to gunicorn): any other method or protocol version; a request target that is not a plain path
(``%``, ``?``, ``;``, ``#`` and non-ASCII characters included); a header field whose name is not a token or contains
``_`` (``SCRIPT_NAME`` included), or whose value holds a control character; ``Transfer-Encoding``, ``Expect``; other
than exactly one ``Content-Length`` equal to the body's length; conflicting scheme headers; more header fields or
longer lines than gunicorn's limits; no ``Host``. The scheme is gunicorn's: ``https`` when a peer in
``forwarded_allow_ips`` sends a ``secure_scheme_headers`` header with its secure value.
"""
from __future__ import annotations

import io
import re
import time
from dataclasses import dataclass

from gunicorn import SERVER, SERVER_SOFTWARE  # the Server header and the environ's SERVER_SOFTWARE, as gunicorn's
from gunicorn.http.message import DEFAULT_MAX_HEADERFIELD_SIZE, MAX_HEADERS, MAX_REQUEST_LINE, TOKEN_RE
from gunicorn.http.wsgi import HEADER_VALUE_RE, FileWrapper, WSGIErrorsWrapper
from gunicorn.util import http_date as gunicorn_http_date
from gunicorn.util import is_hoppish

TOKEN = re.compile(rb"[!#$%&'*+.^`|~0-9A-Za-z-]+\Z")  # RFC 9110 tchar, without "_" (gunicorn drops such headers)
BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")  # CTLs except HTAB
PATH = re.compile(rb"/[A-Za-z0-9._~!$&'()*+,=:@/-]*\Z")  # pchar without "%" or ";": PATH_INFO is the target itself
REFUSED = frozenset({"TRANSFER-ENCODING", "EXPECT"})


@dataclass
class SimplePost:
    """A request ``simple_post`` accepted: its path, header fields (names upper-cased, gunicorn's form: what its
    access logger reads as ``req.headers``), body, and the scheme gunicorn would give it."""

    path: str
    headers: list[tuple[str, str]]
    body: bytes
    close: bool  # "Connection: close" was asked for
    scheme: str = "http"


def limits(cfg) -> tuple[int, int, int]:
    """gunicorn's effective limits (request line, header field, number of fields), clamped as its ``Request`` and
    ``Message`` clamp them; 0 means no limit for the first two."""
    line = cfg.limit_request_line
    line = MAX_REQUEST_LINE if line < 0 or line >= MAX_REQUEST_LINE else line
    field = cfg.limit_request_field_size
    field = DEFAULT_MAX_HEADERFIELD_SIZE if field < 0 else field
    fields = cfg.limit_request_fields
    fields = MAX_HEADERS if fields <= 0 or fields > MAX_HEADERS else fields
    return line, field, fields


def simple_post(data: bytes, body_start: int, client, cfg) -> SimplePost | None:
    """The request in ``data`` (exactly one, headers ending at ``body_start``) if it is a simple POST (module
    docstring), else ``None``. ``client`` is the peer's address: gunicorn trusts the scheme headers
    (``secure_scheme_headers``) only from ``forwarded_allow_ips``."""
    line_limit, field_limit, fields_limit = limits(cfg)
    head = data[:body_start - 4]
    line_end = head.find(b"\r\n")
    line = head if line_end < 0 else head[:line_end]
    if len(line) > line_limit > 0 or not line.startswith(b"POST ") or not line.endswith(b" HTTP/1.1"):
        return None
    target = line[5:-9]
    if not PATH.match(target):
        return None
    trusted = "*" in cfg.forwarded_allow_ips or client[0] in cfg.forwarded_allow_ips
    scheme_headers = cfg.secure_scheme_headers if trusted else {}
    headers: list[tuple[str, str]] = []
    scheme, close, host, lengths = None, False, False, []
    for field in (head[line_end + 2:].split(b"\r\n") if line_end >= 0 else []):
        name, colon, value = field.partition(b":")
        if not colon or not TOKEN.match(name) or BAD_VALUE.search(value) or len(field) + 2 > field_limit > 0:
            return None
        upper = name.decode("ascii").upper()
        if upper in REFUSED:
            return None
        text = value.strip(b" \t").decode("latin-1")
        if upper in scheme_headers:  # gunicorn.http.message.Message.parse_headers
            secure = "https" if text == scheme_headers[upper] else "http"
            if scheme is not None and secure != scheme:
                return None  # conflicting scheme headers: gunicorn answers 400
            scheme = secure
        elif upper == "CONNECTION":
            close = close or "close" in (token.strip().lower() for token in text.split(","))
        elif upper == "CONTENT-LENGTH":
            lengths.append(text)
        host = host or upper == "HOST"
        headers.append((upper, text))
    body = data[body_start:]
    if not host or len(headers) > fields_limit or lengths != [str(len(body))]:
        return None
    return SimplePost(target.decode("ascii"), headers, body, close, scheme or "http")


def environ(request: SimplePost, sock, client, server, cfg) -> dict:
    """gunicorn's environ (``gunicorn.http.wsgi.create``) for a simple POST."""
    env = {
        "wsgi.errors": WSGIErrorsWrapper(cfg), "wsgi.version": (1, 0), "wsgi.multithread": True,
        "wsgi.multiprocess": cfg.workers > 1, "wsgi.run_once": False, "wsgi.file_wrapper": FileWrapper,
        "wsgi.input_terminated": True, "SERVER_SOFTWARE": SERVER_SOFTWARE, "wsgi.input": io.BytesIO(request.body),
        "gunicorn.socket": sock, "REQUEST_METHOD": "POST", "QUERY_STRING": "", "RAW_URI": request.path,
        "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": request.scheme, "PATH_INFO": request.path, "SCRIPT_NAME": "",
    }
    for name, value in request.headers:
        if name == "CONTENT-TYPE":
            env["CONTENT_TYPE"] = value
            continue
        if name == "CONTENT-LENGTH":
            env["CONTENT_LENGTH"] = value
            continue
        key = "HTTP_" + name.replace("-", "_")
        env[key] = f"{env[key]},{value}" if key in env else value
    env["REMOTE_ADDR"], env["REMOTE_PORT"] = client[0], str(client[1])
    env["SERVER_NAME"], env["SERVER_PORT"] = server[0], str(server[1])
    return env


_date: tuple[int, str] = (0, "")


def http_date() -> str:
    """The ``Date`` header's value, formatted once per second."""
    global _date
    now = int(time.time())
    if _date[0] != now:
        _date = (now, gunicorn_http_date(now))
    return _date[1]


#: gunicorn's answer to an application error (gunicorn.workers.base.Worker.handle_error's, without its details).
ERROR_BODY = (b"<html><head><title>Internal Server Error</title></head><body><h1><p>Internal Server Error</p></h1>"
              b"</body></html>")


class Answer:
    """What the application answered, in the shape gunicorn's access logger reads (``status``, ``headers``,
    ``sent``)."""

    def __init__(self):
        self.status: str | None = None
        self.headers: list[tuple[str, str]] = []
        self.sent = 0

    def start_response(self, status, headers, exc_info=None):
        if exc_info is not None and self.status is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        # hop-by-hop headers are the server's to set: dropped, as gunicorn's Response drops them
        self.status, self.headers = status, [(n, v) for n, v in headers if not is_hoppish(n)]
        return self._write_refused

    @staticmethod
    def _write_refused(data):  # the WSGI write() callable: the fast path never uses it
        raise RuntimeError("write() is not supported here")

    def head(self, body: bytes, close: bool) -> bytes:
        """The status line and headers, checked as gunicorn's ``Response.process_headers`` checks them, with
        ``Content-Length`` when the application gave none; ``ValueError`` for a header gunicorn would refuse or a
        ``Content-Length`` other than the body's."""
        lines = [f"HTTP/1.1 {self.status}\r\nServer: {SERVER}\r\nDate: {http_date()}\r\n"
                 f"Connection: {'close' if close else 'keep-alive'}\r\n"]
        length = None
        for name, value in self.headers:
            if not (isinstance(name, str) and isinstance(value, str) and TOKEN_RE.fullmatch(name)
                    and HEADER_VALUE_RE.fullmatch(value)):
                raise ValueError(f"invalid response header {name!r}")
            if name.lower() == "content-length":
                length = value.strip(" \t")
            lines.append(f"{name}: {value}\r\n")
        if length is None:
            lines.append(f"Content-Length: {len(body)}\r\n")
        elif length != str(len(body)):
            raise ValueError(f"Content-Length {length} of a {len(body)}-byte body")
        lines.append("\r\n")
        return "".join(lines).encode("latin-1")
