"""The public survey, as every report POST and redemption looks it up, cached per row version.

On PostgreSQL a survey's *row version* is its id, ``xmin`` (the transaction that wrote the row) and ``ctid`` (where;
each UPDATE writes a new tuple, so even updates within one transaction change it): any committed or own change to
the row, by ``save``, ``update_fields``, ``QuerySet.update`` or SQL, makes a new version. A process keeps the survey
it read at each version (``PublicSurvey``, in a ``BoundedCache`` by slug) and reuses it:

* ``read_public_survey`` reads the version (one two-column SELECT) and the whole row only when it is new;
* ``cached_public_survey`` reads nothing: the entry this process read last. The respondents' writes use it and put
  the version into their own statement (``version_guard``): the row is written only if the survey is still at that
  version, so a report or a redemption costs one statement, and a changed survey is read again and the request
  judged against it (``survey_app.reports``, ``survey_app.credentials``).

Other databases (the embedded SQLite) read the whole row every time and cache nothing.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from .caching import BoundedCache
from .models import Survey


@dataclass(frozen=True, eq=False)
class PublicSurvey:
    """An open or closed survey as read at one row version (``None`` off PostgreSQL). ``survey`` is shared by the
    process's threads: read it, never change it (``find_public_survey`` hands out copies). ``memo`` holds what is
    derived from this version alone (its engine protocol: ``survey_app.reports.protocol_of``)."""

    survey: Survey
    version: tuple | None
    memo: dict[str, Any] = field(default_factory=dict)


#: The ``PublicSurvey`` last read, by slug (PostgreSQL only).
_SURVEYS: BoundedCache[str, PublicSurvey] = BoundedCache(1024)


def _read_row(slug: str) -> Survey | None:
    return Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()


def read_public_survey(slug: str) -> PublicSurvey | None:
    """The open or closed survey ``slug`` (drafts are not public) as it is now, or ``None``: one SELECT of its row
    version, and the whole row only for a version this process has not read (module docstring)."""
    if connection.vendor != "postgresql":
        survey = _read_row(slug)
        return None if survey is None else PublicSurvey(survey, None)
    table = connection.ops.quote_name(Survey._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, xmin::text, ctid::text FROM {table} WHERE slug = %s AND status <> %s",
                       [slug, Survey.Status.DRAFT])
        version = cursor.fetchone()
    if version is None:
        return None
    cached = _SURVEYS.get(slug)
    if cached is not None and cached.version == version:
        return cached
    survey = _read_row(slug)  # read after the version: if newer, the next call's version differs
    if survey is None:
        return None
    return _SURVEYS.put(slug, PublicSurvey(survey, version))


def cached_public_survey(slug: str) -> PublicSurvey | None:
    """The survey ``slug`` as this process last read it (``read_public_survey``), without a query; ``None`` when it
    has not, or off PostgreSQL. It may be out of date: a write made with it carries ``version_guard``."""
    return _SURVEYS.get(slug)


def find_public_survey(slug: str) -> Survey | None:
    """The open or closed survey ``slug`` as it is now (``read_public_survey``), a copy the caller may change; or
    ``None``."""
    found = read_public_survey(slug)
    return None if found is None else copy.copy(found.survey)


def version_guard(found: PublicSurvey) -> tuple[str, list]:
    """A SQL condition (and its parameters) true while the survey of ``found`` is still at its row version: a write
    statement that carries it writes nothing once the survey has changed. PostgreSQL only."""
    if found.version is None:
        raise ValueError("row versions are PostgreSQL's")
    table = connection.ops.quote_name(Survey._meta.db_table)
    survey_id, xmin, ctid = found.version
    return (f"EXISTS (SELECT 1 FROM {table} WHERE id = %s AND xmin::text = %s AND ctid::text = %s)",
            [survey_id, xmin, ctid])


def still_current(found: PublicSurvey) -> bool:
    """Whether the survey of ``found`` is still at its row version (one SELECT; always true off PostgreSQL, where
    ``found`` was read in this request)."""
    if found.version is None:
        return True
    now = read_public_survey(found.survey.slug)
    return now is not None and now.version == found.version
