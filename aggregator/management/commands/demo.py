"""python manage.py demo — idempotently create the demo surveys ``demo-ldp`` and ``demo-mrr`` (mushroom data),
feed each with simulated respondents, publish a model, and make sure a staff account exists for the admin.

Run by ``make run``. The staff account is ``demo`` with the password in $COINFLIP_DEMO_PASSWORD (default "demo"),
meant for a laptop only.
"""
from __future__ import annotations

import datetime
import os
import tempfile
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from aggregator.demo_texts import add_german
from aggregator.lab.datasets import DATASETS_DIR
from aggregator.models import ModelVersion
from aggregator.services import latest_version, retrain
from survey_app import inbox
from survey_app.models import Question, Survey
from survey_app.services import create_survey_from_table, open_survey
from survey_app.tables import MULTI_SEPARATOR, load_table, read_csv

#: Titles in plain words (respondents read them): the settings are on the survey's dashboard page.
#: A demo survey that already exists keeps its title (the command only creates what is missing).
DEMOS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("demo-ldp", "Mushroom foraging survey (answers disguised in your browser)",
     dict(mode="ldp", encoding="oue", epsilon=2.0)),
    ("demo-mrr", "Mushroom foraging survey (your answers or stand-ins, by a secret coin flip)",
     dict(mode="mrr", theta=0.7)),
)
#: The demos validate with a larger share than the default 10 %, so their accuracy intervals are narrow early on.
DEMO_VALIDATION_SHARE = 0.2

#: Columns of the mushroom data the demos leave out: veil-type has one value (every mushroom's veil is "partial"), and a
#: question with one possible answer carries no information — the import refuses it
#: (``survey_app.models.SINGLE_ANSWER_COLUMN``), and its PSE of 0 would stand for the whole survey.
LEFT_OUT = ("veil-type",)

#: The demo that shows every question type: four yes/no columns of the mushroom data become one
#: select-all question (a cell lists what applies: ``survey_app.tables.MULTI_SEPARATOR``), the number of rings
#: an ordered scale, and the gill colour (12 choices) a dropdown.
TYPES_DEMO = "demo-mrr"
SELECT_ALL = ("features", "Which of these does the mushroom have?", (
    ("bruises?", "bruises", "bruises"), ("gill-spacing", "crowded", "crowded gills"),
    ("gill-size", "narrow", "narrow gills"), ("stalk-shape", "tapering", "a tapering stalk")))
SCALE = ("ring-number", "How many rings does its stalk have?", ("none", "one", "two"))
DROPDOWN = ("gill-color", "What colour are its gills?")


#: A conversion artefact of the mushroom data: in its two stalk-surface columns the source's "fibrous" lost its "f".
#: The demo repairs the word, so respondents read "fibrous" (data/datasets/ keeps the file as converted).
REPAIRS = {"ibrous": "fibrous"}
#: The demo surveys' description in English (aggregator/demo_texts.py has the German).
DESCRIPTION = ("Describe a mushroom you have found — or make one up. On the last step you see exactly what your "
               "browser sends.")


def mushroom_frame():
    """The mushroom table as the demo uses it: ``REPAIRS`` applied, the ``LEFT_OUT`` columns left out."""
    return read_csv(DATASETS_DIR / "mushroom.csv").replace(REPAIRS).drop(columns=list(LEFT_OUT))


def question_types_frame(frame):
    """The mushroom table with the select-all column ``SELECT_ALL`` in place of its four yes/no columns."""
    column, _, parts = SELECT_ALL
    hits = [frame[source].eq(value).to_numpy() for source, value, _ in parts]
    cells = [MULTI_SEPARATOR.join(label for (_, _, label), hit in zip(parts, row, strict=True) if hit) or None
             for row in zip(*hits, strict=True)]
    out = frame.drop(columns=[source for source, _, _ in parts])
    out.insert(list(frame.columns).index(parts[0][0]), column, cells)
    return out


def question_types_table(path: Path):
    """(the table, and a CSV of it at ``path`` for the simulated respondents) of the question types demo."""
    frame = question_types_frame(mushroom_frame())
    frame.to_csv(path, index=False)
    column, _, parts = SELECT_ALL
    return load_table(path, multi={column: [label for _, _, label in parts]}, ordered={SCALE[0]: SCALE[2]})


def name_the_types(survey: Survey) -> None:
    """The question types demo's texts and the dropdown's style (the table import makes the rest)."""
    from django.utils.text import slugify

    for column, text in ((SELECT_ALL[0], SELECT_ALL[1]), (SCALE[0], SCALE[1]), (DROPDOWN[0], DROPDOWN[1])):
        question = survey.questions.get(name=slugify(column))
        question.text = text
        if column == DROPDOWN[0]:
            question.style = Question.Style.DROPDOWN
        question.save()


class Command(BaseCommand):
    help = "Create the demo surveys (idempotent), simulate respondents and publish their models."

    def add_arguments(self, parser):
        parser.add_argument("--respondents", type=int, default=5000)

    def handle(self, *args, **opts):
        scratch = tempfile.TemporaryDirectory()
        plain = Path(scratch.name) / "mushroom.csv"
        mushroom_frame().to_csv(plain, index=False)
        table = None
        types_data = Path(scratch.name) / "mushroom-question-types.csv"
        types_table = question_types_table(types_data)
        for slug, title, settings in DEMOS:
            survey = Survey.objects.filter(slug=slug).first()
            data = types_data if slug == TYPES_DEMO else plain
            if survey is None:
                table = table or load_table(plain)
                survey = create_survey_from_table(types_table if slug == TYPES_DEMO else table, slug=slug,
                                                  title=title, open_now=False, **settings)
                if slug == TYPES_DEMO:
                    name_the_types(survey)
                survey.validation_share = DEMO_VALIDATION_SHARE
                survey.description = DESCRIPTION
                survey.save(update_fields=["validation_share", "description"])
                open_survey(survey)
            add_german(survey)  # the survey's texts in German too (aggregator/demo_texts.py)
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
                    inbox.redate_pending(survey, day)
                    published = (datetime.datetime.combine(day, datetime.time(1), tzinfo=datetime.UTC)
                                 + datetime.timedelta(days=1))
                    version = retrain(survey, now=published)
                    if version is not None and published.date() < today:
                        ModelVersion.objects.filter(pk=version.pk).update(created_at=published)
            retrain(survey)
            latest = latest_version(survey)
            self.stdout.write(f"{slug}: {survey.report_total()} reports, model version "
                              f"{latest.version if latest else 'none yet'} — /s/{slug}/, dashboard /dashboard/")
        scratch.cleanup()
        User = get_user_model()
        if not User.objects.filter(username="demo").exists():
            password = os.environ.get("COINFLIP_DEMO_PASSWORD", "demo")
            User.objects.create_superuser("demo", "demo@example.invalid", password)
        self.stdout.write(self.style.SUCCESS(
            f"Demo ready. Admin: http://127.0.0.1:{os.environ.get('COINFLIP_PORT', '8000')}/admin/ — user 'demo', "
            "password $COINFLIP_DEMO_PASSWORD (default 'demo')."))
