"""Folding reports into statistics and publishing model versions (the math lives in ``aggregator.privacy``).

Storage (issue 11 item 2): a report POST inserts into the inbox (``survey_app.models.PendingReport``); folding is
*draining* it. ``fold_new_reports`` locks the survey's ``SurveyStatistics`` row (SELECT … FOR UPDATE) and, in one
transaction, reads the survey's inbox rows (keyset batches over their random UUID keys), adds their statistics to the
stored ones, deletes exactly those rows by id and inserts them into ``Report`` (``_move``). Every ``Report`` row is
folded; every ``PendingReport`` row is not.

Exactly once, without any watermark: a row read by a drain is deleted, by its id, in the transaction that adds its
statistics, so a row is counted when and only when it leaves the inbox. A worker killed (or failing) midway rolls the
whole transaction back — the rows are still pending, the statistics unchanged. Only drains delete inbox rows, and
they run one after the other (the row lock), so a row read stays there until its own drain deletes it. A row inserted
concurrently — committed after a batch was read, or not yet committed — is not read, hence not deleted: it stays
pending for the next drain. Nothing is lost, nothing is counted twice; the cost is proportional to the new reports
(plus the day rewrite below), and report POSTs never wait for a drain (no table lock).

The day rewrite (``_move``): the moved rows are inserted into ``Report`` together with the survey's earlier
``Report`` rows of the same ``received_on`` day — deleted and re-inserted under fresh random keys — all in one
random order. After a drain, the day's rows share one transaction (one ``xmin``), their physical order and keys are
random, and no earlier drain's batch survives; no stored column, key, index or row order ranks a report within its
day. Cost: O(reports of that day) per drain (docs/aggregator.md measures it). What a live reader sees: inbox rows as
they arrive, until the next drain (docs/operations.md).

Shards (``aggregator.sharding``): several workers may fold disjoint batches of inbox rows into ``PartialStatistics``
rows, each listing the ids it covers; a drain (``merge_partials``, or ``fold_new_reports`` first) adds a partial only
if all its rows are still in the inbox and none was taken by another partial of the same drain, and moves exactly
those rows; every partial it read is deleted, merged or not (one whose rows are gone was folded another way).

Validation reports (``{"validation": …}``, the validation share) are folded in the same pass into their own additive
statistics (``SurveyStatistics.validation``); ``report_count`` counts training reports, ``validation_count`` the
others. Publishing stores, with each version, its accuracy estimate where the statistics allow one (MRR: on the
validation records folded so far; LDP: validation respondents evaluate versions after they are published, so
``accuracy_by_version`` reads their counts live) and the plausibility findings of ``privacy.monitoring``. LDP
validation respondents evaluate ``validation_version`` — the newest version published before the current UTC day —
so the version a validation report names reveals no more than its day.
"""
from __future__ import annotations

import datetime
import logging
import random
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from aggregator.privacy import monitoring, plausibility
from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.plausibility import PlausibilityStats
from survey_app.models import PendingReport, Report, SpentCredential, Survey
from survey_app.protocol import get_protocol
from survey_app.reports import current_validation_version, todays_assignment

from .models import ModelVersion, PartialStatistics, SurveyStatistics

logger = logging.getLogger(__name__)

#: Ids per query when reading or deleting a list of inbox rows (below every database's parameter limit).
ID_CHUNK = 5000


def _locked_statistics(survey: Survey) -> SurveyStatistics:
    """The survey's statistics row, created if needed and locked until the transaction ends (call inside atomic)."""
    SurveyStatistics.objects.get_or_create(survey=survey)
    return SurveyStatistics.objects.select_for_update().get(survey=survey)


def chunks(items: list, size: int = ID_CHUNK) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


