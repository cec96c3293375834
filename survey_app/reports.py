"""Report ingestion: one randomized report in, one ``Outcome`` out (the report API's service; no HTTP here).

``submit_report(slug, body)`` does everything between a parsed request body and a stored row: it finds the public
survey (``find_public_survey``, cached per PostgreSQL row version), checks the report against the survey's protocol
(``SurveyProtocol.parse_one``) and, for a validation report, that the model version it evaluated exists, admits the
respondent (``admit``: an invitation token is consumed by a conditional UPDATE in the insert's transaction, never
written beside the report) and stores the report (``store_report``, the one writer of report rows). The view
(``survey_app.api.ReportView``) parses the body and maps the ``Outcome`` onto a status code.

The usual POST — an open survey, a body holding only a valid report (a token survey's: and a valid credential) —
takes one round trip to PostgreSQL (``store_if_unchanged``: bench/load measures it); everything else takes the full
path, whose answers it shares.

Checks, in order (the first that fails is the outcome): no such public survey (``NOT_FOUND``), survey closed
(``CLOSED``), the body itself (the reader's exception propagates), the report (``INVALID`` with the field), the
admission (a token survey: ``INVALID`` on ``token`` when the body holds the token, ``CREDENTIAL_MISSING``,
``INVALID`` for a malformed or unverifiable credential, ``CREDENTIAL_USED``); otherwise ``STORED``.

Unlinkable invitations (``survey_app.credentials``): the blind-signature redemption is a second entry point beside
``submit_report`` (``survey_app.credentials.redeem``); a token survey's report is a ``Submission`` with a credential
instead of a token, admitted by ``admit`` (signature check, then the insert of its hash under a uniqueness
constraint, in the report's transaction). Reports go to the inbox (``PendingReport``, random keys); the drain moves
them into ``Report`` in shuffled order (``survey_app.inbox``, called by ``aggregator.services``).
"""
from __future__ import annotations

import datetime
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from django.db import connection, transaction

from aggregator import selectors as published
from aggregator.privacy.protocol import ReportError

from . import credentials
from .models import PendingReport, SpentCredential, Survey
from .outcomes import STORED, TOKEN_IN_REPORT, Body, Outcome, Result, Submission
from .protocol import get_protocol
from .surveys import _SURVEYS, _SURVEYS_SIZE, find_public_survey


def submit_report(slug: str, body: Body, fast: bool = True) -> Outcome:
    """Check and store one report sent to the survey ``slug``; the ``Outcome`` says what happened.

    ``body`` may be a function that reads the submission from the request: it is called once, before any query (the
    usual POST needs none), and an exception it raises — the request's own 400, 413 or 415 — propagates only after
    the survey is known to exist and be open, so ``NOT_FOUND`` and ``CLOSED`` come first. Nothing is stored unless
    the outcome is ``STORED``. ``fast`` false skips the one-statement path (``store_if_unchanged``), for a caller
    that already tried it."""
    read = _read_once(body)
    if fast and store_if_unchanged(slug, read):
        return STORED
    survey = find_public_survey(slug)
    if survey is None:
        return Outcome.of(Result.NOT_FOUND)
    if survey.status != Survey.Status.OPEN:
        return Outcome.of(Result.CLOSED)
    submission = read()
    protocol = get_protocol(survey)
    try:
        protocol.parse_one(submission.report)
    except ReportError as exc:
        return Outcome.invalid(f"report.{exc.field}", exc.message)
    now = datetime.datetime.now(datetime.UTC)  # one instant for the version check and the report's day
    version = protocol.validated_version(submission.report)
    if version is not None and version != current_validation_version(survey, now):
        if not published.version_exists(survey, version):
            return Outcome.invalid("report.validation.version", "No such published model version.")
        if survey.access == Survey.Access.TOKENS and _spent(survey, submission):
            # A kept report already received (its answer lost) and retried after midnight: it was stored, and the
            # page must hear so (409 credential used) — not prepare and send another one.
            return Outcome.of(Result.CREDENTIAL_USED)
        return Outcome.of(Result.STALE_VERSION)
    # A token survey spends its credential in the report's transaction; a link survey's report is one INSERT, atomic
    # by itself (no BEGIN/COMMIT round trips on the hot path).
    with transaction.atomic() if survey.access == Survey.Access.TOKENS else nullcontext():
        refused = admit(survey, submission)
        if refused is not None:
            return refused  # nothing was written
        store_report(survey, submission.report, day=now.date())
    return STORED


