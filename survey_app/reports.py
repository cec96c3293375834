"""Report ingestion: one randomized report in, one ``Outcome`` out (the report API's service; no HTTP here).

``submit_report(slug, body)`` does everything between a parsed request body and a stored row, each check once: it
finds the public survey (``find_public_survey``, cached per PostgreSQL row version), checks the report against the
survey's protocol (``SurveyProtocol.parse_one``) and, for a validation report, that the model version it evaluated
is the one evaluated today, admits the respondent (a token survey: ``survey_app.credentials.admit_credential``, the
credential's digest spent in the report's own INSERT) and stores the report (``store_report``, the one writer of
inbox rows: one INSERT). The view (``survey_app.api.ReportView``) parses the body and maps the ``Outcome`` onto a
status code.

Checks, in order (the first that fails is the outcome): no such public survey (``NOT_FOUND``), survey closed
(``CLOSED``), the body itself (the reader's exception propagates), the protocol version the body states
(``STALE_PROTOCOL``: the report was randomized under other settings — or ``STORED`` for a resend whose nonce is
stored; ``INVALID`` if not a string), the report (``INVALID`` with the field), the validation version (``INVALID``,
``STALE_VERSION``), the admission (a token survey: ``INVALID`` on ``token`` when the body holds the token,
``CREDENTIAL_MISSING``, ``INVALID`` for a malformed or unverifiable credential, ``CREDENTIAL_USED``); otherwise
``STORED``.

Idempotency: a report may carry a random ``nonce`` (the page draws one per prepared report); it is stored with the
report, unique per survey, and a resend of a report whose nonce is stored — its first answer lost — is answered
``STORED`` and adds nothing (docs/threat-model.md: the nonce links nothing).

Unlinkable invitations (``survey_app.credentials``): the blind-signature redemption is a second entry point beside
``submit_report`` that reuses ``consume_token``; a token survey's report carries a credential instead of a token.
Reports go to the inbox (``PendingReport``, random keys); the fold moves them into ``Report`` in shuffled order
(``aggregator.services``).
"""
from __future__ import annotations

import copy
import datetime
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils.translation import gettext_lazy as _

from aggregator.privacy.survey_protocol import ReportError

