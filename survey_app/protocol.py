"""The bridge from a ``Survey`` to the engine: its configuration dict and its (cached) protocol object.

Cache: ``get_protocol`` keeps each worker process's protocols by *survey version* — the survey's id and every field
of its row, ``updated_at`` included — so a report POST reads no question and builds nothing (the configuration
costs two queries and the protocol a few milliseconds; this was most of a POST's time). Any change to the survey row
is a new version. Questions and choices live in other rows, so saving or deleting one (admin, inlines, ORM
``save``/``delete``) bumps its survey's ``updated_at`` by a post_save/post_delete receiver below: other processes see
the new version on their next read of the survey, with no cross-process invalidation. Connected at import; this
module is imported by ``survey_app.admin``, which the admin app autodiscovers in every process. Bulk writes that
send no signals (``QuerySet.update``, ``bulk_create``) on the questions of an existing survey must bump
``updated_at`` themselves (``clone_survey`` and ``create_survey_from_table`` only write new surveys).
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import lru_cache

from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from django.utils.translation import gettext

from aggregator.privacy import survey_protocol
from aggregator.privacy.protocol.config import ConfigError

from .models import MULTI_PREFER_NOT_UNDER_MRR, Choice, Question, Survey


def _attribute_config(question: Question) -> dict:
    if question.kind == Question.Kind.NUMERIC:
        return {"kind": "numeric", "name": question.name, "low": question.low, "high": question.high}
    return {"kind": "categorical", "name": question.name, "values": question.labels()}


def _feature_configs(question: Question) -> list[dict]:
    """The engine's features of ``question``: one attribute, or for a select-all question one no/yes attribute per
    choice (``Question.feature_names``), so that every mechanism handles it unchanged."""
    if question.kind == Question.Kind.MULTI:
        return [{"kind": "categorical", "name": name, "values": question.labels()} for name in question.feature_names()]
    return [_attribute_config(question)]


def _personal_distributions(q: Question) -> dict[str, list[float]]:
    """The declared personal distributions of ``q``'s features (MRR): a categorical question's choices' shares; a
    select-all question's choice share p is its yes/no feature's [1 − p, p]. None with “Prefer not to say”."""
    probs = [c.personal_probability for c in q.choices.all()]
    if q.prefer_not_to_say or not probs or any(p is None for p in probs):
        return {}
    if q.kind == Question.Kind.CATEGORICAL:
        return {q.name: probs}
    if q.kind == Question.Kind.MULTI:
        return {name: [1.0 - p, p] for name, p in zip(q.feature_names(), probs, strict=True)}
    return {}


def settings_config(survey: Survey, questions: list[Question] | None = None) -> dict:
    """The engine configuration of ``survey`` without its questions: every privacy setting, and given its
    ``questions`` also the MRR attribute groups (their ``group`` numbers) and declared personal distributions (the
    choices' ``personal_probability``; uniform when any is missing, for numeric bins, or with “Prefer not to say”).
    ``Survey.clean`` checks it (``survey_protocol.check_settings``); ``protocol_config`` adds the questions."""
    config = {
        "mode": survey.mode,
        "numeric": (
            {"handling": "gaussian", "approach": survey.gaussian_approach}
            if survey.mode == Survey.Mode.LDP and survey.numeric_handling == Survey.NumericHandling.GAUSSIAN
            else {"handling": "discretize", "bins": survey.numeric_bins}
        ),
        "validation": {"share": survey.validation_share},
    }
    if survey.mode == Survey.Mode.LDP and survey.projection != Survey.Projection.NONE and survey.projection_params:
        config["projection"] = survey.projection_params
    if survey.mode == Survey.Mode.LDP:
        config["ldp"] = {
            "epsilon": survey.epsilon,
            "encoding": survey.encoding,
            "parameters": survey.encoding_parameters or {},
            "strategy": survey.strategy,
            "postprocess": survey.postprocess,
            "allocation": survey.allocation,
        }
    else:
        config["mrr"] = {"theta": survey.theta, "postprocess": survey.postprocess}
        if questions is not None:
            groups: dict[int, list[str]] = {}
            # A select-all question's yes/no features are in its group, with its personal mode (simulated).
            for q in questions:
                for name in q.feature_names():  # none for a select-all question without choices yet
                    groups.setdefault(q.group, []).append(name)
            personal = {}
            for q in questions:
                personal.update(_personal_distributions(q))
            config["mrr"].update({
                "groups": [groups[g] for g in sorted(groups)] if len(groups) > 1 else None,
                "personal": personal,
                "personal_mode": {name: q.personal_mode for q in questions for name in q.feature_names()},
            })
    return config


def protocol_config(survey: Survey) -> dict:
    """The engine configuration of ``survey`` (see ``aggregator.privacy.survey_protocol``): its settings
    (``settings_config``) and its questions."""
    questions = list(survey.questions.prefetch_related("choices"))
    if survey.mode == Survey.Mode.MRR and any(q.kind == Question.Kind.MULTI and q.prefer_not_to_say
                                              for q in questions):
        raise ConfigError("features", str(MULTI_PREFER_NOT_UNDER_MRR))
    for q in questions:  # what a question saved without its checks (its own page, a bulk write) can still lack
        if q.kind == Question.Kind.MULTI and len(q.choices.all()) < 2:
            raise ConfigError("features", gettext("the select-all question “%(name)s” needs at least 2 choices")
                              % {"name": q.name})
        if q.kind == Question.Kind.NUMERIC and (q.low is None or q.high is None):
            raise ConfigError("features", gettext("the numeric question “%(name)s” needs public lower and upper "
                                                  "bounds") % {"name": q.name})
    class_questions = [q for q in questions if q.is_class]
    features = [q for q in questions if not q.is_class]
    return {
        "class": _attribute_config(class_questions[0]) if class_questions else None,
        "features": [config for q in features for config in _feature_configs(q)],
        **settings_config(survey, questions),
    }


@lru_cache(maxsize=256)
def _build(config_json: str) -> survey_protocol.SurveyProtocol:
    return survey_protocol.build(json.loads(config_json))


#: Protocols by survey version, least recently used first; shared by a worker's threads.
_BY_VERSION: OrderedDict = OrderedDict()
_BY_VERSION_SIZE = 256
_BY_VERSION_LOCK = threading.Lock()


def survey_version(survey: Survey) -> tuple:
    """What identifies the configuration of ``survey`` without reading its questions: its id and every field of its
    row (``updated_at`` moves with its questions and choices; settings saved with ``update_fields`` still count)."""
    fields = [f.value_from_object(survey) for f in Survey._meta.concrete_fields]
    return survey.pk, json.dumps(fields, sort_keys=True, default=str)


def get_protocol(survey: Survey) -> survey_protocol.SurveyProtocol:
    """The engine protocol of ``survey``, cached per survey version (module docstring) and by configuration."""
    key = survey_version(survey)
    with _BY_VERSION_LOCK:
        protocol = _BY_VERSION.get(key)
        if protocol is not None:
            _BY_VERSION.move_to_end(key)
            return protocol
    protocol = _build(json.dumps(protocol_config(survey), sort_keys=True))
    with _BY_VERSION_LOCK:
        _BY_VERSION[key] = protocol
        while len(_BY_VERSION) > _BY_VERSION_SIZE:
            _BY_VERSION.popitem(last=False)
    return protocol


def _cached_survey(instance) -> Survey | None:
    """The in-memory survey a question (or a choice's question) was made with, if it holds one."""
    if isinstance(instance, Choice):
        if not Choice.question.is_cached(instance):
            return None
        instance = instance.question
    return instance.survey if Question.survey.is_cached(instance) else None


def _touch_survey(sender, instance, **kwargs) -> None:
    """A question or choice was saved or deleted: bump its survey's ``updated_at`` (a new survey version), in the
    database and on the caller's survey object when the instance holds it."""
    now = timezone.now()
    if sender is Question:
        surveys = Survey.objects.filter(pk=instance.survey_id)
    else:
        surveys = Survey.objects.filter(questions__id=instance.question_id)
    surveys.update(updated_at=now)
    survey = _cached_survey(instance)
    if survey is not None:
        survey.updated_at = now


for _model in (Question, Choice):
    post_save.connect(_touch_survey, sender=_model, dispatch_uid=f"protocol-version-save-{_model.__name__}")
    post_delete.connect(_touch_survey, sender=_model, dispatch_uid=f"protocol-version-delete-{_model.__name__}")