@dataclass
class Folded:
    """Running additive statistics of a fold: training ``stats``, ``validation`` statistics, and how many reports of
    each kind were added."""

    stats: Any
    validation: Any
    training: int = 0
    validating: int = 0
    plausibility: Any = None  # privacy.plausibility statistics (LDP), None for MRR
    assignment: Any = None  # adaptive allocation: the assignment of the reports' day (None: uniform)

    @classmethod
    def empty(cls, protocol) -> Folded:
        return cls(protocol.zero_stats(), protocol.zero_validation(), plausibility=plausibility.zero_stats(protocol))

    @property
    def count(self) -> int:
        return self.training + self.validating

    @classmethod
    def of_day(cls, protocol, stored: dict | None, assignment=None) -> Folded:
        """Start from an open day's stored sums (``SurveyStatistics.open_days[day]``; zero if ``None``). The counts
        start at 0: they count what this fold adds. ``assignment``: the day's (adaptive allocation)."""
        if stored is None:
            folded = cls.empty(protocol)
        else:
            checks = (PlausibilityStats.from_dict(stored["plausibility"]) if stored.get("plausibility") is not None
                      else plausibility.zero_stats(protocol))
            folded = cls(protocol.stats_from_dict(stored["stats"]), protocol.validation_from_dict(stored["validation"]),
                         plausibility=checks)
        folded.assignment = assignment
        return folded

    def add_payloads(self, protocol, payloads: list) -> None:
        """Fold report payloads (training and validation reports apart)."""
        training, validating = protocol.split(payloads)
        if training:  # parsed once, for the statistics and the per-report plausibility checks
            reports = protocol.parse(training)
            self.stats = self.stats + protocol.aggregate(reports)
            if self.plausibility is not None:
                self.plausibility = self.plausibility + plausibility.report_checks(protocol, reports,
                                                                                  self.assignment)
        self.validation = self.validation + protocol.fold_validation(validating)
        self.training += len(training)
        self.validating += len(validating)

    def add_partial(self, protocol, partial: PartialStatistics) -> None:
        """Add a shard's statistics (exact: the engine's statistics are additive, fold(A) + fold(B) = fold(A ∪ B))."""
        self.stats = self.stats + protocol.stats_from_dict(partial.stats)
        self.validation = self.validation + protocol.validation_from_dict(partial.validation)
        if self.plausibility is not None and partial.plausibility is not None:
            self.plausibility = self.plausibility + PlausibilityStats.from_dict(partial.plausibility)
        self.training += partial.report_count
        self.validating += partial.validation_count


@dataclass
class Days:
    """The per-day sums of one fold: ``label(received_on)`` → ``Folded``, each starting from that open day's stored
    sums. A row received on a day already closed (a straggler: only a report transaction outliving
    ``close_grace()`` past midnight can make one) is labelled with the first open day instead, so a closed day's
    sums — and every model published from them — never change."""

    protocol: Any
    stored: dict = field(default_factory=dict)           # SurveyStatistics.open_days
    first_open: datetime.date | None = None              # closed_through + 1 day (None: nothing closed yet)
    folds: dict[datetime.date, Folded] = field(default_factory=dict)
    #: Adaptive allocation: day → the assignment respondents were given that day (``assignments_by_day``).
    assignment_of: Callable[[datetime.date], Any] = field(default=lambda day: None)

    @classmethod
    def of_row(cls, protocol, row: SurveyStatistics) -> Days:
        first_open = row.closed_through + datetime.timedelta(days=1) if row.closed_through else None
        return cls(protocol, dict(row.open_days), first_open, assignment_of=assignments_by_day(protocol, row.survey))

    def label(self, day: datetime.date) -> datetime.date:
        return day if self.first_open is None or day >= self.first_open else self.first_open

    def of(self, day: datetime.date) -> Folded:
        if day not in self.folds:
            self.folds[day] = Folded.of_day(self.protocol, self.stored.get(day.isoformat()), self.assignment_of(day))
        return self.folds[day]

    @property
    def count(self) -> int:
        return sum(f.count for f in self.folds.values())

    def write(self, row: SurveyStatistics) -> None:
        """Store the sums into ``row.open_days`` (the caller saves the row)."""
        days = dict(row.open_days)
        for day, folded in self.folds.items():
            before = days.get(day.isoformat(), {"report_count": 0, "validation_count": 0})
            days[day.isoformat()] = json_safe({
                "stats": self.protocol.stats_to_dict(folded.stats),
                "validation": self.protocol.validation_to_dict(folded.validation),
                "plausibility": folded.plausibility.to_dict() if folded.plausibility is not None else None,
                "report_count": before["report_count"] + folded.training,
                "validation_count": before["validation_count"] + folded.validating,
            })
        row.open_days = days


