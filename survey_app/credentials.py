"""Unlinkable invitations (RFC 9474 blind RSA signatures, the Privacy Pass pattern): the service.

A token survey's respondent takes part in two requests the server cannot link:

1. **Redeem** (``redeem``): the invitation token and a *blinded* message the browser made from a random value only
   it knows (``static/js/credentials/blind.mjs``). The token is marked used by the conditional UPDATE of
   ``consume_token``, a statement of its own, and the survey's active key signs the blinded
   message (``aggregator.privacy.blind_rsa.blind_sign``). The blinded message is uniformly distributed whatever the
   value (RFC 9474 §7), so nothing stored or answered here says anything about the value.
2. **Report** (``survey_app.reports.submit_report`` → ``admit_credential``): the report with the credential
   ``{"value", "signature", "key_id"}`` (the prepared value and the unblinded signature, base64url). The signature is
   a standard RSA-PSS signature, checked with the survey key named by ``key_id`` (any key of the survey: a rotation
   never strands a respondent between the two requests); the SHA-256 of the value is inserted into
   ``SpentCredential`` by the report's own INSERT, so each credential adds one report (a second use is refused).

The server never sees a token and a value together; a report body of a token survey that carries a token is refused
(``TOKEN_IN_REPORT``). Keys: ``active_key`` makes one on first use (a survey opened with token access has one as soon
as its protocol, page or redemption is first asked for); ``rotate_key`` retires the active key for a new one.
"""
from __future__ import annotations

import datetime
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from django.db import IntegrityError, connection, transaction
from django.db.models import Field

from aggregator.privacy import blind_rsa

from .caching import BoundedCache
from .inbox import store_report
from .models import InvitationToken, SpentCredential, Survey, SurveyKey
from .outcomes import TOKEN_IN_REPORT, Outcome, Result, Submission
from .surveys import PublicSurvey, cached_public_survey, read_public_survey, still_current, version_guard

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import rsa

__all__ = ["Credential", "Redemption", "active_key", "rotate_key", "public_credential", "redeem", "parse_credential",
           "admit_credential", "credential_digest", "spend_statement", "warm_keys", "PendingCredential",
           "start_credential", "finish_credential"]

#: Longest base64url text accepted for a value or signature: a 4096-bit signature is 683 characters.
MAX_FIELD_CHARS = 1024


# -- keys ------------------------------------------------------------------------------------------------------------

def _new_key(survey: Survey) -> SurveyKey:
    private = blind_rsa.generate_key()
    public = private.public_key()
    return SurveyKey.objects.create(
        survey=survey, key_id=blind_rsa.key_id(public), public_spki=blind_rsa.public_key_to_spki(public),
        private_pem=blind_rsa.private_key_to_pem(private).decode("ascii"), active=True)


def active_key(survey: Survey) -> SurveyKey:
    """The survey's active signing key, made on first use. Concurrent first uses make one key: the partial unique
    constraint ``one_active_key_per_survey`` refuses the others, which then read the winner's."""
    key = SurveyKey.objects.filter(survey=survey, active=True).first()
    if key is not None:
        return key
    try:
        with transaction.atomic():
            return _new_key(survey)
    except IntegrityError:
        return SurveyKey.objects.get(survey=survey, active=True)


def rotate_key(survey: Survey) -> SurveyKey:
    """Retire the active key (it still verifies credentials it signed) and make a new active one."""
    with transaction.atomic():
        Survey.objects.select_for_update().filter(pk=survey.pk).values_list("pk").first()  # serialises rotations
        SurveyKey.objects.filter(survey=survey, active=True).update(active=False)
        return _new_key(survey)


def public_credential(survey: Survey) -> dict | None:
    """What the protocol publishes for a token survey (``None`` for an open-link one): the variant and the active
    key, ``{"variant", "key_id", "spki"}`` (SPKI DER, base64url; ``key_id`` its hex SHA-256)."""
    if survey.access != Survey.Access.TOKENS:
        return None
    key = active_key(survey)
    return {"variant": blind_rsa.VARIANT, "key_id": key.key_id, "spki": key.public_spki}


# Keys are content-addressed (``key_id`` is the SHA-256 of the public key) and never change, so a process keeps the
# keys it has read by id (``BoundedCache``); whether a key is the survey's active one, or a key of the survey at all,
# is checked by the database in the statement that relies on it (the redemption's UPDATE, the guarded INSERT of
# ``spend``). This spares each redemption the ORM reads and the PEM parsing.

