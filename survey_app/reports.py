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
(``CLOSED``), the body itself (the reader's exception propagates), the protocol version the body states
(``STALE_PROTOCOL``: the report was randomized under other settings; ``INVALID`` if not a string), the report
(``INVALID`` with the field), the
admission (a token survey: ``INVALID`` on ``token`` when the body holds the token, ``CREDENTIAL_MISSING``,
``INVALID`` for a malformed or unverifiable credential, ``CREDENTIAL_USED``); otherwise ``STORED``.

Unlinkable invitations (issue 11, ``survey_app.credentials``): the blind-signature redemption is a second entry point
beside ``submit_report`` that reuses ``consume_token``; a token survey's report is a ``Submission`` with a credential
instead of a token, admitted by ``admit`` (signature check, then the insert of its hash under a uniqueness
constraint, in the report's transaction). Reports go to the inbox (``PendingReport``, random keys); the fold moves
them into ``Report`` in shuffled order (``aggregator.services``).
"""
from __future__ import annotations

import copy
import datetime
import enum
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils.translation import gettext_lazy as _

from aggregator.privacy.survey_protocol import ReportError

from .models import InvitationToken, PendingReport, Survey
from .protocol import get_protocol


class Result(enum.Enum):
    """What became of a submission (``Outcome.result``)."""

    STORED = "stored"
    NOT_FOUND = "not_found"          # no such survey, or a draft
    CLOSED = "closed"
    INVALID = "invalid"              # the report does not fit the protocol: ``Outcome.field`` names where
    TOKEN_UNKNOWN = "token_unknown"  # a redemption with a token the survey never issued
    TOKEN_USED = "token_used"
    # Unlinkable invitations (survey_app/credentials.py, issue 11):
    CREDENTIAL_MISSING = "credential_missing"  # a token survey's report without a credential
    CREDENTIAL_USED = "credential_used"        # the credential already added a report
    NO_INVITATIONS = "no_invitations"          # a redemption for an open-link survey
    SIGNED = "signed"                          # a redemption succeeded: the blind signature is in the answer
    STALE_VERSION = "stale_version"            # a validation report of a version not evaluated today (issue 11)
    STALE_PROTOCOL = "stale_protocol"          # a report randomized under another protocol than the survey's


#: The refusal (``INVALID``, field ``token``) of a token survey's report that carries the invitation token.
TOKEN_IN_REPORT = ("A report to this survey carries a credential, never the invitation token: redeem the token at "
                   "/api/surveys/{slug}/invitations/redeem/ with a blinded message, then send the report with the "
                   "unblinded credential {{value, signature, key_id}}, so that the server never sees the token and "
                   "the report together.")

#: The message of each result that has a fixed one (``INVALID`` carries the engine's).
# Shown to respondents (the API's "detail"), in the request's language.
MESSAGES = {
    Result.STORED: "stored",
    Result.NOT_FOUND: _("No such survey."),
    Result.CLOSED: _("This survey is closed and no longer accepts answers."),
    Result.TOKEN_UNKNOWN: _("Unknown invitation token."),
    Result.TOKEN_USED: _("This invitation has already been used."),
    Result.CREDENTIAL_MISSING: _("This survey needs an invitation: send the report with the credential obtained by "
                               "redeeming your invitation token."),
    Result.CREDENTIAL_USED: _("This credential has already been used: its report was received."),
    Result.NO_INVITATIONS: _("This survey takes no invitations: it is open to anyone with its link."),
    Result.SIGNED: "signed",
    Result.STALE_VERSION: _("This validation report evaluated a model version that validation respondents no longer "
                          "evaluate today (a new day began, UTC): fetch the model with ?for=validation and prepare "
                          "the report again."),
    Result.STALE_PROTOCOL: _("This report was randomized under other privacy settings than this survey's (its "
                           "protocol_version is not the survey's), so it was not stored: fetch the survey's protocol "
                           "again and prepare the report anew."),
}


@dataclass(frozen=True)
class Outcome:
    """The result of a submission, its message, and for ``INVALID`` the field at fault as a dotted path into the
    submission (``report.input``, ``report.validation.version``)."""

    result: Result
    message: str = ""
    field: str | None = None

    @classmethod
    def of(cls, result: Result) -> Outcome:
        return cls(result, MESSAGES[result])

    @classmethod
    def invalid(cls, field: str, message: str) -> Outcome:
        return cls(Result.INVALID, message, field)

    @property
    def stored(self) -> bool:
        return self.result is Result.STORED


STORED = Outcome.of(Result.STORED)


@dataclass(frozen=True)
class Submission:
    """A parsed request body: the randomized report (as the browser sent it: it is stored verbatim), the invitation
    token if any (refused for token surveys: ``TOKEN_IN_REPORT``) and the credential object if any (a token survey's
    ``{"value", "signature", "key_id"}``, read by ``survey_app.credentials.parse_credential``)."""

    report: Any
    token: str | None = None
    credential: Any = None
    protocol_version: Any = None


def protocol_refusal(protocol, submission: Submission) -> Outcome | None:
    """The refusal of a submission that states a protocol version other than ``protocol``'s (``STALE_PROTOCOL``:
    it was randomized under other settings), or ``INVALID`` when the stated version is not a string; ``None`` when
    it states ``protocol.version`` or none (the report is then judged by its shape alone)."""
    stated = submission.protocol_version
    if stated is None:
        return None
    if not isinstance(stated, str):
        return Outcome.invalid("protocol_version", "must be a string: the SHA-256 (hex) of the protocol the report "
                                                   "was randomized under")
    return None if stated == protocol.version else Outcome.of(Result.STALE_PROTOCOL)


#: A submission, or a function reading it from the request (called at most once; see ``submit_report``).
Body = Submission | Callable[[], Submission]


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
    refused = protocol_refusal(protocol, submission)
    if refused is not None:
        return refused
    try:
        protocol.parse_one(submission.report)
    except ReportError as exc:
        return Outcome.invalid(f"report.{exc.field}", exc.message)
    now = datetime.datetime.now(datetime.UTC)  # one instant for the version check and the report's day
    version = protocol.validated_version(submission.report)
    if version is not None and version != current_validation_version(survey, now):
        if not survey.model_versions.filter(version=version).exists():
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
    from .credentials import credential_digest, parse_credential  # credentials builds on this module
    from .models import SpentCredential

    credential = parse_credential(submission.credential) if submission.credential is not None else None
    return (credential is not None and not isinstance(credential, Outcome)
            and SpentCredential.objects.filter(survey=survey, digest=credential_digest(credential.value)).exists())


def admit(survey: Survey, submission: Submission) -> Outcome | None:
    """``None`` if the submission may add a report to ``survey`` (a link survey; a token survey's valid, unspent
    credential, now spent: ``survey_app.credentials.spend``), else the refusal. Call inside the transaction that
    stores the report. A token survey's report never carries the token (the server must not see the token and the
    credential's value together): such a body is refused, whatever else it holds."""
    if survey.access != Survey.Access.TOKENS:
        return None
    from .credentials import parse_credential, spend  # credentials builds on this module

    if submission.token is not None:
        return Outcome.invalid("token", TOKEN_IN_REPORT.format(slug=survey.slug))
    if submission.credential is None:
        return Outcome.of(Result.CREDENTIAL_MISSING)
    credential = parse_credential(submission.credential)
    if isinstance(credential, Outcome):
        return credential
    return spend(survey, credential)


def consume_token(survey: Survey, token: str, redeemed_with: str = "") -> Outcome | None:
    """Mark ``token`` used if it is an unused invitation of ``survey`` (``None``), else ``TOKEN_USED`` or
    ``TOKEN_UNKNOWN``. A conditional UPDATE (used false → true): of concurrent calls with one token, exactly one
    succeeds (PostgreSQL's row lock; tests/survey/test_token_race.py).

    ``redeemed_with`` (the SHA-256 of the blinded message being signed) is stored with the token, and a used token
    redeemed again with the same non-empty digest is admitted once more (``None``): the same blinded message gets
    the same signature, so a browser whose first answer was lost can retry without gaining a second credential."""
    quote, meta = connection.ops.quote_name, InvitationToken._meta
    used_column, redeemed_column, survey_column, token_column = (
        quote(meta.get_field(name).column) for name in ("used", "redeemed_with", "survey", "token"))
    with connection.cursor() as cursor:  # the ORM's .update(), without its per-call compilation (bench/load)
        cursor.execute(f"UPDATE {quote(meta.db_table)} SET {used_column} = true, {redeemed_column} = %s "
                       f"WHERE {survey_column} = %s AND {token_column} = %s AND NOT {used_column}",
                       [redeemed_with, survey.pk, token])
        if cursor.rowcount == 1:
            return None
    used = InvitationToken.objects.filter(survey=survey, token=token).values_list("redeemed_with", flat=True).first()
    if used is None:
        return Outcome.of(Result.TOKEN_UNKNOWN)
    if redeemed_with and used == redeemed_with:
        return None
    return Outcome.of(Result.TOKEN_USED)


def utc_midnight(now: datetime.datetime | None = None) -> datetime.datetime:
    """The start of the current UTC day."""
    now = (now or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def current_validation_version(survey: Survey, now: datetime.datetime | None = None) -> int | None:
    """The number of the version validation respondents evaluate today: the newest published before the current
    UTC day began (``aggregator.services.validation_version``), so a validation report's version tells no more than
    its day; a report naming any other is refused (``STALE_VERSION``)."""
    return (survey.model_versions.filter(created_at__lt=utc_midnight(now)).order_by("-version")
            .values_list("version", flat=True).first())



def todays_assignment(survey: Survey, now: datetime.datetime | None = None) -> tuple[list | None, str]:
    """Adaptive allocation: (the stored assignment of respondents to inputs for today, its source). Set by the
    version validation respondents evaluate today (``current_validation_version``: "model"), so it changes only at
    midnight (UTC) and tells nothing finer than the day; before any version by the public reference sample
    (``survey_app.pilot``: "sample"); else ``(None, "uniform")``. The protocol checks it before use
    (``served_assignment``)."""
    metrics = (survey.model_versions.filter(created_at__lt=utc_midnight(now)).order_by("-version")
               .values_list("metrics", flat=True).first())
    if metrics is not None:
        return metrics.get("assignment"), "model"
    if survey.pilot_assignment is not None:
        return survey.pilot_assignment, "sample"
    return None, "uniform"


# -- the survey, cached per row version ----------------------------------------------------------------------------

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
        from .credentials import spend_statement, verified  # credentials builds on this module

        credential = verified(submission.credential)
        if credential is None:
            return False
        spend = spend_statement(survey, credential)
    elif survey.access != Survey.Access.LINK:
        return False
    try:
        protocol = _protocol_of(slug, cached)
        if protocol_refusal(protocol, submission) is not None:
            return False
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
        versions = Survey._meta.get_field("model_versions").related_model._meta
        survey_column, version_column, created_column = (
            quote(versions.get_field(name).column) for name in ("survey", "version", "created_at"))
        guard += (f" AND %s = (SELECT max({version_column}) FROM {quote(versions.db_table)} WHERE "
                  f"{survey_column} = %s AND {created_column} < %s)")
        params += [version, survey_id, utc_midnight(now)]
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