def assignments_by_day(protocol, survey: Survey) -> Callable[[datetime.date], Any]:
    """Adaptive allocation: day → the assignment the protocol API served that day (``todays_assignment`` through
    ``served_assignment``: set by the newest version published before the day began, or by the reference sample
    before any; ``None``, uniform, when neither or when it does not fit). Other protocols: always ``None``. A report
    of a closed day folded late (``Days.label``) is counted with its label day's assignment."""
    if not protocol.publishes_assignment:
        return lambda day: None
    cache: dict[datetime.date, Any] = {}

    def of(day: datetime.date):
        if day not in cache:
            stored, _ = todays_assignment(survey, datetime.datetime.combine(day, datetime.time(), datetime.UTC))
            cache[day] = protocol.served_assignment(stored)  # what the protocol API served that day
        return cache[day]

    return of


@dataclass
class Drain:
    """The inbox rows one drain has folded (their ids, by the day they are labelled with): ``_move`` moves exactly
    these."""

    by_day: dict[datetime.date, list[uuid.UUID]] = field(default_factory=lambda: defaultdict(list))
    ids: set[uuid.UUID] = field(default_factory=set)

    def add(self, rows: Iterable[tuple[uuid.UUID, datetime.date]]) -> None:
        for id_, day in rows:
            self.ids.add(id_)
            self.by_day[day].append(id_)


def _closed_plausibility(protocol, row: SurveyStatistics):
    """The closed days' plausibility sums; recomputed from their stored reports for a row from before they were kept."""
    if row.plausibility is not None:
        return PlausibilityStats.from_dict(row.plausibility)
    if row.report_count == 0 or not protocol.checked_oracles():
        return plausibility.zero_stats(protocol)
    reports = Report.objects.filter(survey_id=row.survey_id).exclude(
        received_on__in=[datetime.date.fromisoformat(d) for d in row.open_days])
    training, _ = protocol.split(list(reports.values_list("payload", flat=True)))
    return plausibility.protocol_checks(protocol, training)


def fold_pending(protocol, rows, days: Days, drain: Drain | None = None, batch_size: int = 5000,
                 progress=None, total: int = 0, skip: set | None = None) -> list[uuid.UUID]:
    """Fold the inbox rows of the queryset ``rows`` into ``days`` (by day label), in keyset batches of
    ``batch_size`` over their (random) ids, skipping ids in ``skip`` or already in ``drain``; record them in
    ``drain``, if given; ``progress(done, total)`` after each batch. Returns the ids folded. Rows committed after a
    batch was read past them are not seen."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    done: list[uuid.UUID] = []
    after = None
    while True:
        page = rows if after is None else rows.filter(id__gt=after)
        batch = list(page.order_by("id").values_list("id", "payload", "received_on")[:batch_size])
        if not batch:
            return done
        after = batch[-1][0]
        by_label: dict[datetime.date, list] = defaultdict(list)
        for row in batch:
            if not (drain is not None and row[0] in drain.ids) and not (skip and str(row[0]) in skip):
                by_label[days.label(row[2])].append(row)
        for label, fresh in by_label.items():
            days.of(label).add_payloads(protocol, [payload for _, payload, _ in fresh])
            done.extend(id_ for id_, _, _ in fresh)
            if drain is not None:
                drain.add((id_, label) for id_, _, _ in fresh)
        if progress:
            progress(days.count, total)


def _still_pending(survey: Survey, ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """The ids among ``ids`` still in the survey's inbox."""
    out: list = []
    for part in chunks(ids):
        out += PendingReport.objects.filter(survey=survey, id__in=part).values_list("id", flat=True)
    return out