#: Private keys ready to sign, public keys ready to verify, by key id; the id of each survey's active key as last
#: read, by survey id (checked by every redemption's UPDATE).
_SIGNING_KEYS: BoundedCache[str, blind_rsa.SigningKey] = BoundedCache(256)
_PUBLIC_KEYS: BoundedCache[str, rsa.RSAPublicKey] = BoundedCache(1024)
_ACTIVE_KEYS: BoundedCache[int, str] = BoundedCache(1024)


def _column(model, name: str) -> str:
    return connection.ops.quote_name(cast(Field, model._meta.get_field(name)).column)


def _active_key_id(survey: Survey) -> str | None:
    """The id of the survey's active key (one SELECT, no ORM), or ``None`` if it has none yet."""
    table = connection.ops.quote_name(SurveyKey._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_column(SurveyKey, 'key_id')} FROM {table} "
                       f"WHERE {_column(SurveyKey, 'survey')} = %s AND {_column(SurveyKey, 'active')}", [survey.pk])
        row = cursor.fetchone()
    if row is not None:
        _ACTIVE_KEYS.put(survey.pk, row[0])
    return row[0] if row else None


def _signing_key(key_id: str) -> blind_rsa.SigningKey:
    """The private key ``key_id``, ready to sign (read and handed to OpenSSL once per process)."""
    return _SIGNING_KEYS.get_or_build(key_id, lambda: blind_rsa.SigningKey(blind_rsa.private_key_from_pem(
        SurveyKey.objects.values_list("private_pem", flat=True).get(key_id=key_id))))


def _remember_public_key(key_id: str, spki: str) -> rsa.RSAPublicKey:
    """The public key ``key_id`` (its SPKI ``spki``), kept where ``admit_credential`` looks (``_PUBLIC_KEYS``)."""
    return _PUBLIC_KEYS.get_or_build(key_id, lambda: blind_rsa.public_key_from_spki(spki))


def warm_keys(survey: Survey) -> int:
    """Read the token survey ``survey``'s keys into this process's caches, as its first redemption and first report
    would (the active key ready to sign, every key of the survey to verify); the number of keys read. A worker calls
    it as it starts (``survey_app.api.warm_protocols``), so that its first redemptions and reports do not wait for
    the keys to be read and parsed."""
    if survey.access != Survey.Access.TOKENS:
        return 0
    keys = list(SurveyKey.objects.filter(survey=survey).values_list("key_id", "public_spki", "active"))
    for key_id, spki, active in keys:
        _remember_public_key(key_id, spki)
        if active:
            _signing_key(key_id)
            _ACTIVE_KEYS.put(survey.pk, key_id)
    return len(keys)


# -- redemption ------------------------------------------------------------------------------------------------------

def consume_token(survey: Survey, token: str, redeemed_with: str = "",
                  guard: tuple[str, list, Callable[[], bool]] | None = None) -> Outcome | None:
    """Mark ``token`` used if it is an unused invitation of ``survey`` (``None``), else ``TOKEN_USED`` or
    ``TOKEN_UNKNOWN``. A conditional UPDATE (used false → true): of concurrent calls with one token, exactly one
    succeeds (PostgreSQL's row lock; tests/survey/test_token_race.py).

    ``redeemed_with`` (the SHA-256 of the blinded message being signed) is stored with the token, and a used token
    redeemed again with the same non-empty digest is admitted once more (``None``): the same blinded message gets
    the same signature, so a browser whose first answer was lost can retry without gaining a second credential.
    The day it is redeemed is stored and the row marked ``fresh``: the next drain rewrites it with the rest of its
    day (``survey_app.inbox.rewrite_redemptions``).

    ``guard`` (a SQL condition, its parameters, and a function telling whether it still holds): the UPDATE marks the
    token only if the condition holds; if it writes nothing and the condition no longer holds, ``Changed`` is
    raised (nothing was written)."""
    quote, meta = connection.ops.quote_name, InvitationToken._meta
    used_column, redeemed_column, survey_column, token_column, day_column, fresh_column = (
        quote(cast(Field, meta.get_field(name)).column)
        for name in ("used", "redeemed_with", "survey", "token", "redeemed_on", "fresh"))
    with connection.cursor() as cursor:  # the ORM's .update(), without its per-call compilation (bench/load)
        condition, parameters = (guard[0], guard[1]) if guard is not None else ("true", [])
        cursor.execute(f"UPDATE {quote(meta.db_table)} SET {used_column} = true, {redeemed_column} = %s, "
                       f"{day_column} = %s, {fresh_column} = true "
                       f"WHERE {survey_column} = %s AND {token_column} = %s AND NOT {used_column} AND {condition}",
                       [redeemed_with, datetime.datetime.now(datetime.UTC).date(), survey.pk, token, *parameters])
        if cursor.rowcount == 1:
            return None
    if guard is not None and not guard[2]():
        raise Changed
    used = InvitationToken.objects.filter(survey=survey, token=token).values_list("redeemed_with", flat=True).first()
    if used is None:
        return Outcome.of(Result.TOKEN_UNKNOWN)
    if redeemed_with and used == redeemed_with:
        return None
    return Outcome.of(Result.TOKEN_USED)



