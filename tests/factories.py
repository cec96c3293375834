"""Test factories: the surveys and simulated reports that tests in several folders build (plain functions).

The health survey (``make_survey``) is the one most database tests use: smoker (never / sometimes / daily), age
(numeric, 18 to 98) and the class "sick" (no / yes). Reports are simulated through the survey's own protocol
(``survey_app.protocol.get_protocol``), so they are exactly what a browser would send.
"""
from __future__ import annotations

import datetime
import json

import numpy as np

from survey_app.models import Choice, PendingReport, Question, Survey
from survey_app.protocol import get_protocol

SMOKER_LABELS = ("never", "sometimes", "daily")


def after_midnight(days: int = 1) -> datetime.datetime:
    """A moment ``days`` UTC days after today's start, past the closing grace (``services.close_grace``): a retrain
    ``now=after_midnight()`` closes today, so a model includes today's reports (models include closed days only)."""
    from aggregator.services import close_grace

    today = datetime.datetime.now(datetime.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return today + datetime.timedelta(days=days) + close_grace() + datetime.timedelta(minutes=1)


def pass_days(monkeypatch, days: int = 1) -> None:
    """From now on in this test, the fold's clock (``services.closable_through``) runs ``days`` days ahead, as a
    worker's would ``days`` days later: for code that reads the clock itself (tasks, jobs, views)."""
    from aggregator import services

    real = getattr(services.closable_through, "real", services.closable_through)

    def ahead(now=None):
        return real(after_midnight(days))

    ahead.real = real  # type: ignore[attr-defined]
    monkeypatch.setattr(services, "closable_through", ahead)


def folded(survey: Survey):
    """The survey's ``SurveyStatistics`` row with every folded day closed, in memory only (``services.close_days``):
    the sums and counts of all the reports folded so far, whatever their day."""
    from aggregator import services
    from aggregator.models import SurveyStatistics

    row = SurveyStatistics.objects.get(survey=survey)
    services.close_days(get_protocol(survey), row, now=after_midnight(30))
    return row


def published_yesterday(survey: Survey):
    """Fold the survey's reports and publish a model as if they had arrived three days ago and the model had been
    published yesterday: the version validation respondents evaluate today. Returns it (``None`` if none)."""
    from aggregator import services
    from aggregator.models import ModelVersion

    days_pass(survey, 3)
    version = services.retrain(survey)
    days_pass(survey, 1)
    return None if version is None else ModelVersion.objects.get(pk=version.pk)


def days_pass(survey: Survey, days: int = 2) -> None:
    """Move the survey's whole stored history ``days`` UTC days back — inbox and reports (``received_on``), partial
    and day statistics, model versions (``created_at``, ``through_day``) — as if that many days had passed: a retrain
    by the real clock (a Celery worker's, in another process) then closes the days that were open. Two days by
    default, so that it holds even within the closing grace just after midnight."""
    from django.db.models import F

    from aggregator.models import ModelVersion, PartialStatistics, SurveyStatistics
    from survey_app.models import Report

    delta = datetime.timedelta(days=days)
    for model in (PendingReport, Report):
        model.objects.filter(survey=survey).update(received_on=F("received_on") - delta)
    PartialStatistics.objects.filter(survey=survey, day__isnull=False).update(day=F("day") - delta)
    ModelVersion.objects.filter(survey=survey).update(created_at=F("created_at") - delta)
    ModelVersion.objects.filter(survey=survey, through_day__isnull=False).update(through_day=F("through_day") - delta)
    row = SurveyStatistics.objects.filter(survey=survey).first()
    if row is not None:
        if row.closed_through is not None:
            row.closed_through -= delta
        row.open_days = {(datetime.date.fromisoformat(d) - delta).isoformat(): v for d, v in row.open_days.items()}
        row.save()


def make_survey(slug="health", mode="ldp", encoding="oue", access="link", status="open", **fields) -> Survey:
    """An open health survey (ε = 1, θ = 0.7): smoker at position 1, age at 2, class sick last (position 9)."""
    survey = Survey.objects.create(title="Health", slug=slug, mode=mode, epsilon=1.0, theta=0.7, encoding=encoding,
                                   access=access, status=status, **fields)
    Question.objects.create(survey=survey, name="sick", text="Are you sick?", kind="binary", is_class=True, position=9)
    _smoker(survey, text="Do you smoke?", position=1)
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=2)
    return survey


def make_draft_survey(**fields) -> Survey:
    """A health survey with only the class sick (position 0) and smoker (position 1), every setting not given at the
    model's default (a draft, no θ): for configuration checks, cloning and tokens."""
    settings = dict(title="Health", slug="health", mode=Survey.Mode.LDP, epsilon=1.0, encoding=Survey.Encoding.OUE)
    survey = Survey.objects.create(**{**settings, **fields})
    Question.objects.create(survey=survey, name="sick", text="Are you sick?", kind=Question.Kind.BINARY, is_class=True)
    _smoker(survey, text="Do you smoke?", position=1)
    return survey


