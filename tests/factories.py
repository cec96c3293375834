"""Test factories: the surveys and simulated reports that tests in several folders build (plain functions).

The health survey (``make_survey``) is the one most database tests use: smoker (never / sometimes / daily), age
(numeric, 18 to 98) and the class "sick" (no / yes). Reports are simulated through the survey's own protocol
(``survey_app.protocol.get_protocol``), so they are exactly what a browser would send.
"""
from __future__ import annotations

import numpy as np

from survey_app.models import Choice, PendingReport, Question, Survey
from survey_app.protocol import get_protocol

SMOKER_LABELS = ("never", "sometimes", "daily")


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
