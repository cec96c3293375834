"""The inbox, the stored reports and the redemptions' rows: survey_app's selectors and services for the aggregator's
drain (``aggregator.services``), which never touches these tables itself.

A report POST inserts into the inbox (``PendingReport``; ``store_report``); a redemption marks its
invitation token used (``survey_app.credentials``) and a token report spends a credential (``SpentCredential``). The
aggregator reads the inbox through ``pending_rows`` and hands the rows it folded to ``move_to_reports``, in the
transaction that adds their statistics.

The day rewrite (``move_to_reports``): the moved rows are inserted into ``Report`` together with the survey's
earlier reports of the same ``received_on`` day — deleted and re-inserted under fresh random keys — all in one random
order; the spent credentials and the used invitation tokens of every day with a row written since the last drain
(``fresh``) are re-inserted likewise (``rewrite_redemptions``). After a drain each such day's rows share one
transaction (one ``xmin``), their physical order and keys are random, and no earlier drain's batch survives: no stored
column, key, index or row order ranks a report, a credential or a redemption within its day (docs/threat-model.md).
``vacuum`` then removes the dead row versions the drain left, which would otherwise keep the arrival order.
"""
from __future__ import annotations

import datetime
import random
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import cast

from django.db import connection, transaction
from django.db.models import Count, Field, Q, QuerySet

from .models import InvitationToken, PendingReport, Report, SpentCredential, Survey

#: Ids per query when reading or deleting a list of inbox rows (below every database's parameter limit).
ID_CHUNK = 5000

#: A rewrite (``_rewrite_shuffled``) inserts its rows back in chunks of this many, pausing ``REWRITE_PAUSE`` seconds
#: between chunks: a report POST's commit flushes all the WAL written before it, the drain's included, so a day
#: written in one INSERT would make the POSTs committed meanwhile wait for all of it (bench/load/README.md).
REWRITE_CHUNK = 500
REWRITE_PAUSE = 0.005


def chunks(items: list, size: int = ID_CHUNK) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


# -- selectors -------------------------------------------------------------------------------------------------------

def pending_rows(survey: Survey, low: str | None = None, high: str | None = None) -> QuerySet:
    """The survey's inbox rows (``low ≤ id < high``, UUID strings, ``None``: unbounded), for reading ``id``,
    ``payload`` and ``received_on``."""
    rows = PendingReport.objects.filter(survey=survey)
    if low is not None:
        rows = rows.filter(id__gte=low)
    if high is not None:
        rows = rows.filter(id__lt=high)
    return rows


def pending_count(survey: Survey) -> int:
    """Reports in the inbox: received, not yet folded."""
    return PendingReport.objects.filter(survey=survey).count()