def make_habits_survey(mode: str, encoding: str = "oue") -> Survey:
    """The health questions as a respondent reads them in a browser, on two pages ("Habits", "About you"), θ = 0.6,
    and no validation share: every respondent sends a training report (the browser tests rely on it)."""
    survey = Survey.objects.create(title="Habits", slug=f"habits-{mode}-{encoding}", mode=mode, epsilon=1.0, theta=0.6,
                                   encoding=encoding, status="open", validation_share=0.0)
    _smoker(survey, text="Do you smoke?", position=0, section="Habits")
    Question.objects.create(survey=survey, name="age", text="Your age", kind="numeric", low=18, high=98, position=1,
                            section="About you")
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=2, section="About you")
    return survey


def _smoker(survey: Survey, **fields) -> Question:
    question = Question.objects.create(survey=survey, name="smoker", **{"kind": "categorical", **fields})
    for i, label in enumerate(SMOKER_LABELS):
        Choice.objects.create(question=question, label=label, position=i)
    return question


def health_answers(rng: np.random.Generator, n: int) -> np.ndarray:
    """n respondents' true (smoker code, age) rows: smoker uniform over the three labels, age uniform on [18, 98]."""
    return np.column_stack([rng.integers(0, 3, n), rng.uniform(18, 98, n)])


def simulated_reports(survey: Survey, n=5, seed=0) -> list:
    """n training reports of a health survey (not stored), the class drawn at random."""
    rng = np.random.default_rng(seed)
    X = health_answers(rng, n)
    y = rng.integers(0, 2, n)
    return get_protocol(survey).encode(X, y, rng)


def add_reports(survey: Survey, n, seed=0) -> list[PendingReport]:
    """n simulated training reports stored straight in the inbox (as the report API does): smoker ∈ {never,
    sometimes, daily}, age ∈ [18, 98], class sick ∈ {no, yes}, daily smokers sick (a learnable pattern)."""
    rng = np.random.default_rng(seed)
    X = health_answers(rng, n)
    y = (X[:, 0] == 2).astype(np.int64)
    reports = get_protocol(survey).encode(X, y, rng)
    return PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=r) for r in reports])


def add_respondents(survey: Survey, n, seed=0) -> list[PendingReport]:
    """Like ``add_reports``, but n respondents through ``encode_respondents``: MRR surveys get their validation share
    of validation records too."""
    rng = np.random.default_rng(seed)
    X = health_answers(rng, n)
    y = (X[:, 0] == 2).astype(np.int64)
    reports = get_protocol(survey).encode_respondents(X, y, rng)
    return PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=r) for r in reports])


def redeem_credential(survey: Survey, token: str | None = None) -> dict:
    """A token survey's report credential, obtained as a browser does (issue 11): a fresh invitation token (or
    ``token``) redeemed through the service with a blinded message (``survey_app.credentials``' client half), the
    blind signature unblinded. The token is used afterwards; the returned ``{"value", "signature", "key_id"}`` goes
    into the report body as ``"credential"``."""
    from survey_app.credentials import finish_credential, public_credential, redeem, start_credential
    from survey_app.services import generate_tokens

    if token is None:
        token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    redemption = redeem(survey.slug, token, blinded, pending.key_id)
    if redemption.blind_signature is None:
        raise AssertionError(f"redemption refused: {redemption.outcome}")
    return finish_credential(pending, redemption.blind_signature)


#: A small planner form as the dashboard posts it (vote data, OUE and MRR, two settings each, two repetitions).
PLANNER_FORM = {"dataset": "vote", "methods": ["oue", "mrr"], "epsilons": "1, 4", "thetas": "0.7, 0.9", "reps": "2",
                "target": "0.8", "class_column": ""}


#: The question types survey (issue 12 item 4): 13 countries (a dropdown by "auto"), a 5-point agreement scale with
#: "Prefer not to say", and a select-all question (3 sports, "Prefer not to say"); the class "sick".
COUNTRIES = ("Austria", "Belgium", "Croatia", "Denmark", "Estonia", "France", "Germany", "Hungary", "Ireland", "Italy",
             "Latvia", "Malta", "Norway")
AGREEMENT = ("Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree")
SPORTS = ("running", "swimming", "cycling")


def make_types_survey(mode: str = "ldp", encoding: str = "oue", **fields) -> Survey:
    """An open survey with a dropdown (country), an ordered scale (agree) and a select-all question (sports; with
    "Prefer not to say" except under MRR), then the class sick, on one page; no validation share (every respondent
    trains)."""
    settings = dict(title="Types", slug=f"types-{mode}-{encoding}", mode=mode, epsilon=1.0, theta=0.6,
                    encoding=encoding, status="open", validation_share=0.0)
    survey = Survey.objects.create(**{**settings, **fields})
    country = Question.objects.create(survey=survey, name="country", text="Where do you live?", position=0)
    agree = Question.objects.create(survey=survey, name="agree", text="I sleep well.", position=1, style="scale",
                                    prefer_not_to_say=True)
    # Under MRR a select-all question offers no "Prefer not to say" (survey_app.models.MULTI_PREFER_NOT_UNDER_MRR).
    sports = Question.objects.create(survey=survey, name="sports", text="Which of these do you do every week?",
                                     kind="multi", position=2, prefer_not_to_say=survey.mode != "mrr")
    for question, labels in ((country, COUNTRIES), (agree, AGREEMENT), (sports, SPORTS)):
        Choice.objects.bulk_create([Choice(question=question, label=label, position=i)
                                    for i, label in enumerate(labels)])
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=3)
    return survey