class Changed(Exception):
    """A guarded write wrote nothing because the survey or its active key changed since this process read them."""


@dataclass(frozen=True)
class Redemption:
    """The outcome of ``redeem``: ``outcome`` says what happened; when it is ``SIGNED``, ``blind_signature``
    (base64url) and the ``key_id`` of the key that signed."""

    outcome: Outcome
    blind_signature: str | None = None
    key_id: str | None = None


def redeem(slug: str, token: str, blinded_msg: str, key_id: str | None = None) -> Redemption:
    """Spend the invitation ``token`` of survey ``slug`` for a blind signature on ``blinded_msg`` (base64url).

    Checks, in order, each once: the survey (``NOT_FOUND``; ``CLOSED``; ``NO_INVITATIONS`` for an open-link survey),
    the blinded message and ``key_id`` (``INVALID``: the message must be the key's size and below its modulus; a
    ``key_id`` other than the active key's means the browser blinded for a retired key: it is signed only as a retry,
    below, else refused), then the token (``TOKEN_UNKNOWN``, ``TOKEN_USED`` — unless the token was redeemed with
    this very blinded message: a retry after a lost answer is signed again, the same signature, no second
    credential). The token is the only thing written: its conditional UPDATE commits by itself before the signature,
    and if signing raises (only a faulty computation can) the token is given back before the error propagates.

    One statement when this process has read the survey and its active key before (``cached_public_survey``,
    ``_ACTIVE_KEYS``): the token's UPDATE holds the survey's row version and the key's being active, and a
    refusal is answered once both are known unchanged; otherwise, or if either changed, both are read again and
    the redemption judged against them."""
    found = cached_public_survey(slug)
    if found is not None and found.survey.status == Survey.Status.OPEN and found.survey.access == Survey.Access.TOKENS:
        active_id = _ACTIVE_KEYS.get(found.survey.pk)
        if active_id is not None and key_id in (None, active_id):
            try:
                return _redeem(found.survey, token, blinded_msg, key_id, active_id, _key_guard(found, active_id))
            except Changed:
                pass
    found = read_public_survey(slug)
    if found is None:
        return Redemption(Outcome.of(Result.NOT_FOUND))
    survey = found.survey
    if survey.status != Survey.Status.OPEN:
        return Redemption(Outcome.of(Result.CLOSED))
    if survey.access != Survey.Access.TOKENS:
        return Redemption(Outcome.of(Result.NO_INVITATIONS))
    active_id = _active_key_id(survey)
    if active_id is None:
        active_id = active_key(survey).key_id
    return _redeem(survey, token, blinded_msg, key_id, active_id, None)


def _key_guard(found: PublicSurvey, active_id: str) -> tuple[str, list, Callable[[], bool]]:
    """The condition of a guarded redemption: the survey at its row version, ``active_id`` its active key."""
    condition, parameters = version_guard(found)
    table = connection.ops.quote_name(SurveyKey._meta.db_table)
    survey_id = found.survey.pk
    return (f"{condition} AND EXISTS (SELECT 1 FROM {table} WHERE {_column(SurveyKey, 'survey')} = %s "
            f"AND {_column(SurveyKey, 'key_id')} = %s AND {_column(SurveyKey, 'active')})",
            [*parameters, survey_id, active_id],
            lambda: still_current(found) and _active_key_id(found.survey) == active_id)


