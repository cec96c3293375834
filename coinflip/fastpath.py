"""A respondent's usual POST — a report, a redemption — answered at the WSGI entry, before Django's handler.

Such a POST is a stateless JSON exchange: its view takes no authentication (so no CSRF) and reads no session, cookie,
user, language or message, and its answer (``{"status": "stored"}``, a blind signature) has nothing to translate or
frame. ``RespondentFastPath`` wraps the Django application (``coinflip.wsgi``): for a POST whose view has a
``fast_response`` (``survey_app.api.FastPathMixin``) it sends ``request_started``, builds the request, applies the
middleware that stands above the fast path in ``settings.MIDDLEWARE`` (``ABOVE``: security headers and HTTPS
redirect, the CSP header, database outages as 503, NUL bytes) and asks the view. The view either stores or signs in
one statement and answers, or returns ``None`` having written nothing; then the request goes to Django's whole stack
(DRF's path, with its messages in the respondent's language), with the body it already read and a mark that the fast
path was tried (``survey_app.api.FAST_PATH``). A redirect to HTTPS, a host outside ``ALLOWED_HOSTS`` and a NUL byte
(``middleware.has_nul``: path, decoded query) are also left to the whole stack, which answers them as for any URL.

Django's handler and its middleware chain cost ≈ 0.1 ms of a link report's CPU under gunicorn (0.76–0.79 →
0.66–0.69 ms, bench/load/README.md); what is skipped below the fast path (WhiteNoise, sessions, locale, common,
CSRF, auth, messages, frame options, axes) reads nothing such a POST carries.
"""
from __future__ import annotations

import functools
import io

from django.core import signals
from django.core.exceptions import DisallowedHost
from django.core.handlers.exception import response_for_exception
from django.core.handlers.wsgi import WSGIRequest, get_script_name
from django.db import InterfaceError, OperationalError
from django.middleware.security import SecurityMiddleware
from django.urls import Resolver404, resolve, set_script_prefix

from coinflip.middleware import CSPMiddleware, database_unavailable, has_nul

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
        answered = self.fast_only(environ, start_response)
        return answered if answered is not None else self.application(environ, start_response)

    def fast_only(self, environ, start_response):
        """The fast path's answer (a WSGI iterable, ``start_response`` called), or ``None`` having called nothing:
        the request is then the whole stack's, with the body it carries (``BufferingThreadWorker`` serves only this
        in its event loop, ``coinflip.inline``)."""
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "POST" and path.startswith(PREFIX) and "\x00" not in path:
            view = fast_view(path)
            if view is not None:
                response = self.answer(environ, *view)
                if response is not None:
                    start_response(f"{response.status_code} {response.reason_phrase}", list(response.items()))
                    return response  # its close() sends request_finished, as Django's handler's responses do
                signals.request_finished.send(sender=self.__class__)  # pairs answer()'s request_started
        return None

    def answer(self, environ, fast, kwargs):
        """The fast path's response, or ``None`` for the whole stack (then ``environ`` carries the body read, and
        ``fast_only`` sends ``request_finished``: the whole stack starts the request again)."""
        set_script_prefix(get_script_name(environ))
        signals.request_started.send(sender=self.__class__, environ=environ)
        request = WSGIRequest(environ)
        stream = request._stream  # the server's input as Django wraps it (``Content-Length`` bytes)
        try:
            request.get_host()  # first: the HTTPS redirect reads the host too
        except DisallowedHost:
            return None
        if has_nul(request) or self.security.process_request(request) is not None:
            return None
        self.csp.process_request(request)
        try:
            response = fast(request, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            response = database_unavailable(request, exc)
        except Exception as exc:  # noqa: BLE001 — as Django's handler: logged, answered 500
            response = response_for_exception(request, exc)
        if response is None:  # the whole stack reads the body as this request read it, or failed to (unreadable)
            if hasattr(request, "_body"):
                environ["wsgi.input"] = io.BytesIO(request._body)
            elif request._stream is not stream:
                environ["wsgi.input"] = request._stream
            return None
        return self.security.process_response(request, self.csp.process_response(request, response))
