from django.apps import AppConfig
from django.db import transaction
from django.db.models.signals import post_save


def _survey_saved(sender, instance, **kwargs):
    from .schedules import sync_schedule

    sync_schedule(instance)


def _version_published(sender, instance, created, **kwargs):
    """A new model version: the survey's webhook hears of it once the version is committed."""
    if not created or not instance.survey.webhook_url:
        return
    from django.urls import reverse

    from survey_app.tasks import deliver_webhook

    event = {"event": "model.published", "survey": instance.survey.slug, "version": instance.version,
             "through_day": instance.through_day.isoformat() if instance.through_day else None,
             "model": reverse("api-model", kwargs={"slug": instance.survey.slug})}
    transaction.on_commit(lambda: deliver_webhook.delay(instance.survey_id, event))


class AggregatorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aggregator"

    def ready(self):
        from survey_app.models import Survey

        from .models import ModelVersion

        post_save.connect(_survey_saved, sender=Survey, dispatch_uid="aggregator-sync-schedule")
        post_save.connect(_version_published, sender=ModelVersion, dispatch_uid="aggregator-webhook")