def _merge_partials(protocol, survey: Survey, days: Days, drain: Drain) -> list[int]:
    """Add every partial whose rows are all still pending and untaken by this drain to its day's sums; returns the
    primary keys of all partials read (merged or dropped: ``_finish`` deletes them). Call under the statistics row
    lock."""
    seen = []
    for partial in PartialStatistics.objects.filter(survey=survey).order_by("pk"):
        seen.append(partial.pk)
        ids = [uuid.UUID(i) for i in partial.pending]
        if not ids or partial.day is None or len(set(ids)) != len(ids) or drain.ids.intersection(ids):
            continue
        present = _still_pending(survey, ids)
        if len(present) != len(ids):
            continue  # some of its rows were folded another way: dropped (the rest is folded directly)
        label = days.label(partial.day)
        days.of(label).add_partial(protocol, partial)
        drain.add((id_, label) for id_ in present)
    return seen


def _move(survey: Survey, drain: Drain) -> None:
    """Delete the drained rows from the inbox and insert them into ``Report`` with the survey's earlier reports of the
    same day, those re-inserted too, all in one random order under fresh random keys (module docstring). Raises (and
    so rolls the drain back) if a drained row is no longer in the inbox, which the row lock rules out."""
    for day, ids in drain.by_day.items():
        if connection.vendor == "postgresql":
            moved = _move_day_sql(survey, day, ids)
        else:
            moved = _move_day_python(survey, day, ids)
        if moved != len(ids):
            raise RuntimeError(f"survey {survey.pk}: {len(ids)} reports drained but {moved} left the inbox")
    _rewrite_spent_credentials(survey)


#: A rewrite (``_rewrite_shuffled``) inserts its rows back in chunks of this many, pausing ``REWRITE_PAUSE`` seconds
#: between chunks. A report POST's commit flushes all the WAL written before it, the drain's included: a drain writing
#: its day in one INSERT made the POSTs committed meanwhile wait for megabytes (bench/load/README.md, fifth pass); in
#: chunks, for one chunk's inserts at most (the deletes, about 70 bytes of WAL a row, are still one statement).
REWRITE_CHUNK = 500
REWRITE_PAUSE = 0.005


def _rewrite_shuffled(cursor, table: str, columns: str, fill: str, fill_params: list, insert: str,
                      insert_params: list) -> int:
    """PostgreSQL: delete rows and insert them back in one random order, in the drain's transaction; returns how many.
    ``fill`` deletes them (data-modifying CTEs) and ends with ``INSERT INTO {table} (n, …) SELECT row_number() OVER
    (ORDER BY random()), …``, numbering them in random order into the temporary table ``table`` of ``columns`` (which
    writes no WAL; dropped at commit, never by a DROP, which would empty psycopg's prepared statements); ``insert``
    (an INSERT … SELECT … FROM ``table`` WHERE n > %s AND n <= %s ORDER BY n, with ``insert_params`` before those two)
    puts them back, ``REWRITE_CHUNK`` rows at a time."""
    if not connection.in_atomic_block:
        raise RuntimeError("a rewrite runs inside the drain's transaction")
    cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {table} (n bigint PRIMARY KEY, {columns}) ON COMMIT DROP")
    cursor.execute(fill, fill_params)
    rows = inserted = cursor.rowcount
    for start in range(0, rows, REWRITE_CHUNK):
        if start:
            time.sleep(REWRITE_PAUSE)
        cursor.execute(insert, [*insert_params, start, start + REWRITE_CHUNK])
        inserted -= cursor.rowcount
    if inserted:
        raise RuntimeError(f"{rows} rows deleted but {rows - inserted} inserted back")
    cursor.execute(f"DELETE FROM {table}")  # empty for another day of this drain
    return rows


