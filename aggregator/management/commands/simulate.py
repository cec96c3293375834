"""python manage.py simulate SLUG DATA.csv --respondents N [--seed S] [--url URL]

Simulated respondents: N rows drawn with replacement from a CSV whose columns are the survey's questions (matched by
question name, or by question text as ``create_survey`` names them), randomized by the survey's protocol exactly as
browsers do (``protocol.encode_respondents``: the survey's validation share of them validates the latest published
model instead of training), then stored in bulk — or, with ``--url``, POSTed one by one to the report API of the
running site at URL.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from aggregator.lab.datasets import load_table
from survey_app.models import PendingReport, Question, Survey
from survey_app.protocol import get_protocol

BATCH = 2000


def _column_for(question: Question, columns) -> str:
    for candidate in (question.name, question.text):
        if candidate in columns:
            return candidate
    raise CommandError(f"the CSV has no column for question {question.name!r} (columns: {', '.join(columns)})")


def records_from_csv(survey: Survey, path) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) in the survey's codes: X one column per feature question (choice index or number), y class indices."""
    from aggregator.lab.datasets import read_csv

    try:
        columns = list(read_csv(path).columns)
    except FileNotFoundError:
        raise CommandError(f"no such file: {path}") from None
    questions = list(survey.questions.prefetch_related("choices"))
    class_q = next((q for q in questions if q.is_class), None)
    if class_q is None:
        raise CommandError(f"survey {survey.slug!r} has no class question")
    features = [q for q in questions if not q.is_class]
    col_of = {q.name: _column_for(q, columns) for q in questions}
    numeric = [col_of[q.name] for q in features if q.kind == Question.Kind.NUMERIC]
    try:
        table = load_table(path, class_column=col_of[class_q.name], numeric=numeric)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    index = {a.name: j for j, a in enumerate(table.attributes)}

    def codes(question: Question, values: tuple, column: np.ndarray) -> np.ndarray:
        labels = question.labels()
        lookup = []
        for value in values:
            if value not in labels:
                raise CommandError(f"column {col_of[question.name]!r}: {value!r} is not an answer of question "
                                   f"{question.name!r} ({', '.join(labels)})")
            lookup.append(labels.index(value))
        return np.asarray(lookup, dtype=np.int64)[column.astype(np.int64)]

    X = np.empty((table.n, len(features)), dtype=np.float64)
    for j, q in enumerate(features):
        attr_index = index[col_of[q.name]]
        column = table.X[:, attr_index]
        X[:, j] = column if q.kind == Question.Kind.NUMERIC else codes(q, table.attributes[attr_index].values, column)
    y = codes(class_q, table.class_attribute.values, table.y)
    return X, y


def published_model(survey: Survey):
    """(version, NaiveBayesModel) of the latest published version, as a browser would fetch it; ``None`` if none."""
    from aggregator.privacy.naive_bayes.model import NaiveBayesModel
    from aggregator.services import latest_version

    latest = latest_version(survey)
    return (latest.version, NaiveBayesModel.from_dict(latest.model)) if latest else None


class Command(BaseCommand):
    help = "Simulate respondents drawn from a CSV: randomize their answers and store (or POST) the reports."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("csv", help="CSV with a column per question (the survey's question names)")
        parser.add_argument("--respondents", type=int, required=True,
                            help="how many respondents (rows drawn with replacement)")
        parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
        parser.add_argument("--url", help="POST each report to URL/api/surveys/SLUG/reports/ instead of writing the DB")

    def handle(self, *args, **opts):
        survey = Survey.objects.filter(slug=opts["slug"]).first()
        if survey is None:
            raise CommandError(f"no survey with slug {opts['slug']!r}")
        n = opts["respondents"]
        if n < 1:
            raise CommandError("--respondents must be at least 1")
        X, y = records_from_csv(survey, opts["csv"])
        rng = np.random.default_rng(opts["seed"])
        rows = rng.integers(0, len(y), n)
        reports = get_protocol(survey).encode_respondents(X[rows], y[rows], rng, published=published_model(survey))
        if opts["url"]:
            self.post_all(survey, reports, opts["url"])
        else:
            for start in range(0, n, BATCH):
                PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=r)  # the inbox, as the API
                                                   for r in reports[start:start + BATCH]])
        where = opts["url"] or "the database"
        self.stdout.write(self.style.SUCCESS(f"Sent {n} simulated reports for {survey.slug!r} to {where}."))

    def post_all(self, survey: Survey, reports: list[dict], url: str):
        endpoint = f"{url.rstrip('/')}/api/surveys/{survey.slug}/reports/"
        step = max(1, len(reports) // 10)
        for i, report in enumerate(reports, 1):
            request = urllib.request.Request(endpoint, data=json.dumps({"report": report}).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
            except urllib.error.HTTPError as exc:
                body = exc.read()[:300].decode(errors="replace")
                raise CommandError(f"report {i}: {endpoint} answered {exc.code}: {body}") from None
            except urllib.error.URLError as exc:
                raise CommandError(f"report {i}: cannot reach {endpoint}: {exc.reason}") from None
            if i % step == 0 or i == len(reports):
                self.stderr.write(f"{i}/{len(reports)} reports posted")
