"""python manage.py retrain SLUG — fold the survey's new reports now, and publish a model version if a day has
closed since the last one (models include whole UTC days only: docs/threat-model.md)."""
from django.core.management.base import BaseCommand, CommandError

from aggregator import services
from aggregator.privacy.jsonable import format_epsilon
from survey_app.models import Survey


class Command(BaseCommand):
    help = "Fold a survey's new reports and publish a new model version (if anything changed)."

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args, **opts):
        survey = Survey.objects.filter(slug=opts["slug"]).first()
        if survey is None:
            raise CommandError(f"no survey with slug {opts['slug']!r}")
        folded = services.fold_new_reports(survey)
        why: list[str] = []
        version = services.publish_model(survey, skipped=why.append)
        if version is None:
            self.stdout.write(f"{survey.slug}: {folded} reports folded. " + " ".join(why))
            return
        epsilon = version.privacy.get("epsilon_per_respondent")
        self.stdout.write(self.style.SUCCESS(
            f"Published version {version.version} of {survey.slug!r}: {version.report_count} reports "
            f"({folded} new), ε = {format_epsilon(epsilon, 'g')} per respondent"
        ))
