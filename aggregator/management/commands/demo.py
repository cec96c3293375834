"""python manage.py demo — idempotently create the demo surveys ``demo-ldp`` and ``demo-mrr`` (mushroom data),
feed each with simulated respondents, publish a model, and make sure a staff account exists for the admin.

Run by ``make run``. The staff account is ``demo`` with the password in $COINFLIP_DEMO_PASSWORD (default "demo"),
meant for a laptop only.
"""
from __future__ import annotations

import os

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from aggregator.lab.datasets import DATASETS_DIR, load_table
from aggregator.services import retrain
from survey_app.models import Survey
from survey_app.services import create_survey_from_table

DEMOS = (
    ("demo-ldp", "Mushrooms (LDP, ε = 2, OUE)", dict(mode="ldp", encoding="oue", epsilon=2.0)),
    ("demo-mrr", "Mushrooms (unrelated question, θ = 0.7)", dict(mode="mrr", theta=0.7)),
)


class Command(BaseCommand):
    help = "Create the demo surveys (idempotent), simulate respondents and publish their models."

    def add_arguments(self, parser):
        parser.add_argument("--respondents", type=int, default=3000)

    def handle(self, *args, **opts):
        data = DATASETS_DIR / "mushroom.csv"
        table = None
        for slug, title, settings in DEMOS:
            survey = Survey.objects.filter(slug=slug).first()
            if survey is None:
                table = table or load_table(data)
                survey = create_survey_from_table(table, slug=slug, title=title, open_now=True, **settings)
            if not survey.reports.exists():
                call_command("simulate", slug, str(data), "--respondents", str(opts["respondents"]), "--seed", "1",
                             stdout=self.stdout, stderr=self.stderr)
            version = retrain(survey)
            self.stdout.write(f"{slug}: {survey.reports.count()} reports, model version "
                              f"{version.version if version else 'unchanged'} — /s/{slug}/")
        User = get_user_model()
        if not User.objects.filter(username="demo").exists():
            User.objects.create_superuser("demo", "demo@example.invalid", os.environ.get("COINFLIP_DEMO_PASSWORD", "demo"))
        self.stdout.write(self.style.SUCCESS(
            f"Demo ready. Admin: http://127.0.0.1:{os.environ.get('COINFLIP_PORT', '8000')}/admin/ — user 'demo', password $COINFLIP_DEMO_PASSWORD (default 'demo')."))
