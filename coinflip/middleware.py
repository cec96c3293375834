"""Middleware of the project: the container health check (``HealthCheckMiddleware``), a database outage as a 503
(``DatabaseUnavailableMiddleware``), NUL bytes refused (``NulByteMiddleware``).

A database outage answers 503 Service Unavailable with ``Retry-After``, never a 500 with a traceback.

When PostgreSQL restarts, is unreachable or drops a connection mid-request, Django raises ``OperationalError`` (or
``InterfaceError`` for a connection already closed). ``DatabaseUnavailableMiddleware`` turns those, raised by any
view or while rendering its response, into a 503 the client can act on: JSON ``{"detail", "code":
"database_unavailable"}`` for the API (and any client that accepts JSON), a short plain page otherwise. Nothing is
half-written: the view's transaction (a report's INSERT with its token's consumption) rolled back when the error
was raised, and Django closes the broken connection at the end of the request, so the next request reconnects.

Transient errors PostgreSQL reports as operational (serialization failures, deadlocks, statement timeouts, "too
many clients") get the same answer: the request did nothing, and trying again later is the right move.
"""
from __future__ import annotations

import logging
import threading

from django.db import InterfaceError, OperationalError, connection
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = "The service is temporarily unavailable (database unreachable); nothing was stored. Please try again shortly."


def wants_json(request) -> bool:
    return request.path.startswith("/api/") or "json" in request.headers.get("Accept", "")


def unavailable_response(request) -> HttpResponse:
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"detail": MESSAGE, "code": "database_unavailable"}, status=503)
    else:
        response = HttpResponse(f"<!doctype html><title>Unavailable</title><p>{MESSAGE}</p>", status=503,
                                content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        return database_unavailable(request, exception)


def database_unavailable(request, exception) -> HttpResponse:
    """The 503 for a database error raised while answering ``request`` (logged without the client's address)."""
    logger.warning("database unavailable during %s %s: %s", request.method, request.path, exception)
    return unavailable_response(request)


#: Seconds the health check waits for the database: a paused or unreachable PostgreSQL makes it answer 503 within
#: this time, never hold it or its request thread longer. Short, because that thread is one of a worker's few (four in
#: compose): a healthy PostgreSQL answers ``SELECT 1`` in milliseconds, and a real outage shows in the next checks.
HEALTH_TIMEOUT = 0.5
_probing = threading.Lock()  # held while a probe waits on the database: at most one per process at any time


def _probe(answer: list) -> None:
    """``SELECT 1`` on this thread's own connection, closed afterwards; appends True to ``answer`` if it answered."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            if cursor.fetchone() == (1,):
                answer.append(True)
    except Exception:  # noqa: BLE001, S110 — any failure means "not healthy"; the details go to no one
        pass
    finally:
        connection.close()
        _probing.release()


def database_answers() -> bool:
    """Whether PostgreSQL (or the embedded database) answers ``SELECT 1`` within ``HEALTH_TIMEOUT``, asked from a
    thread of its own (with its own connection) so that the check never waits longer; while an earlier probe still
    waits (a paused database), none other starts: False at once."""
    if not _probing.acquire(blocking=False):
        return False
    answer: list = []
    probe = threading.Thread(target=_probe, args=(answer,), name="healthz-probe", daemon=True)
    probe.start()
    probe.join(HEALTH_TIMEOUT)
    return bool(answer)


class HealthCheckMiddleware:
    """``GET``/``HEAD /healthz``: 200 ``ok`` when the application is loaded and the database answers ``SELECT 1``
    within ``HEALTH_TIMEOUT`` seconds, 503 otherwise; nothing else (no version, no error text). First in
    ``settings.MIDDLEWARE``, so that a container health check on ``http://127.0.0.1:8000/healthz`` is answered whatever
    ``ALLOWED_HOSTS`` and the HTTPS redirect say (no host is read, no session opened)."""

    PATH = "/healthz"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info != self.PATH or request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        healthy = database_answers()
        body = b"ok\n" if healthy else b"unavailable\n"
        response = HttpResponse(body, status=200 if healthy else 503, content_type="text/plain; charset=utf-8")
        response["Content-Length"] = str(len(body))
        response["Cache-Control"] = "no-store"
        response["X-Content-Type-Options"] = "nosniff"
        return response


def has_nul(request) -> bool:
    """A NUL byte in the path, the decoded query string or a decoded form body (``NulByteMiddleware``)."""
    form = request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded",
                                                                  "multipart/form-data")
    fields = [request.GET] + ([request.POST] if form else [])
    return "\x00" in request.path or any("\x00" in k or any("\x00" in v for v in d.getlist(k))
                                         for d in fields for k in d)


class NulByteMiddleware:
    """400 for a NUL byte anywhere in the path, the query string or a form body: no database can store one
    (PostgreSQL refuses it in text), no honest client sends one, and it must never reach a query as a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if has_nul(request):
            message = "Bad request: NUL bytes are not allowed in URLs or form fields."
            if wants_json(request):
                return JsonResponse({"detail": message}, status=400)
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
