"""A database outage answers 503 Service Unavailable with ``Retry-After``, never a 500 with a traceback.

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

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = "The service is temporarily unavailable (database unreachable); nothing was stored. Please try again shortly."


def wants_json(request) -> bool:
    return request.path.startswith("/api/") or "json" in request.headers.get("Accept", "")


def unavailable_response(request) -> HttpResponse:
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
        logger.warning("database unavailable during %s %s: %s", request.method, request.path, exception)
        return unavailable_response(request)
