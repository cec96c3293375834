"""The load benchmark's surveys — one per mechanism — and their pre-generated request stream.

Every mechanism the report API accepts gets an open survey: LDP Naive Bayes one-report with each frequency oracle
of SPEC §3 (DE, SUE, OUE, SHE, THE, OLH), one split survey (every answer reported, ε split; SPEC §4), the three
Gaussian approaches of SPEC §5b, and the unrelated-question model (MRR, SPEC §2). Their questions come from the
public data sets (mushroom for the categorical ones, diabetes for the Gaussian ones) through
``survey_app.services.create_survey_from_table``, as a designer's CSV import would make them. One survey per
mechanism family — LDP one-report (OUE), split (adaptive), Gaussian (Approach 1) and MRR — is also run with
invitations (token access, issue 11): its respondents redeem a token for a blind signature, then report with the
credential (bench/load/tokens.py).

Each survey is *seeded*: a first wave of simulated respondents, received two days ago (UTC), is stored and folded and
a model version published from those closed days and dated yesterday, so that the load's validation share
(``Survey.validation_share``, 10 %) evaluates that version — the one validation respondents evaluate today
(``survey_app.reports.current_validation_version``: the newest published before the current UTC day) — as browsers
do once a model exists (a load running across midnight UTC would see its validation reports refused as stale, 409).
The load's payloads are then drawn with the survey's own client halves (``get_protocol(survey).encode_respondents``
— the exact wire format ``static/js`` sends, validation reports included) and serialised once, before the clock
starts, into ready-to-send HTTP request bodies.
"""
from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field

import numpy as np

from aggregator.lab.datasets import DATASETS_DIR
from aggregator.management.commands.simulate import published_model, records_from_csv
from aggregator.models import ModelVersion
from aggregator.services import retrain
from survey_app.models import PendingReport, Survey
from survey_app.protocol import get_protocol
from survey_app.reports import utc_midnight
from survey_app.services import create_survey_from_table
from survey_app.tables import load_table, read_csv

from . import tokens

#: Report API path of a survey (``survey_app.urls``); the floor peer serves the same path.
REPORTS_PATH = "/api/surveys/{slug}/reports/"


@dataclass(frozen=True)
class Mechanism:
    """One benchmarked mechanism: its label in the table, the survey's slug, data set and survey settings."""

    label: str
    slug: str
    dataset: str
    settings: dict = field(default_factory=dict)
    invitations: bool = False  #: a token survey: respondents redeem, then report (bench/load/tokens.py)


_LDP = {"mode": "ldp", "epsilon": 1.0}
_GAUSSIAN = {**_LDP, "numeric_handling": "gaussian"}
MECHANISMS: tuple[Mechanism, ...] = (
    Mechanism("LDP DE", "load-de", "mushroom.csv", {**_LDP, "encoding": "de"}),
    Mechanism("LDP SUE", "load-sue", "mushroom.csv", {**_LDP, "encoding": "sue"}),
    Mechanism("LDP OUE", "load-oue", "mushroom.csv", {**_LDP, "encoding": "oue"}),
    Mechanism("LDP SHE", "load-she", "mushroom.csv", {**_LDP, "encoding": "she"}),
    Mechanism("LDP THE", "load-the", "mushroom.csv", {**_LDP, "encoding": "the"}),
    Mechanism("LDP OLH", "load-olh", "mushroom.csv", {**_LDP, "encoding": "olh"}),
    Mechanism("LDP split (adaptive)", "load-split", "mushroom.csv",
              {**_LDP, "encoding": "adaptive", "strategy": "split"}),
    Mechanism("Gaussian A1", "load-gauss-1", "diabetes.csv", {**_GAUSSIAN, "gaussian_approach": 1}),
    Mechanism("Gaussian A2", "load-gauss-2", "diabetes.csv", {**_GAUSSIAN, "gaussian_approach": 2}),
    Mechanism("Gaussian A3", "load-gauss-3", "diabetes.csv", {**_GAUSSIAN, "gaussian_approach": 3}),
    Mechanism("MRR θ = 0.7", "load-mrr", "mushroom.csv", {"mode": "mrr", "theta": 0.7}),
    # Categorical and numeric questions in one survey (adult: 8 + 5; protocol.mixed, Gaussian Approach 3).
    Mechanism("Mixed (A3 + OUE)", "load-mixed", "adult.csv", {**_GAUSSIAN, "encoding": "oue", "gaussian_approach": 3}),
    # One per mechanism family with invitations: redemption + report per respondent.
    Mechanism("LDP OUE, invitations", "load-oue-tokens", "mushroom.csv", {**_LDP, "encoding": "oue"}, True),
    Mechanism("LDP split, invitations", "load-split-tokens", "mushroom.csv",
              {**_LDP, "encoding": "adaptive", "strategy": "split"}, True),
    Mechanism("Gaussian A1, invitations", "load-gauss-1-tokens", "diabetes.csv",
              {**_GAUSSIAN, "gaussian_approach": 1}, True),
    Mechanism("MRR θ = 0.7, invitations", "load-mrr-tokens", "mushroom.csv", {"mode": "mrr", "theta": 0.7}, True),
)