def _move_day_sql(survey: Survey, day: datetime.date, ids: list[uuid.UUID]) -> int:
    """PostgreSQL: the day's rewrite (``_rewrite_shuffled``): its stored reports and its drained inbox rows, under
    fresh random keys; returns how many inbox rows moved."""
    quote = connection.ops.quote_name
    report, pending = quote(Report._meta.db_table), quote(PendingReport._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {report} WHERE survey_id = %s AND received_on = %s", [survey.pk, day])
        earlier = cursor.fetchone()[0]
        rows = _rewrite_shuffled(
            cursor, "coinflip_rewrite_reports", "payload jsonb NOT NULL, nonce text",
            f"WITH earlier AS (DELETE FROM {report} WHERE survey_id = %s AND received_on = %s "
            f"RETURNING payload, nonce), "
            f"moved AS (DELETE FROM {pending} WHERE survey_id = %s AND id = ANY(%s::uuid[]) RETURNING payload, nonce) "
            f"INSERT INTO coinflip_rewrite_reports (n, payload, nonce) SELECT row_number() OVER (ORDER BY random()), "
            f"payload, nonce FROM (SELECT payload, nonce FROM earlier UNION ALL SELECT payload, nonce FROM moved) "
            f"AS day",
            [survey.pk, day, survey.pk, ids],
            f"INSERT INTO {report} (id, survey_id, payload, received_on, nonce) SELECT gen_random_uuid(), %s, payload, "
            f"%s, nonce FROM coinflip_rewrite_reports WHERE n > %s AND n <= %s ORDER BY n", [survey.pk, day])
        return rows - earlier


def _move_day_python(survey: Survey, day: datetime.date, ids: list[uuid.UUID]) -> int:
    """Other databases (the embedded SQLite, small): the same rewrite through the ORM, shuffled by the system's secure
    random source; returns how many inbox rows moved."""
    earlier = Report.objects.filter(survey=survey, received_on=day)
    rows = list(earlier.values_list("payload", "nonce"))
    earlier.delete()
    moved = 0
    for part in chunks(ids):
        pending = PendingReport.objects.filter(survey=survey, id__in=part)
        part_rows = list(pending.values_list("payload", "nonce"))
        moved += pending.delete()[0]
        rows += part_rows
    random.SystemRandom().shuffle(rows)
    Report.objects.bulk_create([Report(id=uuid.uuid4(), survey=survey, payload=payload, received_on=day, nonce=nonce)
                                for payload, nonce in rows], batch_size=2000)
    return moved


def _rewrite_spent_credentials(survey: Survey) -> None:
    """Re-insert the survey's credentials of every day that has some spent since the last drain (``fresh``), the
    day's earlier ones with them, in one random order (``_rewrite_shuffled``), as ``_move`` does with reports, so their
    system columns (``xmin``: the report transaction's, which follows the token's redemption; ``ctid``) order nothing
    within the day (docs/threat-model.md). PostgreSQL only: SQLite has no such columns."""
    if connection.vendor != "postgresql":
        return
    quote, meta = connection.ops.quote_name, SpentCredential._meta
    table = quote(meta.db_table)
    digest, survey_column, fresh, day = (quote(meta.get_field(n).column) for n in ("digest", "survey", "fresh", "day"))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {survey_column} = %s AND {fresh})", [survey.pk])
        if not cursor.fetchone()[0]:
            return  # nothing spent since the last drain (an open-link survey, say)
        _rewrite_shuffled(
            cursor, "coinflip_rewrite_credentials", "digest text NOT NULL, day date",
            f"WITH days AS (SELECT DISTINCT {day} FROM {table} WHERE {survey_column} = %s AND {fresh}), "
            f"spent AS (DELETE FROM {table} WHERE {survey_column} = %s AND ({day} IN (SELECT {day} FROM days) "
            f"OR {fresh}) RETURNING {digest}, {day}) "
            f"INSERT INTO coinflip_rewrite_credentials (n, digest, day) SELECT row_number() OVER (ORDER BY random()), "
            f"{digest}, {day} FROM spent", [survey.pk, survey.pk],
            f"INSERT INTO {table} ({digest}, {survey_column}, {fresh}, {day}) SELECT digest, %s, false, day "
            f"FROM coinflip_rewrite_credentials WHERE n > %s AND n <= %s ORDER BY n", [survey.pk])


