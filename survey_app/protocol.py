"""The bridge from a ``Survey`` to the engine: its configuration dict and its (cached) protocol object.

Cache: ``get_protocol`` keeps each worker process's protocols by *survey version* — the survey's id and every field
of its row, ``updated_at`` included — so a report POST reads no question and builds nothing (the configuration
costs two queries, and the protocol a construction of every mechanism). Any change to the survey row
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

from aggregator.privacy import protocol as engine

from .models import Choice, Question, Survey, protocol_config


@lru_cache(maxsize=256)
def _build(config_json: str) -> engine.SurveyProtocol:
    return engine.build(json.loads(config_json))


#: Protocols by survey version, least recently used first; shared by a worker's threads.
_BY_VERSION: OrderedDict = OrderedDict()
_BY_VERSION_SIZE = 256
_BY_VERSION_LOCK = threading.Lock()


def survey_version(survey: Survey) -> tuple:
    """What identifies the configuration of ``survey`` without reading its questions: its id and every field of its
    row (``updated_at`` moves with its questions and choices; settings saved with ``update_fields`` still count)."""
    fields = [f.value_from_object(survey) for f in Survey._meta.concrete_fields]
    return survey.pk, json.dumps(fields, sort_keys=True, default=str)


def get_protocol(survey: Survey) -> engine.SurveyProtocol:
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


def build_protocol(survey: Survey) -> engine.SurveyProtocol:
    """The engine protocol of ``survey``'s settings as they are in memory (saved or not) with its saved questions,
    cached by configuration only: the designer's workspace asks it of settings being edited."""
    return _build(json.dumps(protocol_config(survey), sort_keys=True))


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