def _redeem(survey: Survey, token: str, blinded_msg: str, key_id: str | None, active_id: str,
            guard: tuple[str, list, Callable[[], bool]] | None) -> Redemption:
    """``redeem`` for the open token survey ``survey`` whose active key is ``active_id``; with ``guard``, both as
    last read (``Changed`` when either has changed)."""
    changed = Outcome.invalid(
        "key_id", "This survey's key has changed since the page was loaded: reload the page and send again.")
    # A retired key of the survey signs only a retry: the token was redeemed with this very blinded message before
    # the rotation, and the answer was lost (so a rotation never strands a respondent between the two requests).
    retry_only = key_id is not None and key_id != active_id
    if retry_only and not SurveyKey.objects.filter(survey=survey, key_id=key_id).exists():
        return Redemption(changed)
    signing_id = key_id if key_id is not None and retry_only else active_id
    private = _signing_key(signing_id)
    message = _blinded_message(private, blinded_msg)
    if message is None:
        if guard is not None and not guard[2]():
            raise Changed
        return Redemption(Outcome.invalid(
            "blinded_msg", f"Not a blinded message for this survey's key ({blind_rsa.VARIANT}, unpadded base64url "
                           f"of {private.k_len} bytes below the modulus)."))
    digest = hashlib.sha256(message).hexdigest()
    if retry_only:
        if not InvitationToken.objects.filter(survey=survey, token=token, used=True, redeemed_with=digest).exists():
            return Redemption(changed)
    else:
        refused = consume_token(survey, token, digest, guard)
        if refused is not None:
            return Redemption(refused)
    try:
        signature = blind_rsa.blind_sign(private, message)
    except BaseException:
        if not retry_only:
            InvitationToken.objects.filter(survey=survey, token=token, redeemed_with=digest).update(
                used=False, redeemed_with="", redeemed_on=None, fresh=False)
        raise
    return Redemption(Outcome.of(Result.SIGNED), blind_rsa.b64url_encode(signature), signing_id)


def _blinded_message(private: blind_rsa.SigningKey, blinded_msg: str) -> bytes | None:
    """The blinded message (bytes) if ``blinded_msg`` is unpadded base64url of the key's size below its modulus."""
    try:
        message = blind_rsa.b64url_decode(blinded_msg) if len(blinded_msg) <= MAX_FIELD_CHARS else None
    except blind_rsa.BlindRSAError:
        return None
    if message is None or len(message) != private.k_len or int.from_bytes(message, "big") >= private.n:
        return None
    return message


# -- reports ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Credential:
    """An unblinded credential as a report carries it: the prepared value and its signature (bytes), the key id."""

    value: bytes
    signature: bytes
    key_id: str


def parse_credential(data) -> Credential | Outcome:
    """The ``Credential`` of a report body's ``"credential"`` object, or an ``INVALID`` outcome naming the field."""
    if not isinstance(data, dict):
        return Outcome.invalid("credential", "Expected an object {value, signature, key_id}.")
    unknown = sorted(str(k) for k in data if k not in ("value", "signature", "key_id"))
    if unknown:
        return Outcome.invalid(f"credential.{unknown[0][:40]}", "Unexpected field; a credential holds only value, "
                                                                  "signature and key_id.")
    decoded = {}
    for name in ("value", "signature"):
        text = data.get(name)
        if not isinstance(text, str) or not text or len(text) > MAX_FIELD_CHARS:
            return Outcome.invalid(f"credential.{name}", "Expected unpadded base64url text.")
        try:
            decoded[name] = blind_rsa.b64url_decode(text)
        except blind_rsa.BlindRSAError as exc:
            return Outcome.invalid(f"credential.{name}", f"Expected unpadded base64url text ({exc}).")
    key_id = data.get("key_id")
    if not isinstance(key_id, str) or len(key_id) != 64 or key_id.strip("0123456789abcdef"):
        return Outcome.invalid("credential.key_id", "Expected the survey key's id (64 lowercase hex digits).")
    return Credential(decoded["value"], decoded["signature"], key_id)


def credential_digest(value: bytes) -> str:
    """What ``SpentCredential`` keeps of a spent credential: the hex SHA-256 of its prepared value."""
    return hashlib.sha256(value).hexdigest()


