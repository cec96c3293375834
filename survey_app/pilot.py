"""Adaptive allocation's first days (docs/allocation.md): the assignment the survey's public reference sample sets
until the first model is published. The sample is public (the designer uploads it), so weights computed from it
cost no privacy; the engine computes them (``LDPProtocol.pilot_assignment``)."""
from __future__ import annotations

import math

from aggregator.privacy.skip import apply_rows

from .models import NOT_ASKED, PREFER_NOT_TO_SAY, Survey, skip_rules
from .protocol import get_protocol


def fit_pilot(survey: Survey) -> list[float] | None:
    """Compute and store ``survey.pilot_assignment`` from its reference sample (``None``, stored, without adaptive
    allocation or without a sample); ``ValueError`` naming what does not fit. A question's empty cells are its
    “Prefer not to say” when it offers one, else its “Not asked” when it is shown on a condition; a row that would not
    be shown a question has its “Not asked” (skip logic, as the browser sends it)."""
    from survey_app.tables import read_csv

    assignment = None
    if survey.pilot_assignment is not None:  # a sample that no longer fits must not leave the old assignment behind
        survey.pilot_assignment = None
        survey.save(update_fields=["pilot_assignment"])
    if not survey.reference_sample or survey.allocation != Survey.Allocation.ADAPTIVE:
        return None  # nothing to fit: an incomplete draft is not an error here
    protocol = get_protocol(survey)
    if protocol.publishes_assignment:
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
        assignment = protocol.pilot_assignment(apply_rows(X, skip_rules(questions)), y)
    survey.pilot_assignment = assignment
    survey.save(update_fields=["pilot_assignment"])
    return assignment
