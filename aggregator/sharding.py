"""Scale-out: several workers fold disjoint batches of a survey's inbox, and their partial statistics are merged.

The single-transaction drain (``services.fold_new_reports``) holds the survey's statistics row for the whole fold, so
a second worker can only wait. For a large backlog, folding is split instead:

1. ``plan_shards`` cuts the inbox (``PendingReport``) into ranges of its random UUID keys, ``shard_size`` rows each
   (the last one fewer), tiling the whole key space. The keys are random, so a range carries no order: it is a
   random batch of the inbox.
2. ``fold_shard`` (one Celery task per range, on any worker) reads the range's inbox rows not already covered by a
   stored partial and stores their additive statistics, with the list of their ids, as one ``PartialStatistics`` row,
   in a transaction of its own.
3. A drain (``services.merge_partials``: the chord's body, or any later ``fold_new_reports``) adds a partial under
   the statistics row lock only if every row it lists is still in the inbox and not taken by another partial of the
   same drain, and deletes exactly those rows (moving them into ``Report``) in that transaction; every partial it
   read is deleted, merged or dropped. The engine's statistics are additive, so the merge is exact: fold(A) + fold(B)
   = fold(A ∪ B).

Exactly once, whatever dies when:

* a worker killed inside ``fold_shard`` leaves no partial (its transaction never committed); its rows stay pending
  and are folded by a later shard or drain;
* a worker killed inside the merge leaves the statistics, the inbox and every partial as they were (one
  transaction);
* a partial's statistics are added only in the transaction that deletes its rows from the inbox, so it cannot be
  added twice, nor can its rows be folded again; a partial whose rows are gone (folded by another drain while it was
  being folded) or shared with a merged one (a shard folded twice at the same moment) is dropped, never added — its
  remaining rows are still pending and folded directly. Sequentially, a shard folded twice is stored once
  (``fold_shard`` skips rows another partial covers).

No safe bound is needed: a drain deletes only rows it read, so an insert committing late is simply pending for the
next drain, and nothing ever compares keys for order.

Tuning (Django settings or environment variables): ``COINFLIP_SHARD_SIZE`` reports per shard (default 50,000) and
``COINFLIP_SHARD_THRESHOLD``, the number of pending reports from which ``aggregator.tasks.retrain_survey`` shards
(default 200,000; below it one transaction is cheaper than the tasks' overhead). See docs/operations.md.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import pairwise

from django.conf import settings
from django.db import transaction

from aggregator.privacy.jsonable import json_safe
from survey_app import inbox
from survey_app.models import Survey
from survey_app.protocol import get_protocol

from . import services
from .models import PartialStatistics

DEFAULT_SHARD_SIZE = 50_000
DEFAULT_SHARD_THRESHOLD = 200_000


def setting(name: str, default: int) -> int:
    """An integer tuning value: the Django setting ``name``, else the environment variable ``name``, else
    ``default``."""
    value = getattr(settings, name, None)
    return int(value if value is not None else os.environ.get(name, default))


@dataclass(frozen=True)
class Shard:
    """The survey's inbox rows with ``low ≤ id < high`` (UUID strings; ``None``: unbounded on that side). A task
    argument only: never stored."""

    low: str | None
    high: str | None

    def rows(self, survey: Survey):
        return inbox.pending_rows(survey, self.low, self.high)


def plan_shards(survey: Survey, shard_size: int | None = None, threshold: int | None = None) -> list[Shard]:
    """Key ranges tiling the inbox with ``shard_size`` pending rows each (the last one fewer); ``[]`` when fewer than
    ``threshold`` rows are pending."""
    shard_size = shard_size or setting("COINFLIP_SHARD_SIZE", DEFAULT_SHARD_SIZE)
    threshold = setting("COINFLIP_SHARD_THRESHOLD", DEFAULT_SHARD_THRESHOLD) if threshold is None else threshold
    if shard_size < 1:
        raise ValueError("shard_size must be at least 1")
    pending = inbox.pending_rows(survey)
    total = pending.count()
    if total < max(threshold, 1):
        return []
    keys = pending.order_by("id").values_list("id", flat=True)
    cuts = [str(keys[i]) for i in range(shard_size, total, shard_size)]
    return [Shard(low, high) for low, high in pairwise([None, *cuts, None])]


def covered(survey: Survey) -> set[str]:
    """Ids of the inbox rows that a stored partial of the survey covers."""
    out: set[str] = set()
    for ids in PartialStatistics.objects.filter(survey=survey).values_list("pending", flat=True):
        out.update(ids)
    return out


def fold_shard(survey: Survey, shard: Shard, worker: str = "", batch_size: int = 5000) -> int:
    """Fold the shard's pending rows that no stored partial covers into new ``PartialStatistics`` rows, one per day
    the rows were received on, each listing its rows (one transaction); returns how many reports (0, storing
    nothing, when there are none). ``worker`` names who folded it (the Celery worker's host name)."""
    protocol = get_protocol(survey)
    days = services.Days(protocol, assignment_of=services.assignments_by_day(protocol, survey))
    drain = services.Drain()
    services.fold_pending(protocol, shard.rows(survey), days, drain, batch_size=batch_size, skip=covered(survey))
    if not drain.ids:
        return 0
    with transaction.atomic():
        for day, folded in days.folds.items():
            PartialStatistics.objects.create(
                survey=survey, day=day, pending=[str(i) for i in drain.by_day[day]],
                stats=json_safe(protocol.stats_to_dict(folded.stats)),
                validation=json_safe(protocol.validation_to_dict(folded.validation)),
                plausibility=json_safe(folded.plausibility.to_dict()) if folded.plausibility is not None else None,
                report_count=folded.training, validation_count=folded.validating, worker=worker[:200],
            )
    return days.count
