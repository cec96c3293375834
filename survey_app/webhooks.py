"""Signed webhooks: a survey may name an address that hears, by a signed POST, when a new model version is published
(docs/management-api.md). The body is JSON; ``Coinflip-Signature: v1=<hex>`` is HMAC-SHA256 with the survey's
``webhook_secret`` over ``"<Coinflip-Timestamp>.<body>"``, so a receiver can check who sent it and refuse replays.
Delivery runs in a Celery task (``survey_app.tasks.deliver_webhook``), never in a request; a failed delivery is
retried a few times, then dropped (the model is public at its URL anyway)."""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
import urllib.request
from urllib.parse import urlsplit

#: Seconds a receiver has to answer.
TIMEOUT = 10
#: Hosts a webhook may reach over plain http (a receiver on the same machine); every other address needs https.
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be a webhook address (``None`` when it can): https, or http to this machine only."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname in LOOPBACK:
        return None
    return "A webhook address must use https (plain http only to this machine: localhost or 127.0.0.1)."


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``Coinflip-Signature`` header's value for ``body`` sent at ``timestamp``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"v1={digest}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a receiver answers itself; a redirect is not followed
        return None


def deliver(url: str, secret: str, event: dict, now: float | None = None) -> int:
    """POST ``event`` to ``url``, signed; the receiver's status (``urllib.error.URLError`` / ``HTTPError`` when it
    cannot be reached or answers an error)."""
    body = json.dumps(event, sort_keys=True).encode()
    timestamp = str(int(now if now is not None else time.time()))
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "Coinflip-Webhook/1",
        "Coinflip-Timestamp": timestamp, "Coinflip-Signature": signature(secret, timestamp, body)})
    with urllib.request.build_opener(_NoRedirect).open(request, timeout=TIMEOUT) as response:
        return response.status