DRINKS = ("coffee", "tea", "water", "juice", "milk")


def make_widgets_survey(slug: str = "widgets", **fields) -> Survey:
    """An open LDP survey on three pages: a matrix of two agreement items (rested, dreams; "Sleep"), then a slider
    for hours of sleep (0 to 12 by 0.5) and a drink to choose ("Habits"), then the class sick ("You"); no validation
    share."""
    settings = dict(title="Widgets", slug=slug, mode="ldp", epsilon=1.0, encoding="oue", status="open",
                    validation_share=0.0)
    survey = Survey.objects.create(**{**settings, **fields})
    rows = [Question.objects.create(survey=survey, name=name, text=text, position=i, section="Sleep", style="scale",
                                    matrix="How much do you agree?")
            for i, (name, text) in enumerate((("rested", "I wake up rested."), ("dreams", "I remember my dreams.")))]
    Question.objects.create(survey=survey, name="hours", text="How many hours do you sleep?", kind="numeric",
                            style="slider", low=0.0, high=12.0, step=0.5, position=2, section="Habits")
    drink = Question.objects.create(survey=survey, name="drink", text="What do you drink in the evening?",
                                    position=3, section="Habits", prefer_not_to_say=True)
    for question, labels in ((rows[0], AGREEMENT), (rows[1], AGREEMENT), (drink, DRINKS)):
        Choice.objects.bulk_create([Choice(question=question, label=label, position=i)
                                    for i, label in enumerate(labels)])
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=4, section="You")
    return survey


def make_designer(name: str):
    """A staff user with every permission on surveys, questions, choices and invitations (a survey designer)."""
    from django.contrib.auth.models import Permission, User

    user = User.objects.create_user(name, password="pw", is_staff=True)
    codenames = [f"{action}_{model}" for action in ("add", "change", "view", "delete")
                 for model in ("survey", "question", "choice", "invitationtoken")]
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def informative_mushroom(directory):
    """A copy (in ``directory``) of the mushroom data without its veil-type column, whose one value ("partial")
    makes a question with a single possible answer, which the import refuses; the path of the copy. The simulated
    respondents may read the whole file (``simulate`` reads the survey's columns only)."""
    from pathlib import Path

    from aggregator.lab.datasets import DATASETS_DIR
    from survey_app.tables import read_csv

    path = Path(directory) / "mushroom-informative.csv"
    read_csv(DATASETS_DIR / "mushroom.csv").drop(columns=["veil-type"]).to_csv(path, index=False)
    return path


#: The skip-logic survey's conditional question: its choices ("Prefer not to say" and "Not asked" follow).
CIGARETTE_LABELS = ("1 to 5", "6 to 20", "more than 20")


def make_skip_survey(mode: str = "ldp", encoding: str = "oue", slug: str | None = None, status: str = "open") -> Survey:
    """A survey with skip logic on one page: smoker (never / sometimes / daily), then cigarettes a day — shown only to
    those who smoke sometimes or daily, with “Prefer not to say” — then the class sick (no / yes). Open (or
    ``status``), ε = 1, θ = 0.6, no validation share."""
    survey = Survey.objects.create(title="Smoking", slug=slug or f"smoking-{mode}-{encoding}", mode=mode, epsilon=1.0,
                                   theta=0.6, encoding=encoding, status=status, validation_share=0.0)
    smoker = _smoker(survey, text="Do you smoke?", position=0)
    cigarettes = Question.objects.create(
        survey=survey, name="cigarettes", text="How many cigarettes a day?", kind="categorical", position=1,
        prefer_not_to_say=True, show_if_question=smoker, show_if_answers=["sometimes", "daily"])
    for i, label in enumerate(CIGARETTE_LABELS):
        Choice.objects.create(question=cigarettes, label=label, position=i)
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=2)
    return survey


def distinct_reports(survey: Survey, n: int, seed: int, batch: int = 50) -> list[dict]:
    """``n`` training reports of simulated health respondents (``health_answers``, drawn ``batch`` at a time),
    pairwise distinct, so that each stored report has one sender."""
    protocol, rng = get_protocol(survey), np.random.default_rng(seed)
    out: list[dict] = []
    seen: set[str] = set()
    while len(out) < n:
        X = health_answers(rng, batch)
        for report in protocol.encode(X, (X[:, 0] == 2).astype(np.int64), rng):
            key = json.dumps(report, sort_keys=True)
            if key not in seen and len(out) < n:
                seen.add(key)
                out.append(report)
    return out
