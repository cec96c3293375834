"""Invitations by email: a list of addresses → one one-use invitation each, mailed through Django's email backend;
reminders to those whose invitation is still unused; and forgetting the addresses.

An ``InvitationMail`` ties an address to its invitation token, nothing more. The token is redeemed for a blind
signature (survey_app/credentials.py), so a token says nothing about the report it allowed; this table adds only who
was invited, and whether (read from the token, with its day) they took part. It is written when mails are queued
and sent, never when an invitation is redeemed or a report arrives, and holds days, no times (docs/threat-model.md).

Sending runs in a Celery task (``survey_app.tasks.send_mail_batch``): ``MAIL_CHUNK`` mails per SMTP connection,
``MAIL_PAUSE`` seconds between chunks, the progress counted on the ``MailBatch``. The link in each mail is the
fragment form ``/s/<slug>/i/#<token>`` (``views.invitation_link``): the token never reaches a server log.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from . import languages
from .models import InvitationMail, InvitationToken, MailBatch, Survey
from .views import invitation_link

#: At most this many addresses per list.
MAX_ADDRESSES = 10_000


def chunk_size() -> int:
    return int(getattr(settings, "COINFLIP_MAIL_CHUNK", 50))


def pause_seconds() -> float:
    return float(getattr(settings, "COINFLIP_MAIL_PAUSE", 1.0))


class MailingError(ValueError):
    """A list or request the mailing refuses, in words for the designer."""


@dataclass(frozen=True)
class AddressList:
    """Addresses read from a designer's text: ``valid`` (each once, in order), ``invalid`` (as typed)."""

    valid: list[str]
    invalid: list[str]


#: The longest address the mail table stores (RFC 5321's path limit, 254 characters): longer ones are invalid.
MAX_ADDRESS_LENGTH = 254


def parse_addresses(text: str) -> AddressList:
    """The addresses in ``text``, one per line or separated by commas, semicolons or spaces; duplicates (ignoring
    case) kept once."""
    valid, invalid, seen = [], [], set()
    for item in text.replace(",", " ").replace(";", " ").split():
        address = item.strip().strip("<>")
        try:
            validate_email(address)
            if len(address) > MAX_ADDRESS_LENGTH:
                raise ValidationError("too long")
        except ValidationError:
            invalid.append(item)
            continue
        if address.casefold() not in seen:
            seen.add(address.casefold())
            valid.append(address)
    return AddressList(valid, invalid)


def _check_survey(survey: Survey) -> None:
    if survey.access != Survey.Access.TOKENS:
        raise MailingError(_("%(slug)s is open to anyone with its link: invitations by email need a survey by "
                             "invitation (access: invitations).") % {"slug": survey.slug})
    if survey.status == Survey.Status.CLOSED:
        raise MailingError(_("%(slug)s is closed: its invitations could not be used.") % {"slug": survey.slug})


@dataclass(frozen=True)
class Queued:
    """What ``queue_invitations`` did: the batch to send (None if nothing new), the addresses already invited."""

    batch: MailBatch | None
    already: int


def queue_invitations(survey: Survey, addresses: list[str], *, language: str, base_url: str,
                      forget: bool = False) -> Queued:
    """One new invitation token per address not yet invited to ``survey`` (and once more the mail of an address
    whose mail failed), queued for mailing in ``language``
    (links start with ``base_url``); ``forget``: delete the addresses once their mail was attempted. Start the sending
    with ``tasks.send_later(batch)``."""
    _check_survey(survey)
    if language not in languages.language_codes():
        raise MailingError(_("“%(language)s” is not a language of this site.") % {"language": language})
    if not addresses:
        raise MailingError(_("Give at least one email address."))
    if len(addresses) > MAX_ADDRESSES:
        raise MailingError(_("At most %(limit)d addresses at a time.") % {"limit": MAX_ADDRESSES})
    if not base_url.startswith(("https://", "http://")):
        raise MailingError(_("The links need the site's address, e.g. https://survey.example.org."))
    with transaction.atomic():
        known = {a.casefold(): (pk, sent_on is None and queued_in is None)
                 for a, pk, sent_on, queued_in in InvitationMail.objects.filter(survey=survey).values_list(
                     "address", "pk", "sent_on", "queued_in")}
        new = [a for a in addresses if a.casefold() not in known]
        retried = [known[a.casefold()][0] for a in addresses if known.get(a.casefold(), (0, False))[1]]
        if not new and not retried:
            return Queued(None, len(addresses))
        batch = MailBatch.objects.create(survey=survey, kind=MailBatch.Kind.INVITATION, total=len(new) + len(retried),
                                         forget=forget, base_url=base_url.rstrip("/"))
        tokens = InvitationToken.objects.bulk_create(
            [InvitationToken(survey=survey, batch="email") for _address in new])
        InvitationMail.objects.bulk_create(
            [InvitationMail(survey=survey, invitation=token, address=address, language=language, queued_in=batch)
             for address, token in zip(new, tokens, strict=True)])
        InvitationMail.objects.filter(pk__in=retried).update(queued_in=batch, language=language)
    return Queued(batch, len(addresses) - len(new) - len(retried))


