"""Middleware of the project: a database outage as a 503 (``DatabaseUnavailableMiddleware``), NUL bytes refused
(``NulByteMiddleware``), django-csp's policy header built once (``CSPMiddleware``).

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

from csp.constants import HEADER as CSP_HEADER
from csp.constants import HEADER_REPORT_ONLY as CSP_HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
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
        return database_unavailable(request, exception)


def database_unavailable(request, exception) -> HttpResponse:
    """The 503 for a database error raised while answering ``request`` (logged without the client's address)."""
    logger.warning("database unavailable during %s %s: %s", request.method, request.path, exception)
    return unavailable_response(request)


def has_nul(request) -> bool:
    """A NUL byte in the path, the decoded query string or a decoded form body (``NulByteMiddleware``)."""
    form = request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded",
                                                                  "multipart/form-data")
    fields = [request.GET] + ([request.POST] if form else [])
    return "\x00" in request.path or any("\x00" in k or any("\x00" in v for v in d.getlist(k))
                                         for d in fields for k in d)


class NulByteMiddleware:
    """400 for a NUL byte anywhere in the path, the query string or a form body: no database can store one
    (PostgreSQL refuses it in text), no honest client sends one, and it must never reach a query as a 500 (issue 14)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if has_nul(request):
            message = "Bad request: NUL bytes are not allowed in URLs or form fields."
            if wants_json(request):
                return JsonResponse({"detail": message}, status=400)
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware, with the settings' policy built once instead of on every response.

    django-csp builds the header from the settings on every response (``csp.utils.build_policy``: a copy of every
    directive, and of the per-response parts through ``dataclasses.asdict``): 0.11 ms, 7 % of a link report POST's
    CPU in-process (``python -m bench.load.profile``, 2026-11-24). A response without per-response parts (no
    ``_csp_config`` / ``_csp_update`` / ``_csp_replace``, report-only ones included) whose request drew no nonce gets
    exactly the header django-csp would build, kept per settings state (``setting_changed`` clears it); any other goes
    through django-csp. The same header on every response, JSON ones included (tests/deploy/test_csp.py)."""

    #: Response attributes that make a policy per response (django-csp's decorators set them).
    PER_RESPONSE = ("_csp_config", "_csp_update", "_csp_replace", "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")
    #: (report_only) → the settings' header; cleared when a setting changes (tests' override_settings).
    _policies: dict[bool, str] = {}

    @classmethod
    def settings_policy(cls, report_only: bool) -> str:
        policy = cls._policies.get(report_only)
        if policy is None:
            policy = cls._policies[report_only] = build_policy(report_only=report_only)
        return policy

    def process_response(self, request, response):
        if (getattr(request, "_csp_nonce", None) is not None
                or any(getattr(response, name, None) is not None for name in self.PER_RESPONSE)):
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:
            return response
        for report_only, header, exempt, setting in (
                (False, CSP_HEADER, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
                (True, CSP_HEADER_REPORT_ONLY, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY")):
            policy = self.settings_policy(report_only)
            if policy and header not in response and getattr(response, exempt, False) is False:
                prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES", None) or ()
                if not request.path_info.startswith(tuple(prefixes)):
                    response[header] = policy
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


@receiver(setting_changed)
def _forget_csp_policies(**kwargs) -> None:
    CSPMiddleware._policies.clear()
