"""survey_app's periodic work (Celery beat: ``CELERY_BEAT_SCHEDULE``)."""
import logging
import urllib.error

from celery import shared_task
from django.db import transaction

from . import webhooks
from .mailing import send_batch
from .models import MailBatch, Survey
from .services import apply_calendars

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def apply_survey_calendars() -> None:
    """Open and close the surveys whose dates or quota say so (``services.apply_calendars``)."""
    apply_calendars()


@shared_task(bind=True, ignore_result=True, max_retries=4, default_retry_delay=60)
def deliver_webhook(self, survey_id: int, event: dict) -> None:
    """POST ``event`` to the survey's webhook, signed (``webhooks.deliver``); retried when the receiver cannot be
    reached or answers an error, then dropped (logged without the address's path or query)."""
    survey = Survey.objects.filter(pk=survey_id).exclude(webhook_url="").first()
    if survey is None:
        return
    try:
        webhooks.deliver(survey.webhook_url, survey.webhook_secret, event)
    except (urllib.error.URLError, OSError) as exc:
        if self.request.retries >= self.max_retries:
            logger.warning("webhook of survey %s not delivered: %s", survey.slug, type(exc).__name__)
            return
        raise self.retry(exc=exc) from exc


@shared_task(ignore_result=True)
def send_mail_batch(batch_id: int) -> None:
    """Send a batch of invitation or reminder mails (``mailing.send_batch``: chunked, paced, progress counted)."""
    send_batch(batch_id)


def send_later(batch: MailBatch) -> None:
    """Send ``batch`` (``send_mail_batch``) once the current transaction commits."""
    transaction.on_commit(lambda: send_mail_batch.delay(batch.pk))
