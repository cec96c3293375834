from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SurveyAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "survey_app"
    verbose_name = _("Surveys")  # the admin's heading and breadcrumb ("Survey_App" otherwise)

    def ready(self):
        """The admin's names of the models, in the page's language. Set on ``_meta`` rather than in each model's
        ``Meta``: the migration state is built from ``Meta`` (``_meta.original_attrs``), so these need no migration
        (in ``Meta`` they would be an AlterModelOptions with no database change)."""
        from .models import Choice, InvitationToken, Question, Survey

        names = {Survey: (_("survey"), _("surveys")), Question: (_("question"), _("questions")),
                 Choice: (_("choice"), _("choices")),
                 InvitationToken: (_("invitation token"), _("invitation tokens"))}
        for model, (singular, plural) in names.items():
            model._meta.verbose_name, model._meta.verbose_name_plural = singular, plural
