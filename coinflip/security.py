"""Request-level privacy and security helpers shared by the settings, gunicorn's configuration and the logs.

- ``redact_path``: invitation tokens travel in survey URLs (``/s/<slug>/t/<token>/``); no log line may hold one
  (with a timestamp it would tie an invitation to a visit). Used by gunicorn's access log
  (docker/gunicorn.conf.py) and by ``RedactTokensFilter`` on Django's own log records (``django.request`` logs
  the path of every 4xx/5xx answer).
- ``client_ip``: the address that django-axes counts failed admin logins against. Behind ``COINFLIP_TRUSTED_PROXIES``
  reverse proxies, each of which appends the address it received the connection from to ``X-Forwarded-For``, the
  client is the entry that many places from the right; entries further left were written by the client and could be
  anything. Without a proxy, ``REMOTE_ADDR``. (Axes stores these addresses for failed login attempts only; no
  report, survey page or API request is stored with an address.)
"""
from __future__ import annotations

import logging
import re

from django.conf import settings

TOKEN_IN_PATH = re.compile(r"(/s/[^/?#\s]+/t/)[^/?#\s]+")
REDACTED = "<token>"


def redact_path(path: str) -> str:
    """``path`` without its query string and with any invitation token replaced by ``<token>``."""
    return TOKEN_IN_PATH.sub(r"\g<1>" + REDACTED, path.split("?", 1)[0])


def redact_text(text: str) -> str:
    """Any survey-token URL inside free text (a log message), with its token replaced by ``<token>``."""
    return TOKEN_IN_PATH.sub(r"\g<1>" + REDACTED, text)


class RedactTokensFilter(logging.Filter):
    """A logging filter that replaces invitation tokens in a record's message (and its arguments) by ``<token>``."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def client_ip(request) -> str | None:
    """The client's address for login throttling (django-axes' ``AXES_CLIENT_IP_CALLABLE``)."""
    proxies = int(getattr(settings, "COINFLIP_TRUSTED_PROXIES", 0))
    if proxies > 0:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR")
