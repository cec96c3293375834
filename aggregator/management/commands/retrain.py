"""python manage.py retrain SLUG — fold the survey's new reports and publish a model version now."""
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
        version = services.publish_model(survey)
        if version is None:
            latest = services.latest_version(survey)
            if latest is None:
                self.stdout.write(f"No reports yet for {survey.slug!r}: no model published.")
            else:
                self.stdout.write(f"No new reports: version {latest.version} ({latest.report_count} reports) "
                                  "is current.")
            return
        epsilon = version.privacy.get("epsilon_per_respondent")
        self.stdout.write(self.style.SUCCESS(
            f"Published version {version.version} of {survey.slug!r}: {version.report_count} reports "
            f"({folded} new), ε = {format_epsilon(epsilon, 'g')} per respondent"
        ))