def still_pending(survey: Survey, ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """The ids among ``ids`` still in the survey's inbox."""
    out: list = []
    for part in chunks(ids):
        out += PendingReport.objects.filter(survey=survey, id__in=part).values_list("id", flat=True)
    return out


def folded_payloads(survey: Survey, except_days: Iterable[datetime.date] = ()) -> list:
    """The payloads of the survey's folded reports, those received on ``except_days`` left out."""
    reports = Report.objects.filter(survey=survey).exclude(received_on__in=list(except_days))
    return list(reports.values_list("payload", flat=True))


def reports_by_day(survey: Survey) -> list[tuple[datetime.date, int, int]]:
    """(received_on, training, validation) per day with reports (folded, and still in the inbox)."""
    days: dict = {}
    for model in (Report, PendingReport):
        for r in (model.objects.filter(survey=survey).values("received_on")
                  .annotate(total=Count("id"), validation=Count("id", filter=Q(payload__has_key="validation")))
                  .order_by()):
            total, validation = days.get(r["received_on"], (0, 0))
            days[r["received_on"]] = (total + r["total"], validation + r["validation"])
    return [(day, total - validation, validation) for day, (total, validation) in sorted(days.items())]


def all_reports(survey: Survey, chunk_size: int) -> Iterator[tuple]:
    """(id, received_on, payload) of every report (folded, and still in the inbox), by day and, within a day, by
    random key (no order survives)."""
    folded, pending = (model.objects.filter(survey=survey).values_list("id", "received_on", "payload")
                       for model in (Report, PendingReport))
    return folded.union(pending, all=True).order_by("received_on", "id").iterator(chunk_size=chunk_size)


def unsettled(survey: Survey) -> bool:
    """Whether the survey has rows a drain has still to move or rewrite: inbox rows, or spent credentials or used
    tokens written since the last drain."""
    return (PendingReport.objects.filter(survey=survey).exists()
            or SpentCredential.objects.filter(survey=survey, fresh=True).exists()
            or InvitationToken.objects.filter(survey=survey, fresh=True).exists())


# -- services --------------------------------------------------------------------------------------------------------

def store_report(survey: Survey, payload, spend: tuple[str, list] | None = None, nonce: str | None = None,
                 day: datetime.date | None = None, guard: tuple[str, list] | None = None) -> bool:
    """Insert one report into the inbox, as ``PendingReport.objects.create(survey=survey, payload=payload,
    nonce=nonce)`` would (the model has no ``save`` override and no signal receivers; its key is a random UUID), in
    one INSERT built from the model's fields; returns whether the report was added.

    Parameters
    ----------
    survey, payload
        The survey and the report, stored verbatim.
    spend
        A token survey's credential (``survey_app.credentials.spend_statement``: an INSERT … SELECT of its digest):
        the report is added in the same statement only if the digest was — both or neither (PostgreSQL: a
        data-modifying CTE).
    nonce
        The report's idempotency nonce: nothing is added if a report of the survey already holds it, in the inbox
        (its unique constraint) or in ``Report``.
    day
        The day it was received (default: today, UTC): the caller passes the day of the instant its checks used.
    guard
        A SQL condition and its parameters (``survey_app.surveys.version_guard``): nothing is added unless it holds
        when the statement runs. A ``spend`` statement carries it too (``spend_statement``).
    """
    quote, meta = connection.ops.quote_name, PendingReport._meta
    fields = [cast(Field, meta.get_field(n)) for n in ("id", "survey", "payload", "received_on", "nonce")]
    columns = ", ".join(quote(f.column) for f in fields)
    id_field, _, payload_field, date_field, _ = fields
    values = [id_field.get_db_prep_save(id_field.get_default(), connection), survey.pk,
              payload_field.get_db_prep_save(payload, connection),
              date_field.get_db_prep_save(day or datetime.datetime.now(datetime.UTC).date(), connection), nonce]
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) SELECT %s, %s, %s, %s, %s"
    if spend is not None:
        spend_sql, spend_values = spend
        sql = f"WITH spent AS ({spend_sql} ON CONFLICT DO NOTHING RETURNING 1) {sql} FROM spent"
        values = spend_values + values
    conditions = []
    if guard is not None:
        conditions.append(guard[0])
        values += guard[1]
    if nonce is not None:
        report = Report._meta
        survey_column, nonce_column = (quote(cast(Field, report.get_field(n)).column) for n in ("survey", "nonce"))
        conditions.append(f"NOT EXISTS (SELECT 1 FROM {quote(report.db_table)} "
                          f"WHERE {survey_column} = %s AND {nonce_column} = %s)")
        values += [survey.pk, nonce]
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    if nonce is not None:
        sql += " ON CONFLICT DO NOTHING"
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.rowcount == 1


def nonce_stored(survey: Survey, nonce: str | None) -> bool:
    """Whether a report of ``survey`` with the idempotency ``nonce`` is stored (in the inbox or folded)."""
    if nonce is None:
        return False
    return (PendingReport.objects.filter(survey=survey, nonce=nonce).exists()
            or Report.objects.filter(survey=survey, nonce=nonce).exists())


def drop_resent(survey: Survey) -> int:
    """Delete the survey's inbox rows whose nonce a folded report already holds: a resend that raced the drain that
    moved its first copy (``store_report`` checks both tables, but not atomically with a drain). Never folded, so
    counted once. Call in the drain's transaction, under its lock; returns how many."""
    folded = Report.objects.filter(survey=survey, nonce__isnull=False).values("nonce")
    return PendingReport.objects.filter(survey=survey, nonce__in=folded).delete()[0]


