"""Adaptive allocation's first days (docs/allocation.md): the assignment the survey's public reference sample sets
until the first model is published. The sample is public (the designer uploads it), so weights computed from it
cost no privacy; the engine computes them (``LDPProtocol.pilot_assignment``)."""
from __future__ import annotations

import math

from aggregator.privacy.skip import apply_rows

from .models import NOT_ASKED, PREFER_NOT_TO_SAY, Survey, skip_rules
from .protocol import get_protocol


def _sample_records(survey: Survey, protocol):
    """The reference sample as question-order records and class codes (``protocol.records``): a question's empty
    cells are its “Prefer not to say” when it offers one, else its “Not asked” when it is shown on a condition; a row
    that would not be shown a question has its “Not asked” (skip logic, as the browser sends it)."""
    from survey_app.tables import read_csv

    survey.reference_sample.open("rb")
    try:
        frame = read_csv(survey.reference_sample)
    finally:
        survey.reference_sample.close()
    columns = {}
    questions = list(survey.questions.prefetch_related("choices"))
    for q in questions:
        for name in q.feature_names():
            if name in frame.columns:
                fill = PREFER_NOT_TO_SAY if q.prefer_not_to_say else NOT_ASKED if q.show_if_question_id else ""
                columns[name] = [fill if isinstance(c, float) and math.isnan(c) else c for c in frame[name]]
    X, y = protocol.records(columns)
    return apply_rows(X, skip_rules(questions)), y


def fit_pilot(survey: Survey) -> list[float] | None:
    """Compute and store ``survey.pilot_assignment`` from its reference sample (``None``, stored, without adaptive
    allocation or without a sample); ``ValueError`` naming what does not fit (``_sample_records``)."""
    assignment = None
    if survey.pilot_assignment is not None:  # a sample that no longer fits must not leave the old assignment behind
        survey.pilot_assignment = None
        survey.save(update_fields=["pilot_assignment"])
    if not survey.reference_sample or survey.allocation != Survey.Allocation.ADAPTIVE:
        return None  # nothing to fit: an incomplete draft is not an error here
    protocol = get_protocol(survey)
    if protocol.publishes_assignment:
        assignment = protocol.pilot_assignment(*_sample_records(survey, protocol))
    survey.pilot_assignment = assignment
    survey.save(update_fields=["pilot_assignment"])
    return assignment


def fit_reference_counts(survey: Survey) -> list | None:
    """Compute and store ``survey.reference_counts`` — the reference sample's answers per class, per question, that
    the model starts from (``ldp.reference_prior``; ``LDPProtocol.reference_counts``) — or ``None``, stored, without
    that setting or without a sample; ``ValueError`` naming what does not fit."""
    if survey.reference_counts is not None:  # a sample that no longer fits must not leave the old counts behind
        survey.reference_counts = None
        survey.save(update_fields=["reference_counts"])
    if not survey.reference_sample or not survey.reference_prior:
        return None
    if not survey.questions.filter(is_class=True).exists() or not survey.questions.filter(is_class=False).exists():
        return None  # an incomplete draft is not an error here: its questions come first
    protocol = get_protocol(survey)
    counts = protocol.reference_counts(*_sample_records(survey, protocol))
    survey.reference_counts = counts
    survey.save(update_fields=["reference_counts"])
    return counts