def _spent(survey: Survey, submission: Submission) -> bool:
    """Whether the submission's credential (well formed) has already added a report to ``survey``."""
    credential = credentials.parse_credential(submission.credential) if submission.credential is not None else None
    return (credential is not None and not isinstance(credential, Outcome)
            and SpentCredential.objects.filter(survey=survey,
                                               digest=credentials.credential_digest(credential.value)).exists())


def admit(survey: Survey, submission: Submission) -> Outcome | None:
    """``None`` if the submission may add a report to ``survey`` (a link survey; a token survey's valid, unspent
    credential, now spent: ``survey_app.credentials.spend``), else the refusal. Call inside the transaction that
    stores the report. A token survey's report never carries the token (the server must not see the token and the
    credential's value together): such a body is refused, whatever else it holds."""
    if survey.access != Survey.Access.TOKENS:
        return None
    if submission.token is not None:
        return Outcome.invalid("token", TOKEN_IN_REPORT.format(slug=survey.slug))
    if submission.credential is None:
        return Outcome.of(Result.CREDENTIAL_MISSING)
    credential = credentials.parse_credential(submission.credential)
    if isinstance(credential, Outcome):
        return credential
    return credentials.spend(survey, credential)


def utc_midnight(now: datetime.datetime | None = None) -> datetime.datetime:
    """The start of the current UTC day."""
    now = (now or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def current_validation_version(survey: Survey, now: datetime.datetime | None = None) -> int | None:
    """The number of the version validation respondents evaluate today: the newest published before the current
    UTC day began (``aggregator.selectors.validation_version_number``), so a validation report's version tells no
    more than its day; a report naming any other is refused (``STALE_VERSION``)."""
    return published.validation_version_number(survey, utc_midnight(now))


def todays_assignment(survey: Survey, now: datetime.datetime | None = None) -> tuple[list | None, str]:
    """Adaptive allocation: (the stored assignment of respondents to inputs for today, its source). Set by the
    version validation respondents evaluate today (``current_validation_version``: "model"), so it changes only at
    midnight (UTC) and tells nothing finer than the day; before any version by the public reference sample
    (``survey_app.pilot``: "sample"); else ``(None, "uniform")``. The protocol checks it before use
    (``served_assignment``)."""
    metrics = published.validation_version_metrics(survey, utc_midnight(now))
    if metrics is not None:
        return metrics.get("assignment"), "model"
    if survey.pilot_assignment is not None:
        return survey.pilot_assignment, "sample"
    return None, "uniform"


# -- storing ---------------------------------------------------------------------------------------------------------

def store_report(survey: Survey, payload, guard: tuple[str, list] | None = None,
                 spend: tuple[str, list] | None = None, day: datetime.date | None = None) -> bool:
    """Insert one report into the inbox: what ``PendingReport.objects.create(survey=survey, payload=payload)`` does
    (the model has no ``save`` override and no signal receivers; its key is a random UUID), as one INSERT built from
    the model's fields — without the ORM's per-call query compilation, which cost a tenth of a report POST's CPU
    (bench/load). With ``guard`` (an SQL condition and its parameters) the row is added only if the condition holds.
    With ``spend`` (a token survey's credential: ``survey_app.credentials.spend_statement``, an INSERT … RETURNING
    that adds the credential's digest, or nothing if it is spent) the report is added in the same statement, only if
    the digest was — both or neither (a data-modifying CTE; ``guard`` then goes into the digest's INSERT).
    ``day`` (default: today, UTC) is the day it was received: the caller passes the day of the instant its checks
    used. Returns whether the report was added. The next fold moves it into ``Report`` (``aggregator.services``)."""
    quote, meta = connection.ops.quote_name, PendingReport._meta
    id_field, survey_field, payload_field, date_field = (meta.get_field(n)
                                                         for n in ("id", "survey", "payload", "received_on"))
    columns = ", ".join(quote(f.column) for f in (id_field, survey_field, payload_field, date_field))
    values = [id_field.get_db_prep_save(id_field.get_default(), connection), survey.pk,
              payload_field.get_db_prep_save(payload, connection),
              date_field.get_db_prep_save(day or datetime.datetime.now(datetime.UTC).date(), connection)]
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) SELECT %s, %s, %s, %s"
    if spend is not None:
        spend_sql, spend_values = spend
        if guard is not None:
            spend_sql, spend_values = f"{spend_sql} AND {guard[0]}", spend_values + guard[1]
        sql = (f"WITH spent AS ({spend_sql} ON CONFLICT DO NOTHING RETURNING 1) {sql} FROM spent")
        values = spend_values + values
    elif guard is not None:
        sql, values = f"{sql} WHERE {guard[0]}", values + guard[1]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.rowcount == 1