from .models import InvitationToken, PendingReport, Report, Survey
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
    ``{"value", "signature", "key_id"}``, read by ``survey_app.credentials.parse_credential``) and the report's
    idempotency nonce if any (``survey_app.models.NONCE_PATTERN``), and the protocol version it states if any
    (``protocol_refusal``)."""

    report: Any
    token: str | None = None
    credential: Any = None
    nonce: str | None = None
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


#: A submission, or a function reading it from the request (called once, after the survey's checks).
Body = Submission | Callable[[], Submission]


def submit_report(slug: str, body: Body) -> Outcome:
    """Check and store one report sent to the survey ``slug``; the ``Outcome`` says what happened.

    ``body`` may be a function reading the submission from the request: it is called once, after the survey is known
    to exist and be open, so ``NOT_FOUND`` and ``CLOSED`` come before the request's own 400, 413 or 415 (its
    exception propagates). Each check runs once, in the order of the module docstring; nothing is stored unless the
    outcome is ``STORED``. A submission whose ``nonce`` is already stored with a report of the survey is answered
    ``STORED`` and not stored again (a resend after a lost answer: ``store_report``)."""
    survey = find_public_survey(slug)
    if survey is None:
        return Outcome.of(Result.NOT_FOUND)
    if survey.status != Survey.Status.OPEN:
        return Outcome.of(Result.CLOSED)
    submission = body if isinstance(body, Submission) else body()
    protocol = protocol_of(slug, survey)
    refused = protocol_refusal(protocol, submission)
    if refused is not None:
        # a resend of a report stored before (its answer lost) is answered as stored, not refused
        return STORED if refused.result is Result.STALE_PROTOCOL and nonce_stored(survey, submission.nonce) \
            else refused
    try:
        protocol.parse_one(submission.report)
    except ReportError as exc:
        return Outcome.invalid(f"report.{exc.field}", exc.message)
    now = datetime.datetime.now(datetime.UTC)  # one instant for the version check and the report's day
    version = protocol.validated_version(submission.report)
    if version is not None and version != current_validation_version(survey, now):
        if not survey.model_versions.filter(version=version).exists():
            return Outcome.invalid("report.validation.version", "No such published model version.")
        if nonce_stored(survey, submission.nonce):
            return STORED  # a resend, after midnight, of a report received before
        if survey.access == Survey.Access.TOKENS and _spent(survey, submission):
            # A kept report already received (its answer lost) and retried after midnight: it was stored, and the
            # page must hear so (409 credential used) — not prepare and send another one.
            return Outcome.of(Result.CREDENTIAL_USED)
        return Outcome.of(Result.STALE_VERSION)
    if survey.access != Survey.Access.TOKENS:
        # Adds nothing only when the nonce is stored: a resend of a report received before, answered as stored.
        store_report(survey, submission.report, nonce=submission.nonce, day=now.date())
        return STORED
    from .credentials import admit_credential  # credentials builds on this module

    refused, stored = admit_credential(survey, submission, now.date())
    if refused is not None:
        return refused
    if stored or nonce_stored(survey, submission.nonce):
        return STORED
    return Outcome.of(Result.CREDENTIAL_USED)


def nonce_stored(survey: Survey, nonce: str | None) -> bool:
    """Whether a report of ``survey`` with the idempotency ``nonce`` is stored (in the inbox or folded)."""
    if nonce is None:
        return False
    return (PendingReport.objects.filter(survey=survey, nonce=nonce).exists()
            or Report.objects.filter(survey=survey, nonce=nonce).exists())


def _spent(survey: Survey, submission: Submission) -> bool:
    """Whether the submission's credential (well formed) has already added a report to ``survey``."""
    from .credentials import credential_digest, parse_credential  # credentials builds on this module
    from .models import SpentCredential

    credential = parse_credential(submission.credential) if submission.credential is not None else None
    return (credential is not None and not isinstance(credential, Outcome)
            and SpentCredential.objects.filter(survey=survey, digest=credential_digest(credential.value)).exists())


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

def store_report(survey: Survey, payload, spend: tuple[str, list] | None = None, nonce: str | None = None,
                 day: datetime.date | None = None) -> bool:
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
    """
    quote, meta = connection.ops.quote_name, PendingReport._meta
    fields = [meta.get_field(n) for n in ("id", "survey", "payload", "received_on", "nonce")]
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
    if nonce is not None:
        report = Report._meta
        survey_column, nonce_column = (quote(report.get_field(n).column) for n in ("survey", "nonce"))
        sql += (f" WHERE NOT EXISTS (SELECT 1 FROM {quote(report.db_table)} "
                f"WHERE {survey_column} = %s AND {nonce_column} = %s) ON CONFLICT DO NOTHING")
        values += [survey.pk, nonce]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.rowcount == 1


#: ``get_protocol`` of each survey cached in ``_SURVEYS``, by slug: (that cache entry, protocol). The entry is one
#: row version, read once and never changed, so its protocol is too; ``get_protocol`` itself keys its cache by every
#: field of the survey.
_PROTOCOLS: dict[str, tuple[tuple, Any]] = {}


def protocol_of(slug: str, survey: Survey):
    """``get_protocol(survey)`` for the survey ``find_public_survey(slug)`` just returned, computed once per row
    version on PostgreSQL (``_SURVEYS``)."""
    cached = _SURVEYS.get(slug)
    if cached is None or cached[1].pk != survey.pk:
        return get_protocol(survey)
    memo = _PROTOCOLS.get(slug)
    if memo is not None and memo[0] is cached:
        return memo[1]
    protocol = get_protocol(cached[1])
    if len(_PROTOCOLS) >= _SURVEYS_SIZE:
        _PROTOCOLS.clear()
    _PROTOCOLS[slug] = (cached, protocol)
    return protocol
