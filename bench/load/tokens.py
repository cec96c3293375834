"""The load's invitation flow (issue 11; survey_app/credentials.py): token surveys' respondents redeem, then report.

A token survey's respondent makes two requests, as the browser does (``static/js/credentials/blind.mjs``):

1. ``POST /api/surveys/<slug>/invitations/redeem/`` with its invitation token and a blinded message — the server
   marks the token used and blind-signs (RFC 9474 §4.3);
2. ``POST /api/surveys/<slug>/reports/`` with the report and the unblinded credential ``{value, signature,
   key_id}`` — the server verifies it, inserts its digest into ``SpentCredential`` and the report into the inbox.

Everything the client can do ahead is done before the clock starts (``prepare``): the tokens are issued
(``InvitationToken`` rows, as a designer's invitation batch), and each respondent's value is prepared and blinded with
the survey's published key (``survey_app.credentials.start_credential``, RFC 9474 §4.1–4.2). During the load the
client only unblinds the answer (``unblind``: one modular multiplication, RFC 9474 §4.4 steps 2–4) and pastes the
signature into its pre-serialised report; it leaves the signature's check (§4.4 step 5) to the server, whose
``verify`` refuses a wrong one with a 400 that the load counts. So the client's CPU per respondent stays a few
microseconds beside the server's.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from aggregator.privacy import blind_rsa
from survey_app.credentials import active_key, public_credential, start_credential
from survey_app.models import InvitationToken, Survey

from .client import TwoStep

#: Redemption API path of a survey (``survey_app.urls``).
REDEEM_PATH = "/api/surveys/{slug}/invitations/redeem/"
#: Status of a successful redemption (``survey_app.respondent_views.redeem_invitation``).
SIGNED = 200


@dataclass(frozen=True)
class TokenRespondent:
    """One token survey respondent, prepared: the redemption body (token, blinded message, key id), the report body
    around the missing signature, and what unblinding needs (the blinding inverse and the key's modulus)."""

    redeem_body: bytes
    report_head: bytes
    report_tail: bytes
    inv: int
    n: int

    def report_body(self, answer: bytes) -> bytes:
        """The report body once the redemption answered ``answer`` (``{"blind_signature", "key_id"}``)."""
        signature = unblind(self.n, self.inv, json.loads(answer)["blind_signature"])
        return self.report_head + signature.encode("ascii") + self.report_tail


def unblind(n: int, inv: int, blind_signature: str) -> str:
    """RFC 9474 §4.4 steps 2–4: the signature (base64url) from the blind signature and the blinding inverse."""
    z = int.from_bytes(blind_rsa.b64url_decode(blind_signature), "big")
    return blind_rsa.b64url_encode((z * inv % n).to_bytes((n.bit_length() + 7) // 8, "big"))


def open_with_tokens(survey: Survey) -> None:
    """Make ``survey`` a token survey with its signing key (made now, as the first protocol GET would)."""
    survey.access = Survey.Access.TOKENS
    survey.save(update_fields=["access"])
    active_key(survey)


def prepare(survey: Survey, payloads: list) -> list[TokenRespondent]:
    """Issue one invitation per payload and prepare each respondent's redemption and report (module docstring)."""
    tokens = InvitationToken.objects.bulk_create([InvitationToken(survey=survey, batch="bench-load")
                                                  for _ in payloads], batch_size=2000)
    credential = public_credential(survey)
    n = blind_rsa.public_key_from_spki(credential["spki"]).public_numbers().n
    out = []
    for token, payload in zip(tokens, payloads, strict=True):
        blinded, pending = start_credential(credential)
        redeem = {"token": token.token, "blinded_msg": blinded, "key_id": pending.key_id}
        head = (b'{"report":' + json.dumps(payload, separators=(",", ":")).encode()
                + b',"credential":{"value":"' + blind_rsa.b64url_encode(pending.value).encode()
                + b'","key_id":"' + pending.key_id.encode() + b'","signature":"')
        out.append(TokenRespondent(json.dumps(redeem, separators=(",", ":")).encode(), head, b'"}}', pending.inv, n))
    return out


def _post(host: str, port: int, path: str, body: bytes) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode("ascii") + body


def two_step(host: str, port: int, slug: str, respondent: TokenRespondent) -> TwoStep:
    """The respondent's two requests for the load generator: the redemption, then the report built from its answer."""
    report_path = f"/api/surveys/{slug}/reports/"
    return TwoStep(_post(host, port, REDEEM_PATH.format(slug=slug), respondent.redeem_body),
                   lambda answer: _post(host, port, report_path, respondent.report_body(answer)), SIGNED)