def store_if_unchanged(slug: str, read: Callable[[], Submission]) -> bool:
    """The usual report POST in one round trip to the database (PostgreSQL); ``True`` if it stored the report.

    The usual POST — an open survey, a body holding only a valid report (and, for a token survey, a well-formed
    credential whose signature verifies under a key this process has read) — is checked against the survey as
    ``find_public_survey`` last read it (no query), then stored by one INSERT … SELECT that adds the row only if the
    survey row is still at that version, and, for a validation report, the model version it names is the one
    evaluated today (``current_validation_version``): the full path's checks, made at the moment of the insert. A
    token survey's report is stored by the same statement as its credential's digest (``store_report``'s ``spend``:
    one statement, so both or neither; a digest already spent adds nothing). (A round trip cost a fifth of a POST's
    CPU, bench/load.) ``False`` — nothing stored; the full path answers, errors included — when the survey is not
    cached, the body is unreadable or holds anything else, the report or the credential is not valid, the credential
    is spent, or the row changed since."""
    cached = _SURVEYS.get(slug) if connection.vendor == "postgresql" else None
    if cached is None:
        return False
    (survey_id, xmin, ctid), survey = cached
    if survey.status != Survey.Status.OPEN:
        return False
    try:
        submission = read()
    except Exception:  # an unreadable body: the full path raises it again, after the survey's 404 or 410
        return False
    report = submission.report
    if submission.token is not None or type(report) is not dict:
        return False
    spend = None
    if survey.access == Survey.Access.TOKENS:
        if submission.credential is None:
            return False
        credential = credentials.verified(submission.credential)
        if credential is None:
            return False
        spend = credentials.spend_statement(survey, credential)
    elif survey.access != Survey.Access.LINK:
        return False
    try:
        protocol = _protocol_of(slug, cached)
        protocol.parse_one(report)
    except ValueError:  # a malformed report (ReportError), or a survey changed since beyond building
        return False
    quote = connection.ops.quote_name
    now = datetime.datetime.now(datetime.UTC)  # one instant for the version guard and the report's day
    guard = (f"EXISTS (SELECT 1 FROM {quote(Survey._meta.db_table)} "
             "WHERE id = %s AND xmin::text = %s AND ctid::text = %s)")
    params = [survey_id, xmin, ctid]
    version = protocol.validated_version(report)
    if version is not None:  # the version validation respondents evaluate today (``current_validation_version``)
        version_sql, version_params = published.is_validation_version_sql(survey_id, version, utc_midnight(now))
        guard, params = f"{guard} AND {version_sql}", params + version_params
    return store_report(survey, report, (guard, params), spend, day=now.date())


#: ``get_protocol`` of each survey cached in ``_SURVEYS``, by slug: (that cache entry, protocol). The entry is one
#: row version, read once and never changed, so its protocol is too; ``get_protocol`` itself keys its cache by every
#: field of the survey, which cost a twentieth of a report POST's CPU (``python -m bench.load.profile``).
_PROTOCOLS: dict[str, tuple[tuple, Any]] = {}


def _protocol_of(slug: str, cached: tuple):
    """``get_protocol`` of the survey of the ``_SURVEYS`` entry ``cached``, computed once per entry."""
    memo = _PROTOCOLS.get(slug)
    if memo is not None and memo[0] is cached:
        return memo[1]
    protocol = get_protocol(cached[1])
    if len(_PROTOCOLS) >= _SURVEYS_SIZE:
        _PROTOCOLS.clear()
    _PROTOCOLS[slug] = (cached, protocol)
    return protocol


def _read_once(body: Body) -> Callable[[], Submission]:
    """A function returning ``body``'s submission, reading it at most once (a request body can be parsed once: a
    second read of a DRF request whose parse failed returns an empty body); a read's exception is raised again."""
    if isinstance(body, Submission):
        return lambda: body
    memo: list = []

    def read() -> Submission:
        if not memo:
            try:
                memo.append((body(), None))
            except Exception as exc:  # kept, and raised where the full path reads the body
                memo.append((None, exc))
        submission, error = memo[0]
        if error is not None:
            raise error
        return submission

    return read
