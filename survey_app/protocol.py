"""The bridge from a ``Survey`` to the engine: its configuration dict and its (cached) protocol object."""
from __future__ import annotations

from functools import lru_cache
import json

from aggregator.privacy import survey_protocol

from .models import Question, Survey


def _attribute_config(question: Question) -> dict:
    if question.kind == Question.Kind.NUMERIC:
        return {"kind": "numeric", "name": question.name, "low": question.low, "high": question.high}
    return {"kind": "categorical", "name": question.name, "values": question.labels()}


def protocol_config(survey: Survey) -> dict:
    """The engine configuration of ``survey`` (see ``aggregator.privacy.survey_protocol``).

    MRR attribute groups come from the questions' ``group`` numbers; declared personal distributions from the choices'
    ``personal_probability`` (uniform when any is missing, for numeric bins, or with “Prefer not to say”)."""
    questions = list(survey.questions.prefetch_related("choices"))
    class_questions = [q for q in questions if q.is_class]
    features = [q for q in questions if not q.is_class]
    config = {
        "mode": survey.mode,
        "class": _attribute_config(class_questions[0]) if class_questions else None,
        "features": [_attribute_config(q) for q in features],
        "numeric": (
            {"handling": "gaussian", "approach": survey.gaussian_approach}
            if survey.mode == Survey.Mode.LDP and survey.numeric_handling == Survey.NumericHandling.GAUSSIAN
            else {"handling": "discretize", "bins": survey.numeric_bins}
        ),
    }
    if survey.mode == Survey.Mode.LDP and survey.projection != Survey.Projection.NONE and survey.projection_params:
        config["projection"] = survey.projection_params
    if survey.mode == Survey.Mode.LDP:
        config["ldp"] = {
            "epsilon": survey.epsilon,
            "encoding": survey.encoding,
            "threshold": survey.the_threshold,
            "strategy": survey.strategy,
            "postprocess": survey.postprocess,
        }
    else:
        groups: dict[int, list[str]] = {}
        for q in questions:
            groups.setdefault(q.group, []).append(q.name)
        personal = {}
        for q in questions:
            probs = [c.personal_probability for c in q.choices.all()]
            if q.kind == Question.Kind.CATEGORICAL and probs and all(p is not None for p in probs) and not q.prefer_not_to_say:
                personal[q.name] = probs
        config["mrr"] = {
            "theta": survey.theta,
            "groups": [groups[g] for g in sorted(groups)] if len(groups) > 1 else None,
            "personal": personal,
            "personal_mode": {q.name: q.personal_mode for q in questions},
            "postprocess": survey.postprocess,
        }
    return config



@lru_cache(maxsize=256)
def _build(config_json: str) -> survey_protocol.SurveyProtocol:
    return survey_protocol.build(json.loads(config_json))


def get_protocol(survey: Survey) -> survey_protocol.SurveyProtocol:
    """The engine protocol of ``survey``, cached by configuration (building one costs a few milliseconds)."""
    return _build(json.dumps(protocol_config(survey), sort_keys=True))
