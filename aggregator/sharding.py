"""Scale-out: several workers fold disjoint shards of a survey's new reports, and their partial statistics are merged.

The single-transaction fold (``services.fold_new_reports``) holds the survey's statistics row for the whole fold, so a
second worker can only wait. For a large backlog, folding is split instead:

1. ``plan_shards`` cuts the new reports into id ranges ``[first_id, last_id]`` that tile the id line from the
   watermark + 1 up to a *safe bound* (below), ``shard_size`` reports of the survey each (the last one fewer).
2. ``fold_shard`` (one Celery task per range, on any worker) reads the range's reports and stores their additive
   statistics as one ``PartialStatistics`` row, in a transaction of its own.
3. ``services.merge_partials`` (the chord's body, or any later fold) adds the partials to ``SurveyStatistics`` in
   order — only a partial starting exactly at the watermark + 1, then the next one — and deletes them in the same
   transaction that advances the watermark, under the statistics row lock. The engine's statistics are additive, so
   the merge is exact: fold(A) + fold(B) = fold(A ∪ B).

Exactly once, whatever dies when:

* a worker killed inside ``fold_shard`` leaves no partial (its transaction never committed); the range is planned
  and folded again by the next retrain;
* a worker killed inside the merge leaves the statistics and every partial as they were (one transaction);
* a partial cannot be merged twice: merging moves the watermark to its ``last_id`` and deletes it in one transaction,
  and only a partial starting right after the watermark is ever merged; a shard folded twice (a redelivered task, or
  two retrains planning the same range) is stored once (``fold_shard`` skips a range already stored or merged, and
  the unique ``(survey, first_id)`` constraint settles a race); a partial left behind the watermark (its reports
  were folded another way, e.g. by ``fold_new_reports``) is never merged and is deleted by the next merge.

The safe bound (why a shard never misses a report): report ids are drawn from a sequence when the INSERT executes
but become visible when its transaction commits, so a report with a smaller id can become visible after a larger
one was read — a shard ending past it would leave it behind the watermark, never folded. So shards only cover ids
up to a bound read by ``services.safe_bound``: PostgreSQL takes an INSERT's ROW EXCLUSIVE lock on the report table
before it evaluates the id's ``nextval``, and the bound is read under a SHARE lock on that table, which is granted
only once every transaction holding ROW EXCLUSIVE — every insert that may have drawn an id — has ended, and which
blocks new ones while held. Under it, every id drawn so far is committed (visible) or rolled back (never visible),
and ids drawn after it is released are larger (the sequence only grows; Django's identity columns cache one value).
Every report with an id up to the bound is therefore visible to the shards, whenever they run. The lock lasts for
the one index lookup (a savepoint rolled back right after releases it), so report POSTs wait milliseconds, not for
the fold. SQLite serialises writers, so ids become visible in order there.

Tuning (Django settings or environment variables): ``COINFLIP_SHARD_SIZE`` reports per shard (default 50,000) and
``COINFLIP_SHARD_THRESHOLD``, the number of new reports from which ``aggregator.tasks.retrain_survey`` shards
(default 200,000; below it one transaction is cheaper than the tasks' overhead). See docs/operations.md.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from aggregator.privacy.jsonable import json_safe
from survey_app.models import Report, Survey
from survey_app.protocol import get_protocol

from . import services
from .models import PartialStatistics, SurveyStatistics

DEFAULT_SHARD_SIZE = 50_000
DEFAULT_SHARD_THRESHOLD = 200_000


def setting(name: str, default: int) -> int:
    """An integer tuning value: the Django setting ``name``, else the environment variable ``name``, else
    ``default``."""
    value = getattr(settings, name, None)
    return int(value if value is not None else os.environ.get(name, default))


@dataclass(frozen=True)
class Shard:
    """The survey's reports with ``first_id ≤ id ≤ last_id`` (a range of ids, not of the survey's reports only)."""

    first_id: int
    last_id: int


def watermark(survey: Survey) -> int:
    row = SurveyStatistics.objects.filter(survey=survey).only("watermark").first()
    return row.watermark if row else 0


def plan_shards(survey: Survey, shard_size: int | None = None, threshold: int | None = None) -> list[Shard]:
    """Contiguous id ranges covering the survey's new reports, from the watermark + 1 to the safe bound, with
    ``shard_size`` reports each (the last one fewer); ``[]`` when fewer than ``threshold`` reports are new.

    The cuts are every ``shard_size``-th new report, counted from the watermark, so planning again after a lost shard
    reproduces the ranges whose partials are already stored (``fold_shard`` then skips them)."""
    shard_size = shard_size or setting("COINFLIP_SHARD_SIZE", DEFAULT_SHARD_SIZE)
    threshold = setting("COINFLIP_SHARD_THRESHOLD", DEFAULT_SHARD_THRESHOLD) if threshold is None else threshold
    if shard_size < 1:
        raise ValueError("shard_size must be at least 1")
    start = watermark(survey)
    new = Report.objects.filter(survey=survey, id__gt=start)
    if new.count() < max(threshold, 1):
        return []
    bound = services.safe_bound(survey, start)
    shards: list[Shard] = []
    while bound is not None and start < bound:
        ids = new.filter(id__gt=start, id__lte=bound).order_by("id").values_list("id", flat=True)
        cut = list(ids[shard_size - 1:shard_size])
        end = cut[0] if cut else bound
        shards.append(Shard(start + 1, end))
        start = end
    return shards


def fold_shard(survey: Survey, shard: Shard, worker: str = "", batch_size: int = 5000) -> int:
    """Fold the shard's reports into a new ``PartialStatistics`` row (one transaction); returns how many reports.

    0 without work when the shard is already stored or merged. ``shard`` must come from ``plan_shards`` (its ids
    are below the safe bound). ``worker`` names who folded it (the Celery worker's host name)."""
    already = (PartialStatistics.objects.filter(survey=survey, first_id=shard.first_id).exists()
               or watermark(survey) >= shard.first_id)
    if already:
        return 0
    protocol = get_protocol(survey)
    folded = services.Folded.empty(protocol, shard.first_id - 1)
    services.fold_reports(protocol, Report.objects.filter(survey=survey, id__lte=shard.last_id), folded, batch_size)
    try:
        with transaction.atomic():
            PartialStatistics.objects.create(
                survey=survey, first_id=shard.first_id, last_id=shard.last_id,
                stats=json_safe(protocol.stats_to_dict(folded.stats)),
                validation=json_safe(protocol.validation_to_dict(folded.validation)),
                plausibility=json_safe(folded.plausibility.to_dict()) if folded.plausibility is not None else None,
                report_count=folded.training, validation_count=folded.validating, worker=worker[:200],
            )
    except IntegrityError:  # another worker stored a shard starting here first
        return 0
    return folded.count
