"""A real local SMTP server for the mail tests (aiosmtpd): it receives over TCP what Django's SMTP backend sends and
keeps each message, parsed. Refuses the recipients in ``refuse`` with 550, as a mail server refuses a mailbox."""
from __future__ import annotations

import email
import email.policy
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Recorder:
    """aiosmtpd's handler: the messages received, and the recipients to refuse."""

    messages: list = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    connections: int = 0

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # noqa: N802 (aiosmtpd's hook)
        self.connections += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802 (aiosmtpd's hook)
        if address.lower() in self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's hook)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append((list(envelope.rcpt_tos), parsed))
        return "250 Message accepted for delivery"


@contextmanager
def smtp_server(settings):
    """Run an SMTP server on a free local port and point Django's SMTP backend at it (``settings``: pytest-django's
    fixture); yields the ``Recorder``."""
    recorder = Recorder()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    try:
        yield recorder
    finally:
        controller.stop()


def body(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()
