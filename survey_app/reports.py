"""Report ingestion: one randomized report in, one ``Outcome`` out (the report API's service; no HTTP here).

``submit_report(slug, body)`` does everything between a parsed request body and a stored row, each check once: it
finds the public survey (``survey_app.surveys``, cached per PostgreSQL row version, its version checked by the
report's own INSERT), checks the report against the
survey's protocol (``SurveyProtocol.parse_one``) and, for a validation report, that the model version it evaluated
is the one evaluated today, admits the respondent (a token survey: ``survey_app.credentials.admit_credential``, the
credential's digest spent in the report's own INSERT) and stores the report (``store_report``, the one writer of
inbox rows: one INSERT). The view (``survey_app.respondent_views.report``) parses the body and maps the ``Outcome``
onto a status code.

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
``submit_report`` (``survey_app.credentials.redeem``); a token survey's report carries a credential instead of a
token. Reports go to the inbox (``PendingReport``, random keys: ``survey_app.inbox.store_report``); the drain moves
them into ``Report`` in shuffled order (``survey_app.inbox``, called by ``aggregator.services``).
"""
from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, cast

from aggregator import selectors as published
from aggregator.privacy.protocol import ReportError

from . import credentials
from .inbox import nonce_stored, store_report
from .models import SpentCredential, Survey
from .outcomes import STORED, Body, Outcome, Result, Submission, protocol_refusal
from .protocol import get_protocol
from .surveys import PublicSurvey, cached_public_survey, read_public_survey, still_current, version_guard


def submit_report(slug: str, body: Body) -> Outcome:
    """Check and store one report sent to the survey ``slug``; the ``Outcome`` says what happened.

    ``body`` may be a function reading the submission from the request: it is called once, after the survey is known
    to exist and be open, so ``NOT_FOUND`` and ``CLOSED`` come before the request's own 400, 413 or 415 (its
    exception propagates). Each check runs once, in the order of the module docstring; nothing is stored unless the
    outcome is ``STORED``. A submission whose ``nonce`` is already stored with a report of the survey is answered
    ``STORED`` and not stored again (a resend after a lost answer: ``store_report``).

    The survey as this process last read it (``cached_public_survey``) is used without a query, and the report's
    INSERT holds its row version (``version_guard``): one statement per report. Should the survey have changed, the
    INSERT writes nothing, and the report is judged again against the survey as it is now (a refusal likewise: it
    is answered only once the survey is known to be unchanged)."""
    read = _ReadOnce(body)
    found = cached_public_survey(slug)
    if found is not None and found.survey.status == Survey.Status.OPEN:
        try:
            outcome = _submit(found, read, guarded=True)
        except Exception:
            if still_current(found):
                raise
            outcome = None  # the survey changed: its own refusal (404, 410) may come before the body's
        if outcome is not None:
            return outcome
    found = read_public_survey(slug)
    if found is None:
        return Outcome.of(Result.NOT_FOUND)
    if found.survey.status != Survey.Status.OPEN:
        return Outcome.of(Result.CLOSED)
    return cast(Outcome, _submit(found, read, guarded=False))


class _ReadOnce:
    """The submission of a ``Body``, read at most once (its exception, if reading raised, raised again)."""

    def __init__(self, body: Body):
        self.body = body
        self.result: Submission | Exception | None = body if isinstance(body, Submission) else None

    def __call__(self) -> Submission:
        if self.result is None:
            try:
                self.result = cast(Callable[[], Submission], self.body)()
            except Exception as exc:
                self.result = exc
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def _submit(found: PublicSurvey, read: _ReadOnce, guarded: bool) -> Outcome | None:
    """``submit_report``'s checks and write against the open survey ``found``. ``guarded``: ``found`` may be out of
    date — the write holds its row version, and ``None`` (judge again) is returned when the survey has changed."""
    survey = found.survey
    guard = version_guard(found) if guarded else None

    def answer(outcome: Outcome) -> Outcome | None:
        return outcome if not guarded or still_current(found) else None

    submission = read()
    protocol = protocol_of(found)
    refused = protocol_refusal(protocol, submission)
    if refused is not None:
        if guarded and not still_current(found):
            return None
        # a resend of a report stored before (its answer lost) is answered as stored, not refused
        return STORED if refused.result is Result.STALE_PROTOCOL and nonce_stored(survey, submission.nonce) \
            else refused
    try:
        protocol.parse_one(submission.report)
    except ReportError as exc:
        return answer(Outcome.invalid(f"report.{exc.field}", exc.message))
    now = datetime.datetime.now(datetime.UTC)  # one instant for the version check and the report's day
    version = protocol.validated_version(submission.report)
    if version is not None and version != current_validation_version(survey, now):
        if guarded and not still_current(found):
            return None
        if not published.version_exists(survey, version):
            return Outcome.invalid("report.validation.version", "No such published model version.")
        if nonce_stored(survey, submission.nonce):
            return STORED  # a resend, after midnight, of a report received before
        if survey.access == Survey.Access.TOKENS and _spent(survey, submission):
            # A kept report already received (its answer lost) and retried after midnight: it was stored, and the
            # page must hear so (409 credential used) — not prepare and send another one.
            return Outcome.of(Result.CREDENTIAL_USED)
        return Outcome.of(Result.STALE_VERSION)
    if survey.access != Survey.Access.TOKENS:
        # Adds nothing only when the nonce is stored (a resend of a report received before, answered as stored) or,
        # guarded, when the survey has changed.
        if store_report(survey, submission.report, nonce=submission.nonce, day=now.date(), guard=guard):
            return STORED
        return answer(STORED)
    refused, stored = credentials.admit_credential(survey, submission, now.date(), guard=guard)
    if refused is not None:
        return answer(refused)
    if stored:
        return STORED
    if guarded and not still_current(found):
        return None
    if nonce_stored(survey, submission.nonce):
        return STORED
    return Outcome.of(Result.CREDENTIAL_USED)


def _spent(survey: Survey, submission: Submission) -> bool:
    """Whether the submission's credential (well formed) has already added a report to ``survey``."""
    credential = credentials.parse_credential(submission.credential) if submission.credential is not None else None
    return (credential is not None and not isinstance(credential, Outcome)
            and SpentCredential.objects.filter(survey=survey,
                                               digest=credentials.credential_digest(credential.value)).exists())


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


def protocol_of(found: PublicSurvey) -> Any:
    """``get_protocol`` of the survey ``found``, computed once per row version (kept with it: ``PublicSurvey.memo``)
    — ``get_protocol`` itself keys its cache by every field of the survey, which costs more than a lookup."""
    protocol = found.memo.get("protocol")
    if protocol is None:
        protocol = found.memo["protocol"] = get_protocol(found.survey)
    return protocol