def reminder_rows(survey: Survey):
    """The mails whose invitation was sent and is still unused (and not waiting in a sending)."""
    return InvitationMail.objects.filter(survey=survey, sent_on__isnull=False, queued_in__isnull=True,
                                         invitation__used=False)


def queue_reminders(survey: Survey, base_url: str) -> MailBatch | None:
    """Queue a reminder to every address whose invitation is unused; None when there is none — also when the
    addresses were forgotten, after which no reminder can be sent."""
    _check_survey(survey)
    with transaction.atomic():
        ids = list(reminder_rows(survey).select_for_update().values_list("pk", flat=True))
        if not ids:
            return None
        batch = MailBatch.objects.create(survey=survey, kind=MailBatch.Kind.REMINDER, total=len(ids),
                                         base_url=base_url.rstrip("/"))
        InvitationMail.objects.filter(pk__in=ids).update(queued_in=batch)
    return batch


def forget_addresses(survey: Survey) -> int:
    """Delete every address of ``survey`` (the invitations stay valid); how many. Sendings still under way stop.
    Afterwards nobody can be reminded. The deleted rows leave the database's live data at once, and its files when
    PostgreSQL reuses their space (backups keep them until they expire: docs/threat-model.md)."""
    with transaction.atomic():
        deleted, _detail = InvitationMail.objects.filter(survey=survey).delete()
        MailBatch.objects.filter(survey=survey, done=False).update(done=True)
    return deleted


def message(row: InvitationMail, kind: str, base_url: str) -> mail.EmailMessage:
    """The invitation or reminder mail of ``row``, in its language."""
    survey = row.survey
    link = invitation_link(survey, row.invitation.token, base_url)
    with translation.override(row.language):
        title = languages.survey_title(survey)
        if kind == MailBatch.Kind.REMINDER:
            subject = _("Reminder: %(title)s") % {"title": title}
            opening = _("You were invited to the survey “%(title)s” and have not answered yet. Your invitation is "
                        "still valid:") % {"title": title}
        else:
            subject = _("Invitation: %(title)s") % {"title": title}
            opening = _("You are invited to the survey “%(title)s”. Your personal link, valid for one answer:") % {
                "title": title}
        body = "\n\n".join([
            opening, link,
            _("Your browser randomizes your answers before anything is sent, and sends them with a blind-signed "
              "credential instead of this link, so they are stored without it. The survey page says what stays "
              "private and what does not."),
            _("You receive this message because the survey's organizers entered your address."),
        ])
    return mail.EmailMessage(subject, body + "\n", to=[row.address])


def send_batch(batch_id: int) -> MailBatch | None:
    """Send the mails queued in batch ``batch_id``, ``chunk_size()`` per SMTP connection with ``pause_seconds()``
    between chunks, counting progress on the batch; a mail the server refuses is counted as failed (not retried).
    Each chunk is sent in a transaction that locks its rows (another worker sending the same batch skips them).
    With ``forget``, each address is deleted once its mail was attempted. The batch, or None if it is gone."""
    batch = MailBatch.objects.filter(pk=batch_id).select_related("survey").first()
    if batch is None:
        return None
    first = True
    while True:
        if not first:
            time.sleep(pause_seconds())
        first = False
        # The chunk's rows stay locked while it is sent: a second worker given the same batch skips them.
        with transaction.atomic():
            rows = list(InvitationMail.objects.filter(queued_in=batch).select_related("survey", "invitation")
                        .select_for_update(skip_locked=True, of=("self",)).order_by("pk")[:chunk_size()])
            if not rows:
                break
            sent = _send_chunk(batch, rows)
            _record(batch, sent, [row.pk for row in rows if row.pk not in sent])
    if not InvitationMail.objects.filter(queued_in=batch).exists():
        MailBatch.objects.filter(pk=batch.pk).update(done=True)
    batch.refresh_from_db()
    return batch


def _send_chunk(batch: MailBatch, rows: list[InvitationMail]) -> set[int]:
    """Send the mails of ``rows`` over one SMTP connection; the ids of those the server took. A server that cannot be
    reached, or refuses a mail, costs only those mails (smtplib's errors are ``OSError``)."""
    sent: set[int] = set()
    connection = mail.get_connection()
    try:
        connection.open()
    except OSError:
        return sent
    try:
        for row in rows:
            try:
                connection.send_messages([message(row, batch.kind, batch.base_url)])
            except (OSError, ValueError):  # ValueError: a header Django refuses
                continue
            sent.add(row.pk)
    finally:
        try:
            connection.close()
        except OSError:
            pass
    return sent


def _record(batch: MailBatch, sent: set[int], failed: list[int]) -> None:
    today = timezone.localdate()
    with transaction.atomic():
        rows = InvitationMail.objects.filter(pk__in=[*sent, *failed], queued_in=batch)
        if batch.forget:
            rows.delete()
        else:
            if batch.kind == MailBatch.Kind.REMINDER:
                rows.filter(pk__in=sent).update(queued_in=None, reminded_on=today, reminders=F("reminders") + 1)
            else:
                rows.filter(pk__in=sent).update(queued_in=None, sent_on=today)
            rows.filter(pk__in=failed).update(queued_in=None, failures=F("failures") + 1)
        MailBatch.objects.filter(pk=batch.pk).update(sent=F("sent") + len(sent), failed=F("failed") + len(failed))