def admit_credential(survey: Survey, submission: Submission, day: datetime.date,
                     guard: tuple[str, list] | None = None) -> tuple[Outcome | None, bool]:
    """Admit and store a token survey's report: (the refusal or ``None``, whether the report was stored).

    A report that carries the invitation token is refused (``INVALID`` on ``token``: the server must not see the
    token and the credential's value together), one without a credential too (``CREDENTIAL_MISSING``), and a
    credential that is malformed, names no key of ``survey`` or does not verify (``INVALID``). Otherwise the
    credential's digest and the report are inserted together (``store_report`` with ``spend_statement``: both or
    neither); ``(None, False)`` then means the digest was already spent — or the report's nonce is already stored,
    which the caller tells apart. The digest's INSERT … ON CONFLICT DO NOTHING waits for a concurrent insert of the
    same digest and then adds nothing, so of concurrent reports with one credential exactly one is stored
    (tests/survey/test_credential_race.py). ``guard`` (``survey_app.surveys.version_guard``, PostgreSQL): neither is
    inserted unless it holds, and ``(None, False)`` may then also mean that it did not."""
    if submission.token is not None:
        return Outcome.invalid("token", TOKEN_IN_REPORT.format(slug=survey.slug)), False
    if submission.credential is None:
        return Outcome.of(Result.CREDENTIAL_MISSING), False
    credential = parse_credential(submission.credential)
    if isinstance(credential, Outcome):
        return credential, False
    no_key = Outcome.invalid("credential.key_id", "No such key for this survey: the credential was not signed for it.")
    public = _PUBLIC_KEYS.get(credential.key_id)
    if public is None:
        spki = (SurveyKey.objects.filter(survey=survey, key_id=credential.key_id)
                .values_list("public_spki", flat=True).first())
        if spki is None:
            return no_key, False
        public = _remember_public_key(credential.key_id, spki)
    if not blind_rsa.verify(public, credential.value, credential.signature):
        return Outcome.invalid("credential.signature", "The signature does not verify: not a credential of this "
                                                       "survey."), False
    spend = spend_statement(survey, credential, day, guard)
    if connection.vendor == "postgresql":
        stored = store_report(survey, submission.report, spend=spend, nonce=submission.nonce, day=day)
    else:  # no data-modifying CTE (the embedded SQLite): two statements in one transaction
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"{spend[0]} ON CONFLICT DO NOTHING", spend[1])
                stored = cursor.rowcount == 1 and store_report(survey, submission.report, nonce=submission.nonce,
                                                               day=day)
            if not stored:
                transaction.set_rollback(True)
    if not stored and not SurveyKey.objects.filter(survey=survey, key_id=credential.key_id).exists():
        return no_key, False  # a key this process knows, of another survey (``spend_statement``'s condition)
    return None, stored


def spend_statement(survey: Survey, credential: Credential, day: datetime.date,
                    guard: tuple[str, list] | None = None) -> tuple[str, list]:
    """The INSERT … SELECT of the credential's digest into ``SpentCredential`` on ``day`` (SQL without its ``ON
    CONFLICT`` clause, and its parameters), adding the row only if the key is (still) one of the survey's: the caches
    here know keys, not their surveys — and only if ``guard`` (a SQL condition and its parameters) holds.
    ``admit_credential`` runs it with the report's INSERT."""
    quote, meta = connection.ops.quote_name, SpentCredential._meta
    columns = ", ".join(_column(SpentCredential, name) for name in ("digest", "survey", "fresh", "day"))
    keys = quote(SurveyKey._meta.db_table)
    condition, parameters = guard if guard is not None else ("true", [])
    return (f"INSERT INTO {quote(meta.db_table)} ({columns}) SELECT %s, %s, true, %s WHERE EXISTS "
            f"(SELECT 1 FROM {keys} WHERE {_column(SurveyKey, 'survey')} = %s AND {_column(SurveyKey, 'key_id')} = %s)"
            f" AND {condition}",
            [credential_digest(credential.value), survey.pk, day, survey.pk, credential.key_id, *parameters])


# -- the client half, as the browser does it (static/js/credentials/blind.mjs): simulate and tests -------------------

@dataclass(frozen=True)
class PendingCredential:
    """What a client keeps between blinding and the server's answer: the key, the prepared value, the inverse."""

    key_id: str
    spki: str
    value: bytes
    inv: int


def start_credential(credential: dict) -> tuple[str, PendingCredential]:
    """For the protocol's ``credential`` ({"variant", "key_id", "spki"}): a fresh random value, prepared and blinded
    (RFC 9474 §4.1–4.2) → (blinded message, base64url; the pending state)."""
    if credential.get("variant") != blind_rsa.VARIANT:
        raise blind_rsa.BlindRSAError(f"unsupported variant {credential.get('variant')!r}")
    public = blind_rsa.public_key_from_spki(credential["spki"])
    if blind_rsa.key_id(public) != credential["key_id"]:
        raise blind_rsa.BlindRSAError("the key id is not the key's SHA-256")
    value = blind_rsa.prepare(secrets.token_bytes(blind_rsa.MSG_LEN))
    blinded, inv = blind_rsa.blind(public, value)
    return blind_rsa.b64url_encode(blinded), PendingCredential(credential["key_id"], credential["spki"], value, inv)


def finish_credential(pending: PendingCredential, blind_signature: str) -> dict:
    """Unblind the server's answer and check it (RFC 9474 §4.4): the report's ``credential`` object."""
    public = blind_rsa.public_key_from_spki(pending.spki)
    signature = blind_rsa.finalize(public, pending.value, blind_rsa.b64url_decode(blind_signature), pending.inv)
    return {"value": blind_rsa.b64url_encode(pending.value), "signature": blind_rsa.b64url_encode(signature),
            "key_id": pending.key_id}