def store_many(survey: Survey, payloads: list, day: datetime.date | None = None) -> None:
    """Insert reports into the inbox in bulk (simulations; ``day``: the day they count as received, default today)."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p, received_on=day) for p in payloads])


def redate_pending(survey: Survey, day: datetime.date) -> None:
    """Count the survey's inbox rows as received on ``day`` (the demo's back-dated history)."""
    PendingReport.objects.filter(survey=survey).update(received_on=day)


def move_to_reports(survey: Survey, by_day: dict[datetime.date, list[uuid.UUID]]) -> None:
    """The drain's move: delete the inbox rows ``by_day`` (day label → ids) and insert them into ``Report`` under
    that day, with the survey's earlier reports of the day re-inserted too, all in one random order under fresh random
    keys; then ``rewrite_redemptions``. Call in the transaction that adds their statistics. Raises (and so rolls the
    drain back) if a row is no longer in the inbox."""
    if not connection.in_atomic_block:
        raise RuntimeError("the move runs inside the drain's transaction")
    for day, ids in by_day.items():
        moved = _move_day_sql(survey, day, ids) if connection.vendor == "postgresql" else _move_day_python(
            survey, day, ids)
        if moved != len(ids):
            raise RuntimeError(f"survey {survey.pk}: {len(ids)} reports drained but {moved} left the inbox")
    rewrite_redemptions(survey)


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


def _columns(model, *names: str) -> list[str]:
    return [connection.ops.quote_name(model._meta.get_field(n).column) for n in names]


def rewrite_redemptions(survey: Survey) -> None:
    """Re-insert the survey's spent credentials and used invitation tokens of every day that has some written since
    the last drain (``fresh``), the day's earlier ones with them, in one random order (``_rewrite_shuffled``), as
    ``move_to_reports`` does with reports: their system columns (``xmin``: the redemption's or the report's
    transaction; ``ctid``; ``cmin``) then order nothing within the day. Call in a drain's transaction. PostgreSQL
    only: SQLite has no such columns."""
    if connection.vendor != "postgresql":
        return
    if not connection.in_atomic_block:
        raise RuntimeError("a rewrite runs inside the drain's transaction")
    quote = connection.ops.quote_name
    credentials, tokens = (quote(m._meta.db_table) for m in (SpentCredential, InvitationToken))
    digest, c_survey, c_fresh, c_day = _columns(SpentCredential, "digest", "survey", "fresh", "day")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {credentials} WHERE {c_survey} = %s AND {c_fresh})", [survey.pk])
        if cursor.fetchone()[0]:
            _rewrite_shuffled(
                cursor, "coinflip_rewrite_credentials", "digest text NOT NULL, day date",
                f"WITH days AS (SELECT DISTINCT {c_day} FROM {credentials} WHERE {c_survey} = %s AND {c_fresh}), "
                f"spent AS (DELETE FROM {credentials} WHERE {c_survey} = %s AND ({c_day} IN (SELECT {c_day} FROM days) "
                f"OR {c_fresh}) RETURNING {digest}, {c_day}) "
                f"INSERT INTO coinflip_rewrite_credentials (n, digest, day) SELECT row_number() OVER "
                f"(ORDER BY random()), {digest}, {c_day} FROM spent", [survey.pk, survey.pk],
                f"INSERT INTO {credentials} ({digest}, {c_survey}, {c_fresh}, {c_day}) SELECT digest, %s, false, day "
                f"FROM coinflip_rewrite_credentials WHERE n > %s AND n <= %s ORDER BY n", [survey.pk])
        pk, t_survey, token, batch, used, redeemed_with, created_on, redeemed_on, t_fresh = _columns(
            InvitationToken, "id", "survey", "token", "batch", "used", "redeemed_with", "created_on", "redeemed_on",
            "fresh")
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {tokens} WHERE {t_survey} = %s AND {t_fresh})", [survey.pk])
        if cursor.fetchone()[0]:
            _rewrite_shuffled(
                cursor, "coinflip_rewrite_tokens",
                "id bigint NOT NULL, token text NOT NULL, batch text NOT NULL, redeemed_with text NOT NULL, "
                "created_on date NOT NULL, redeemed_on date",
                f"WITH days AS (SELECT DISTINCT {redeemed_on} FROM {tokens} WHERE {t_survey} = %s AND {t_fresh}), "
                f"redeemed AS (DELETE FROM {tokens} WHERE {t_survey} = %s AND {used} AND ({redeemed_on} IN "
                f"(SELECT {redeemed_on} FROM days) OR {t_fresh}) "
                f"RETURNING {pk}, {token}, {batch}, {redeemed_with}, {created_on}, {redeemed_on}) "
                f"INSERT INTO coinflip_rewrite_tokens (n, id, token, batch, redeemed_with, created_on, redeemed_on) "
                f"SELECT row_number() OVER (ORDER BY random()), {pk}, {token}, {batch}, {redeemed_with}, "
                f"{created_on}, {redeemed_on} FROM redeemed", [survey.pk, survey.pk],
                f"INSERT INTO {tokens} ({pk}, {t_survey}, {token}, {batch}, {used}, {redeemed_with}, {created_on}, "
                f"{redeemed_on}, {t_fresh}) SELECT id, %s, token, batch, true, redeemed_with, created_on, "
                f"redeemed_on, false FROM coinflip_rewrite_tokens WHERE n > %s AND n <= %s ORDER BY n", [survey.pk])


def _drained_tables() -> list[str]:
    """The tables a drain deletes from (dead row versions keep their writers' ``xmin`` and place until VACUUM)."""
    return [m._meta.db_table for m in (PendingReport, Report, SpentCredential, InvitationToken)]


def vacuum() -> None:
    """PostgreSQL: VACUUM the tables a drain rewrote, so no dead row version keeps an inbox row's, a report's, a
    credential's or a redemption's writing transaction or place (docs/threat-model.md). Call after the drain's
    transaction has committed, outside any transaction (VACUUM cannot run in one). Other databases: nothing to do."""
    if connection.vendor != "postgresql":
        return
    if connection.in_atomic_block or transaction.get_connection().in_atomic_block:
        raise RuntimeError("VACUUM runs outside any transaction")
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {', '.join(quote(t) for t in _drained_tables())}")
