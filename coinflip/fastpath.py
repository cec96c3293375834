"""A respondent's usual POST — a report, a redemption — answered at the WSGI entry, before Django's handler.

Such a POST is a stateless JSON exchange: its view takes no authentication (so no CSRF) and reads no session, cookie,
user, language or message, and its answer (``{"status": "stored"}``, a blind signature) has nothing to translate or
frame. ``RespondentFastPath`` wraps the Django application (``coinflip.wsgi``): for a POST whose view has a
``fast_response`` (``survey_app.api.FastPathMixin``) it sends ``request_started``, builds the request, applies the
middleware that stands above the fast path in ``settings.MIDDLEWARE`` (``ABOVE``: security headers and HTTPS
redirect, the CSP header, database outages as 503, NUL bytes refused) and asks the view. The view either stores or
signs in one statement and answers, or returns ``None`` having written nothing; then the request goes to Django's
whole stack (DRF's path, with its messages in the respondent's language), with the body it already read and a mark
that the fast path was tried (``survey_app.api.FAST_PATH``). A redirect to HTTPS, a host outside ``ALLOWED_HOSTS``
and a NUL byte are also left to the whole stack, which answers them as for any other URL.

Django's handler, its signal dispatch and the middleware chain cost ≈ 0.18 ms of a link report's CPU under gunicorn
(0.77 → 0.59 ms, bench/load/README.md); what is skipped below the fast path (WhiteNoise, sessions, locale, common,
CSRF, auth, messages, frame options, axes) reads nothing such a POST carries.
"""
from __future__ import annotations

import functools
import io

from django.core import signals
from django.core.exceptions import DisallowedHost
from django.core.handlers.exception import response_for_exception
from django.core.handlers.wsgi import WSGIRequest
from django.db import InterfaceError, OperationalError
from django.middleware.security import SecurityMiddleware
from django.urls import Resolver404, resolve

from coinflip.middleware import CSPMiddleware, database_unavailable

#: The middleware above the fast path, in ``settings.MIDDLEWARE`` order (tests/security/test_fast_path.py holds the
#: settings to it). The other two — database outages, NUL bytes — are applied inline below.
ABOVE = ("django.middleware.security.SecurityMiddleware", "coinflip.middleware.CSPMiddleware",
         "coinflip.middleware.DatabaseUnavailableMiddleware", "coinflip.middleware.NulByteMiddleware")
PREFIX = "/api/"


def _unreachable(request):  # the middleware instances below are only asked for their request/response hooks
    raise AssertionError("the fast path calls no next handler")


@functools.lru_cache(maxsize=4096)
def fast_view(path: str):
    """(``fast_response``, URL kwargs) of the view at ``path`` when it has one, else ``None`` (cached per path)."""
    try:
        match = resolve(path)
    except Resolver404:
        return None
    fast = getattr(getattr(match.func, "view_class", None), "fast_response", None)
    return (fast, match.kwargs) if fast is not None else None


class RespondentFastPath:
    """WSGI application: the fast path, in front of Django's ``application`` (module docstring)."""

    def __init__(self, application):
        self.application = application
        self.security = SecurityMiddleware(_unreachable)
        self.csp = CSPMiddleware(_unreachable)

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "POST" and path.startswith(PREFIX) and "\x00" not in path:
            view = fast_view(path)
            if view is not None:
                response = self.answer(environ, *view)
                if response is not None:
                    start_response(f"{response.status_code} {response.reason_phrase}", list(response.items()))
                    return response  # its close() sends request_finished, as Django's handler's responses do
        return self.application(environ, start_response)

    def answer(self, environ, fast, kwargs):
        """The fast path's response, or ``None`` for the whole stack (then ``environ`` carries the body read)."""
        signals.request_started.send(sender=self.__class__, environ=environ)
        request = WSGIRequest(environ)
        if "\x00" in request.META.get("QUERY_STRING", "") or self.security.process_request(request) is not None:
            return None
        try:
            request.get_host()
        except DisallowedHost:
            return None
        self.csp.process_request(request)
        try:
            response = fast(request, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            response = database_unavailable(request, exc)
        except Exception as exc:  # noqa: BLE001 — as Django's handler: logged, answered 500
            response = response_for_exception(request, exc)
        if response is None:
            if hasattr(request, "_body"):
                environ["wsgi.input"] = io.BytesIO(request._body)
            return None
        return self.security.process_response(request, self.csp.process_response(request, response))
