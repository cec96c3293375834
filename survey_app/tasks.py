"""survey_app's periodic work (Celery beat: ``CELERY_BEAT_SCHEDULE``)."""
from celery import shared_task

from .services import apply_calendars


@shared_task(ignore_result=True)
def apply_survey_calendars() -> None:
    """Open and close the surveys whose dates or quota say so (``services.apply_calendars``)."""
    apply_calendars()