#: Settings ``create_survey_from_table`` takes; the others are set on the survey afterwards.
_CREATE_KEYS = {"mode", "encoding", "epsilon", "theta"}


def create_survey(mechanism: Mechanism) -> Survey:
    """An open survey for ``mechanism`` (questions from its data set), with no reports yet."""
    frame = read_csv(DATASETS_DIR / mechanism.dataset)
    # A column with one answer (mushroom's veil-type) carries no information, and the import refuses it.
    table = load_table(frame.loc[:, frame.nunique(dropna=False) > 1])
    create = {k: v for k, v in mechanism.settings.items() if k in _CREATE_KEYS}
    survey = create_survey_from_table(table, slug=mechanism.slug, title=f"Load: {mechanism.label}", **create)
    for name, value in mechanism.settings.items():
        if name not in _CREATE_KEYS:
            setattr(survey, name, value)
    survey.status = Survey.Status.OPEN
    survey.full_clean()
    survey.save()
    return survey


def respondents(survey: Survey, dataset: str, n: int, rng: np.random.Generator) -> list[dict]:
    """``n`` simulated respondents' wire payloads: rows of ``dataset`` drawn with replacement, randomized by the
    survey's client halves (a validation share of them evaluates the latest published version, if any)."""
    X, y = records_from_csv(survey, DATASETS_DIR / dataset)
    rows = rng.integers(0, len(y), n)
    return get_protocol(survey).encode_respondents(X[rows], y[rows], rng, published=published_model(survey))


def seed(survey: Survey, dataset: str, n: int, rng: np.random.Generator) -> int:
    """Store ``n`` simulated reports straight in the database, received two days ago (UTC), and publish a first model
    version from them, dated yesterday: the version validation respondents evaluate today; returns ``n``.

    (A version is published only from closed days — ``aggregator.services.close_days`` — and validation respondents
    evaluate only one published before today began, so the seed wave lies in the past.)"""
    midnight = utc_midnight()
    received = (midnight - datetime.timedelta(days=2)).date()
    payloads = respondents(survey, dataset, n, rng)
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p, received_on=received)
                                       for p in payloads], batch_size=2000)
    version = retrain(survey)
    if version is None:
        raise RuntimeError(f"{survey.slug}: {n} seed reports published no model; seed more respondents")
    # ModelVersion.save refuses changes; a queryset update dates the fixture's version before today.
    ModelVersion.objects.filter(pk=version.pk).update(created_at=midnight - datetime.timedelta(hours=1))
    return n


@dataclass
class Prepared:
    """The benchmark's surveys and request stream: ``bodies[i]`` (JSON bytes ``{"report": …}``) goes to
    ``slugs[i]``'s report API — unless ``respondents[i]`` is a token survey's respondent, who redeems and then sends
    that report with its credential (the floor peer gets ``bodies[i]`` alone)."""

    surveys: dict[str, Survey]
    seeded: dict[str, int]
    slugs: list[str]
    bodies: list[bytes]
    respondents: list[tokens.TokenRespondent | None] = field(default_factory=list)

    def label(self, slug: str) -> str:
        return next(m.label for m in MECHANISMS if m.slug == slug)

    def invitations(self, slug: str) -> bool:
        return self.surveys[slug].access == Survey.Access.TOKENS


def prepare(total: int, seed_reports: int, rng: np.random.Generator, mechanisms=MECHANISMS) -> Prepared:
    """Create and seed one survey per mechanism, then draw ``total`` payloads, spread evenly over the surveys and
    shuffled into one interleaved stream (what many browsers answering different surveys look like)."""
    surveys, seeded, per_slug = {}, {}, {}
    for i, mechanism in enumerate(mechanisms):
        survey = create_survey(mechanism)
        seeded[survey.slug] = seed(survey, mechanism.dataset, seed_reports, rng)
        count = total // len(mechanisms) + (1 if i < total % len(mechanisms) else 0)
        payloads = respondents(survey, mechanism.dataset, count, rng)
        bodies = [json.dumps({"report": p}, separators=(",", ":")).encode() for p in payloads]
        if mechanism.invitations:
            tokens.open_with_tokens(survey)
            per_slug[survey.slug] = list(zip(bodies, tokens.prepare(survey, payloads), strict=True))
        else:
            per_slug[survey.slug] = [(body, None) for body in bodies]
        surveys[survey.slug] = survey
    stream = [(slug, item) for slug, items in per_slug.items() for item in items]
    order = rng.permutation(len(stream))
    return Prepared(surveys, seeded, [stream[i][0] for i in order], [stream[i][1][0] for i in order],
                    [stream[i][1][1] for i in order])