def _finish(row: SurveyStatistics, days: Days, drain: Drain, partials: list[int]) -> None:
    """Move the drained rows, write the day sums to the locked row and delete the partials read (merged or
    dropped)."""
    if partials:
        PartialStatistics.objects.filter(pk__in=partials).delete()
    if not drain.ids:
        return
    _move(row.survey, drain)
    days.write(row)
    row.save()


def fold_new_reports(survey: Survey, batch_size: int = 5000, progress=None) -> int:
    """Drain the survey's inbox into the stored open days' sums (one transaction, module docstring); returns how
    many reports were folded.

    Ready partial statistics of shards are merged first, then the other inbox rows are folded. ``progress(done,
    total)``, if given, is called after each batch (``total`` counted once)."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)
        days = Days.of_row(protocol, row)
        drain = Drain()
        _drop_resent(survey)
        partials = _merge_partials(protocol, survey, days, drain)
        pending = PendingReport.objects.filter(survey=survey)
        total = pending.count() if progress else 0  # the merged partials' rows included: still in the inbox
        fold_pending(protocol, pending, days, drain, batch_size, progress, total)
        _finish(row, days, drain, partials)
    return days.count


def _drop_resent(survey: Survey) -> int:
    """Delete the survey's inbox rows whose nonce a folded report already holds: a resend that raced the drain that
    moved its first copy (``survey_app.reports.store_report`` checks both tables, but not atomically with a drain).
    Never folded, so counted once. Call under the statistics row lock; returns how many."""
    folded = Report.objects.filter(survey=survey, nonce__isnull=False).values("nonce")
    return PendingReport.objects.filter(survey=survey, nonce__in=folded).delete()[0]


def merge_partials(survey: Survey) -> int:
    """Merge the shards' partial statistics into the stored open days' sums, moving exactly their rows, in one
    transaction under the row lock; returns how many reports they add."""
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)
        days = Days.of_row(protocol, row)
        drain = Drain()
        _drop_resent(survey)
        partials = _merge_partials(protocol, survey, days, drain)
        if drain.ids or partials:
            _finish(row, days, drain, partials)
    return days.count


# -- closing days ----------------------------------------------------------------------------------------------------

def close_grace() -> datetime.timedelta:
    """How long after midnight (UTC) a day is closed: longer than any report request can take (the web tier's
    timeouts are far shorter), so every report received that day is in the inbox by then. Setting
    ``COINFLIP_CLOSE_GRACE_SECONDS`` (default 600, at least 60)."""
    return datetime.timedelta(seconds=settings.COINFLIP_CLOSE_GRACE_SECONDS)


def closable_through(now: datetime.datetime | None = None) -> datetime.date:
    """The last day that may be closed at ``now``: yesterday (UTC) once ``close_grace()`` has passed, else the day
    before."""
    now = (now or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC)
    return (now - close_grace()).date() - datetime.timedelta(days=1)


def _near_midnight(now: datetime.datetime | None) -> bool:
    """In the last ``PUBLISH_QUIET`` of a UTC day: a version created then might commit after midnight, and validation
    respondents of the next day would then split between two versions (``validation_version``)."""
    now = (now or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC)
    return now.time() >= (datetime.datetime.min + (datetime.timedelta(days=1) - PUBLISH_QUIET)).time()


#: No version is published in a UTC day's last minutes (``_near_midnight``).
PUBLISH_QUIET = datetime.timedelta(minutes=5)


def unsettled(survey: Survey) -> bool:
    """Whether a survey that no longer takes reports still has work for the drain: inbox rows, spent credentials not
    yet rewritten, or open days — which ``settle`` finishes, so that a closed survey's last reports do not stay
    linkable at rest (docs/threat-model.md)."""
    row = SurveyStatistics.objects.filter(survey=survey).first()
    return (PendingReport.objects.filter(survey=survey).exists()
            or SpentCredential.objects.filter(survey=survey, fresh=True).exists()
            or bool(row is not None and row.open_days))


def close_days(protocol, row: SurveyStatistics, now: datetime.datetime | None = None) -> int:
    """Add the open days up to ``closable_through(now)`` to the closed sums, in day order, and advance
    ``row.closed_through``; returns how many reports joined (the caller holds the row lock and saves)."""
    through = closable_through(now)
    closing = sorted(d for d in row.open_days if datetime.date.fromisoformat(d) <= through)
    if row.closed_through is None or row.closed_through < through:
        row.closed_through = through
    if not closing:
        return 0
    stats = protocol.stats_from_dict(row.stats) if row.stats is not None else protocol.zero_stats()
    validation = (protocol.validation_from_dict(row.validation) if row.validation is not None
                  else protocol.zero_validation())
    checks = _closed_plausibility(protocol, row)
    joined = 0
    days = dict(row.open_days)
    for day in closing:
        stored = days.pop(day)
        stats = stats + protocol.stats_from_dict(stored["stats"])
        validation = validation + protocol.validation_from_dict(stored["validation"])
        if checks is not None and stored.get("plausibility") is not None:
            checks = checks + PlausibilityStats.from_dict(stored["plausibility"])
        row.report_count += stored["report_count"]
        row.validation_count += stored["validation_count"]
        joined += stored["report_count"] + stored["validation_count"]
    row.stats = json_safe(protocol.stats_to_dict(stats))
    row.validation = json_safe(protocol.validation_to_dict(validation))
    row.plausibility = json_safe(checks.to_dict()) if checks is not None else None
    row.open_days = days
    return joined


def validation_version(survey: Survey, now: datetime.datetime | None = None) -> ModelVersion | None:
    """The version LDP validation respondents evaluate: the newest one published before the current UTC day began
    (``None`` if there is none), so the version in a validation report tells no more than the report's day
    (``survey_app.reports.current_validation_version`` refuses any other)."""
    number = current_validation_version(survey, now)
    return None if number is None else ModelVersion.objects.get(survey=survey, version=number)


def latest_version(survey: Survey) -> ModelVersion | None:
    return ModelVersion.objects.filter(survey=survey).order_by("-version").first()


def publish_model(survey: Survey, skipped=None, now: datetime.datetime | None = None) -> ModelVersion | None:
    """Close the days that have ended (``close_days``), estimate a model from the closed days' statistics and store
    it as the next version.

    ``None`` (nothing published) when no report of a closed day is folded yet, nothing changed since the latest
    version, or the reports do not yet allow an estimate (e.g. an input of a one-report survey has no report yet:
    the engine raises ``ValueError``); the periodic task then simply tries again later. ``skipped(sentence)``, if
    given, hears why nothing was published, in words for the dashboard. ``now`` (default: the clock) decides which
    days have ended."""
    skipped = skipped or (lambda sentence: None)
    protocol = get_protocol(survey)
    with transaction.atomic():
        row = _locked_statistics(survey)  # the lock also serialises concurrent publishes
        close_days(protocol, row, now)
        row.save()
        if _near_midnight(now):
            skipped("Publishing waits until after midnight (UTC): a version published in a day's last minutes "
                    "could reach respondents only after it.")
            return None
        waiting = row.open_report_count + row.open_validation_count
        # No count here: a job row keeps this sentence with its time, and a count per retrain window would place
        # the reports of a quiet day within it.
        later = (" Reports of days not yet ended join the model once their day (UTC) has ended, so that no model "
                 "reveals more about a report than its day." if waiting else "")
        if row.report_count == 0 or row.stats is None:
            skipped(("No model yet: no report has been received." if not waiting else "No model yet.") + later)
            return None
        latest = latest_version(survey)
        # Accuracy computed at publication (MRR) is on the validation records folded so far, so new validation records
        # make a new version; accuracy read live per version (LDP, ``accuracy_by_version``): only training counts.
        unchanged_validation = (not protocol.accuracy_at_publication or latest is None
                                or latest.metrics.get("validation_count", 0) == row.validation_count)
        if latest is not None and latest.report_count == row.report_count and unchanged_validation:
            skipped(f"Nothing new since version {latest.version}: the current model stands.{later}")
            return None
        stats = protocol.stats_from_dict(row.stats)
        try:
            model = protocol.estimate(stats)
        except ValueError as exc:
            logger.info("survey %s: no model yet (%s)", survey.slug, exc)
            skipped(f"No model published: the reports so far do not allow an estimate ({exc}).")
            return None
        version = (latest.version if latest else 0) + 1
        checks = PlausibilityStats.from_dict(row.plausibility) if row.plausibility is not None else None
        metrics = {"validation_count": row.validation_count, "out_of_range": monitoring.out_of_range(model),
                   "plausibility": plausibility.findings(protocol, checks, stats),
                   "jumps": monitoring.jumps(NaiveBayesModel.from_dict(latest.model), model) if latest else []}
        assignment = protocol.next_assignment(model, stats)
        if assignment is not None:  # adaptive allocation: the assignment respondents get from the next day on
            metrics["assignment"] = assignment
        if protocol.accuracy_at_publication and row.validation is not None:
            accuracy = protocol.accuracy(model, protocol.validation_from_dict(row.validation), version)
            if accuracy is not None:
                metrics["accuracy"] = accuracy.to_dict()
        return ModelVersion.objects.create(
            survey=survey,
            version=version,
            model=json_safe(model.to_dict()),
            report_count=row.report_count,
            through_day=row.closed_through,
            privacy=json_safe(protocol.model_privacy(model)),
            metrics=json_safe(metrics),
        )


def accuracy_by_version(survey: Survey) -> dict[int, dict]:
    """{version: accuracy estimate dict} for every version that has one: stored at publication
    (``protocol.accuracy_at_publication``: MRR), or computed now from the validation counts of the respondents who
    evaluated that version (LDP)."""
    versions = list(ModelVersion.objects.filter(survey=survey).order_by("version"))
    protocol = get_protocol(survey)
    if protocol.accuracy_at_publication:
        return {v.version: v.metrics["accuracy"] for v in versions if v.metrics.get("accuracy")}
    row = SurveyStatistics.objects.filter(survey=survey).first()
    if row is None or not row.validation:
        return {}
    validation = protocol.validation_from_dict(row.validation)
    out = {}
    for v in versions:
        accuracy = protocol.accuracy(None, validation, v.version)
        if accuracy is not None:
            out[v.version] = accuracy.to_dict()
    return out


def latest_accuracy(survey: Survey) -> tuple[int, dict] | None:
    """(version, accuracy dict) of the newest version with an accuracy estimate, or ``None``."""
    by_version = accuracy_by_version(survey)
    if not by_version:
        return None
    version = max(by_version)
    return version, by_version[version]


def retrain(survey: Survey, progress=None, skipped=None, now: datetime.datetime | None = None) -> ModelVersion | None:
    """Fold the new reports, then publish a version if the closed days' statistics changed (``publish_model``).

    ``progress(fraction, message)``, if given, hears about the fold (90 % of the work) and the estimate;
    ``skipped(sentence)`` why nothing was published; ``now`` which days have ended (``close_days``)."""
    fold = ((lambda done, total: progress(0.9 * done / max(total, 1), "Folding the new reports"))
            if progress else None)
    fold_new_reports(survey, progress=fold)
    if progress:
        progress(0.9, "Estimating the model")
    return publish_model(survey, skipped=skipped, now=now)
