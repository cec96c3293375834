"""Request-level privacy and security helpers shared by the settings, gunicorn's configuration and the logs.

- ``redact_path``: invitation tokens travel in survey URLs (``/s/<slug>/t/<token>/``); no log line may hold one
  (with a timestamp it would tie an invitation to a visit). Used by gunicorn's access log
  (docker/gunicorn.conf.py) and by ``RedactTokensFilter`` on Django's own log records (``django.request`` logs
  the path of every 4xx/5xx answer).
- ``RedactAddressesFilter``: no log line holds a client address. gunicorn's error log writes "Invalid request from
  ip=…" and "Error handling request <uri>"; the filter (on gunicorn's error log, docker/gunicorn.conf.py, and on
  Django's console handler, settings.LOGGING) replaces every IPv4/IPv6 address by ``<address>``, tokens by
  ``<token>``, and drops query strings, in the message, its arguments and any traceback.
- ``client_ip``: the address that django-axes counts failed admin logins against — never a value the client chose.
  ``X-Forwarded-For`` is read only when the connection itself comes from a trusted proxy (``REMOTE_ADDR`` inside
  ``COINFLIP_TRUSTED_PROXY_NETWORKS``); then, behind ``COINFLIP_TRUSTED_PROXIES`` = N proxies each of which appends
  the address it received the connection from, the client is the entry N places from the right (entries further
  left were written by the client and could be anything). A direct connection — the trusted-proxy setting on but
  no proxy in front — counts against its own ``REMOTE_ADDR`` whatever headers it sends. (Axes stores these
  addresses for failed login attempts only; no report, survey page or API request is stored with an address.)
"""
from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Mapping
from functools import lru_cache

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


#: An address-like run of characters (IPv4, IPv6, with or without brackets); each is checked by ``ipaddress``.
ADDRESS_CANDIDATE = re.compile(r"(?<![\w:.])[0-9A-Fa-f:.]*[:.][0-9A-Fa-f:.]*(?![\w:])")
QUERY_IN_URI = re.compile(r"(/[^\s?\"']*)\?[^\s\"']*")
ADDRESS = "<address>"


def _address(match: re.Match) -> str:
    text = match.group(0)
    core = text.rstrip(".:")
    host, _, port = core.rpartition(":") if core.count(":") == 1 else (core, "", "")
    for candidate, rest in ((core, text[len(core):]), (host, text[len(host):])):
        try:
            ipaddress.ip_address(candidate)
        except ValueError:
            continue
        return ADDRESS + rest
    return text


def redact_addresses(text: str) -> str:
    """``text`` with every IP address replaced by ``<address>``, tokens by ``<token>`` and query strings dropped."""
    return QUERY_IN_URI.sub(r"\1", redact_text(ADDRESS_CANDIDATE.sub(_address, text)))


class RedactAddressesFilter(logging.Filter):
    """A logging filter for records that may hold a client's address (gunicorn's error log): the message, its
    arguments and its traceback lose addresses, tokens and query strings (``redact_addresses``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_addresses(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_addresses(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_addresses(record.stack_info)
        return True


#: The Celery tasks that drain inboxes (``aggregator.tasks``): the worker logs no line when one succeeds.
DRAIN_TASKS = ("aggregator.tasks.",)


class QuietDrainFilter(logging.Filter):
    """A logging filter for Celery's task-trace logger (``celery.app.trace``): the "succeeded" line of a drain task
    is dropped — its duration, its result and its own time (beside the "received" line's, which follows the
    schedule) all grow with the reports the drain moved. Failures are still logged. Reads only the record's
    documented message arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        return not (isinstance(args, Mapping) and "runtime" in args
                    and str(args.get("name", "")).startswith(DRAIN_TASKS))


@lru_cache(maxsize=8)
def _networks(spec: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(network.strip(), strict=False) for network in spec if network.strip())


def is_trusted_proxy(address: str | None) -> bool:
    """Whether a connection from ``address`` comes from a proxy of ``COINFLIP_TRUSTED_PROXY_NETWORKS``."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return False
    ip = getattr(ip, "ipv4_mapped", None) or ip
    return any(ip in network for network in _networks(tuple(settings.COINFLIP_TRUSTED_PROXY_NETWORKS)))


def client_ip(request) -> str | None:
    """The client's address for login throttling (django-axes' ``AXES_CLIENT_IP_CALLABLE``): see the module
    docstring. A missing, short or malformed header from a trusted proxy gives the proxy's own address (one shared
    count, never a count per forged value)."""
    remote = request.META.get("REMOTE_ADDR")
    proxies = int(getattr(settings, "COINFLIP_TRUSTED_PROXIES", 0))
    if proxies <= 0 or not is_trusted_proxy(remote):
        return remote
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if len(hops) < proxies:
        return remote
    try:
        return str(ipaddress.ip_address(hops[-proxies]))
    except ValueError:
        return remote
