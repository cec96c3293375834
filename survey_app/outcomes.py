"""What became of a report or a redemption: the results of the ingestion services (``survey_app.reports``,
``survey_app.credentials``), their messages, and the parsed request body they take."""
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class Result(enum.Enum):
    """What became of a submission (``Outcome.result``)."""

    STORED = "stored"
    NOT_FOUND = "not_found"          # no such survey, or a draft
    CLOSED = "closed"
    INVALID = "invalid"              # the report does not fit the protocol: ``Outcome.field`` names where
    TOKEN_UNKNOWN = "token_unknown"  # a redemption with a token the survey never issued
    TOKEN_USED = "token_used"
    # Unlinkable invitations (survey_app/credentials.py):
    CREDENTIAL_MISSING = "credential_missing"  # a token survey's report without a credential
    CREDENTIAL_USED = "credential_used"        # the credential already added a report
    NO_INVITATIONS = "no_invitations"          # a redemption for an open-link survey
    SIGNED = "signed"                          # a redemption succeeded: the blind signature is in the answer
    STALE_VERSION = "stale_version"            # a validation report of a version not evaluated today
    STALE_PROTOCOL = "stale_protocol"          # a report randomized under another protocol than the survey's


#: The refusal (``INVALID``, field ``token``) of a token survey's report that carries the invitation token.
TOKEN_IN_REPORT = ("A report to this survey carries a credential, never the invitation token: redeem the token at "
                   "/api/surveys/{slug}/invitations/redeem/ with a blinded message, then send the report with the "
                   "unblinded credential {{value, signature, key_id}}, so that the server never sees the token and "
                   "the report together.")

#: The message of each result that has a fixed one (``INVALID`` carries the engine's).
# Shown to respondents (the API's "detail"), in the request's language.
MESSAGES: dict[Result, StrOrPromise] = {
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
    message: StrOrPromise = ""
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
