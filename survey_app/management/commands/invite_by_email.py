"""python manage.py invite_by_email SLUG --base-url URL (--addresses FILE | --remind | --forget) [--language de]
[--forget-after-sending] [--now]

Email invitations for a token survey (survey_app/mailing.py): each address of FILE (one per line) gets its own one-use
invitation link; ``--remind`` mails again those whose invitation is unused; ``--forget`` deletes the addresses (no
reminder can be sent afterwards). The mails are sent by the Celery worker, or here with ``--now``."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from survey_app.mailing import MailingError, forget_addresses, parse_addresses, queue_invitations, queue_reminders
from survey_app.models import MailBatch, Survey
from survey_app.tasks import send_later, send_mail_batch


class Command(BaseCommand):
    help = "Email one-use invitations for a token survey, remind those who have not answered, or forget the addresses."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--addresses", help="a file of email addresses, one per line")
        what.add_argument("--remind", action="store_true", help="remind those whose invitation is unused")
        what.add_argument("--forget", action="store_true", help="delete the addresses (no reminder afterwards)")
        parser.add_argument("--base-url", default="", help="the site's address, e.g. https://survey.example.org")
        parser.add_argument("--language", default="en", help="the mails' language (en, de)")
        parser.add_argument("--forget-after-sending", action="store_true",
                            help="delete each address once its mail was sent (no reminder can be sent)")
        parser.add_argument("--now", action="store_true", help="send here and now instead of by the Celery worker")

    def handle(self, *args, **opts):
        survey = Survey.objects.filter(slug=opts["slug"]).first()
        if survey is None:
            raise CommandError(f"no survey with slug {opts['slug']!r}")
        if opts["forget"]:
            count = forget_addresses(survey)
            self.stdout.write(self.style.SUCCESS(f"Forgot {count} addresses of {survey.slug!r}; no reminder can be "
                                                 "sent any more (the invitations stay valid)."))
            return
        if not opts["base_url"]:
            raise CommandError("--base-url is needed: the links in the mails must be absolute")
        try:
            if opts["remind"]:
                batch = queue_reminders(survey, opts["base_url"])
                if batch is None:
                    raise CommandError("nobody to remind: every mailed invitation was used, or no address is kept "
                                       "(forgotten addresses cannot be reminded)")
            else:
                found = parse_addresses(Path(opts["addresses"]).read_text(encoding="utf-8"))
                if found.invalid:
                    raise CommandError(f"not email addresses: {', '.join(found.invalid[:10])}")
                queued = queue_invitations(survey, found.valid, language=opts["language"],
                                           base_url=opts["base_url"], forget=opts["forget_after_sending"])
                if queued.already:
                    self.stdout.write(f"{queued.already} addresses were invited before: no new invitation.")
                if queued.batch is None:
                    return
                batch = queued.batch
        except (MailingError, OSError) as exc:
            raise CommandError(str(exc)) from None
        self._send(batch, opts["now"])

    def _send(self, batch: MailBatch, now: bool) -> None:
        if now:
            send_mail_batch(batch.pk)
            batch.refresh_from_db()
            self.stdout.write(self.style.SUCCESS(f"Sent {batch.sent} of {batch.total} {batch.kind} mails "
                                                 f"({batch.failed} failed)."))
        else:
            send_later(batch)
            self.stdout.write(self.style.SUCCESS(f"{batch.total} {batch.kind} mails queued for the Celery worker."))
