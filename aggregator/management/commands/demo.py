"""python manage.py demo — idempotently create the demo surveys ``demo-ldp`` and ``demo-mrr`` (mushroom data),
feed each with simulated respondents, publish a model, and make sure a staff account exists for the admin.

Run by ``make run``. The staff account is ``demo`` with the password in $COINFLIP_DEMO_PASSWORD (default "demo"),
meant for a laptop only.
"""
from __future__ import annotations

import datetime
import os

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from aggregator.lab.datasets import DATASETS_DIR, load_table
from aggregator.models import ModelVersion
from aggregator.services import latest_version, retrain
from survey_app.models import PendingReport, Survey
from survey_app.services import create_survey_from_table

#: Titles in plain words (respondents read them; issue 12 item 6): the settings are on the survey's dashboard page.
#: A demo survey that already exists keeps its title (the command only creates what is missing).
DEMOS = (
    ("demo-ldp", "Mushroom foraging survey (answers disguised in your browser)",
     dict(mode="ldp", encoding="oue", epsilon=2.0)),
    ("demo-mrr", "Mushroom foraging survey (your answers or stand-ins, by a secret coin flip)",
     dict(mode="mrr", theta=0.7)),
)
#: The demos validate with a larger share than the default 10 %, so their accuracy intervals are narrow early on.
DEMO_VALIDATION_SHARE = 0.2


class Command(BaseCommand):
    help = "Create the demo surveys (idempotent), simulate respondents and publish their models."

    def add_arguments(self, parser):
        parser.add_argument("--respondents", type=int, default=5000)

    def handle(self, *args, **opts):
        data = DATASETS_DIR / "mushroom.csv"
        table = None
        for slug, title, settings in DEMOS:
            survey = Survey.objects.filter(slug=slug).first()
            if survey is None:
                table = table or load_table(data)
                survey = create_survey_from_table(table, slug=slug, title=title, open_now=False, **settings)
                survey.validation_share = DEMO_VALIDATION_SHARE
                survey.status = Survey.Status.OPEN
                survey.save()
            if not survey.has_reports():
                # A simulated history of two days (models include whole days only: docs/threat-model.md): the day
                # before yesterday's respondents train version 1, published early yesterday; yesterday's
                # validation share evaluates it, and today's first retrain publishes version 2.
                today = datetime.datetime.now(datetime.UTC).date()
                first = opts["respondents"] * 3 // 4
                for seed, count, days_ago in ((1, first, 2), (2, opts["respondents"] - first, 1)):
                    call_command("simulate", slug, str(data), "--respondents", str(count), "--seed", str(seed),
                                 stdout=self.stdout, stderr=self.stderr)
                    day = today - datetime.timedelta(days=days_ago)
                    PendingReport.objects.filter(survey=survey).update(received_on=day)
                    published = (datetime.datetime.combine(day, datetime.time(1), tzinfo=datetime.UTC)
                                 + datetime.timedelta(days=1))
                    version = retrain(survey, now=published)
                    if version is not None and published.date() < today:
                        ModelVersion.objects.filter(pk=version.pk).update(created_at=published)
            retrain(survey)
            latest = latest_version(survey)
            self.stdout.write(f"{slug}: {survey.report_total()} reports, model version "
                              f"{latest.version if latest else 'none yet'} — /s/{slug}/, dashboard /dashboard/")
        User = get_user_model()
        if not User.objects.filter(username="demo").exists():
            password = os.environ.get("COINFLIP_DEMO_PASSWORD", "demo")
            User.objects.create_superuser("demo", "demo@example.invalid", password)
        self.stdout.write(self.style.SUCCESS(
            f"Demo ready. Admin: http://127.0.0.1:{os.environ.get('COINFLIP_PORT', '8000')}/admin/ — user 'demo', "
            "password $COINFLIP_DEMO_PASSWORD (default 'demo')."))
