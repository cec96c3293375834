from django.apps import AppConfig
from django.db.models.signals import post_save


def _survey_saved(sender, instance, **kwargs):
    from .schedules import sync_schedule

    sync_schedule(instance)


class AggregatorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aggregator"

    def ready(self):
        from survey_app.models import Survey

        post_save.connect(_survey_saved, sender=Survey, dispatch_uid="aggregator-sync-schedule")
