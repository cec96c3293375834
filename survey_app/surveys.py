"""The public survey, as every report POST and redemption looks it up (``find_public_survey``), cached per row
version."""
from __future__ import annotations

import copy

from django.db import connection

from .models import Survey

#: Surveys ``find_public_survey`` read, by slug: (row version, survey). PostgreSQL only; bounded; shared by threads.
_SURVEYS: dict[str, tuple[tuple, Survey]] = {}
_SURVEYS_SIZE = 1024


def find_public_survey(slug: str) -> Survey | None:
    """The open or closed survey ``slug`` (drafts are not public), or ``None``.

    Every report POST calls this, and building a ``Survey`` through the ORM cost several times the query itself
    (bench/load measures the report path). So on PostgreSQL one two-column SELECT reads the row's version — its id,
    ``xmin`` (the transaction that wrote it) and ``ctid`` (where; each UPDATE writes a new tuple, so even updates
    within one transaction change it) — and a survey read at that version is reused, as a copy. Any committed or
    own change to the row, by ``save``, ``update_fields``, ``QuerySet.update`` or SQL, makes a new version, which
    reads the whole row again. Other databases (the embedded SQLite) read the whole row every time."""
    def read():
        return Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()

    if connection.vendor != "postgresql":
        return read()
    table = connection.ops.quote_name(Survey._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, xmin::text, ctid::text FROM {table} WHERE slug = %s AND status <> %s",
                       [slug, Survey.Status.DRAFT])
        version = cursor.fetchone()
    if version is None:
        return None
    cached = _SURVEYS.get(slug)
    if cached is not None and cached[0] == version:
        return copy.copy(cached[1])
    survey = read()  # read after the version: if newer, the next call's version differs
    if survey is not None:
        if len(_SURVEYS) >= _SURVEYS_SIZE:
            _SURVEYS.clear()
        _SURVEYS[slug] = (version, copy.copy(survey))
    return survey
