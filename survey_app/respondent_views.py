"""The respondents' two POSTs, as plain Django views through Django's middleware chain (security headers, CSP,
language, host and NUL-byte checks, a database outage as a 503: ``coinflip.settings.MIDDLEWARE``).

* ``POST /api/surveys/<slug>/reports/`` (``report``) — one randomized report: a training report, or a validation
  report ``{"validation": …}`` from the validation share (``aggregator.privacy.validation``). 201 stored; 400
  malformed (the message names the field); 403 no credential (token survey); 409 credential already used; 410 survey
  closed; 404 unknown or draft survey. A token survey's report carries ``{"credential": {value, signature,
  key_id}}`` and never the token (400).
* ``POST /api/surveys/<slug>/invitations/redeem/`` (``redeem``) — a token survey's invitation token and blinded
  message in, a blind signature out (survey_app/credentials.py): the credential's first half, in its own request.

Each view only does HTTP: it reads the body once (``read_json``: a Content-Type other than ``application/json`` is 415,
a parameter other than one ``charset=utf-8`` 400, a body beyond the view's limit 413, one that is not UTF-8 or not
strict JSON — NaN/±Infinity, nesting too deep for the decoder — 400), checks its keys (``REPORT_BODY``, ``REDEEM_BODY``:
unknown or missing keys, 400 naming the field), makes one service call (``submit_report`` or ``redeem``, each check
once) and maps its ``Outcome`` onto a status code. Errors have the shape of Django REST framework's: ``{"detail": …}``
(with ``code`` where the page acts on it), or for a 400 of the body's keys ``{field: [messages]}``. Nothing but the
report itself, its random nonce and a coarse date is stored.

The OpenAPI document describes both through schema-only DRF views (``ReportSchema``, ``RedeemSchema``), routed only
in the urlconf the schema is generated from (``survey_app.urls.schema_urlpatterns``). The report's type: a survey's
exact JSON Schema of one report is served with its protocol (``report_schema``); the document types the body's
``report`` as a ``oneOf`` of the mechanisms' generic shapes, one component each (``ReportFieldSchema``), both from
``aggregator.privacy.protocol`` (``SurveyProtocol.report_schema``, ``report_shapes``).
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, cast

from django.core.validators import ProhibitNullCharactersValidator
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import APIException, MethodNotAllowed, ParseError, UnsupportedMediaType, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.validators import ProhibitSurrogateCharactersValidator
from rest_framework.views import APIView

from aggregator.privacy.protocol import report_shapes

from .api import (
    MAX_REPORT_BYTES,
    REFUSALS,
    ErrorSchema,
    FieldErrors,
    SlugParameter,
    check_json_parameters,
    read_bounded,
)
from .bodies import Body, Key
from .credentials import redeem
from .models import NONCE_CHARS, NONCE_PATTERN
from .outcomes import Result, Submission
from .reports import submit_report

#: The largest redemption body: a token, a blinded message of a 4096-bit key and a key id fit many times over.
MAX_REDEEM_BYTES = 16 * 1024
#: The only media type of a body (compared case-insensitively, RFC 9110 §8.3.1).
JSON_MEDIA_TYPE = "application/json"
#: The methods the two views answer.
ALLOWED = "POST"


class CredentialSerializer(serializers.Serializer):
    """An unblinded credential (survey_app/credentials.py); checked by the ingestion service, not here."""

    value = serializers.CharField(help_text="The prepared random value (RFC 9474 §4.1), unpadded base64url.")
    signature = serializers.CharField(help_text="RSA-PSS signature on value (RSABSSA-SHA384-PSS-Randomized), "
                                                "unpadded base64url.")
    key_id = serializers.CharField(help_text="Hex SHA-256 of the survey key's SPKI that signed it.")


class ReportField(serializers.JSONField):
    """The report: any JSON value to DRF (the survey's protocol judges it: ``SurveyProtocol.parse_one``), typed in
    the OpenAPI document as one of the mechanisms' report shapes (``ReportFieldSchema``)."""


class ReportFieldSchema(OpenApiSerializerFieldExtension):
    """OpenAPI type of ``ReportField``: a ``oneOf`` of one component per generic report shape of the engine
    (``aggregator.privacy.protocol.report_shapes``: LDP one-report, split and validation, Gaussian NB, MRR record
    and validation).
    A survey's exact schema is served with its protocol (``survey_app.api.ProtocolView``: ``report_schema``)."""

    target_class = ReportField

    def map_serializer_field(self, auto_schema, direction):
        refs = []
        for name, shape in report_shapes().items():
            component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=shape)
            auto_schema.registry.register_on_missing(component)
            refs.append(component.ref)
        return {"oneOf": refs, "description": "The randomized report in the survey's wire format: one of these "
                                              "shapes; the survey's exact JSON Schema is its protocol's "
                                              "report_schema (GET /api/surveys/{slug}/protocol/)."}


#: A report's body (``report``).
REPORT_BODY = Body({
    "report": Key("The randomized report, in the wire format of the survey's protocol.", field=ReportField),
    "credential": Key("Token surveys: the credential from redeeming the invitation, {value, signature, key_id} (see "
                      "CredentialSerializer).", required=False),
    "protocol_version": Key(
        "The protocol version the report was randomized under: SHA-256 (hex) of the protocol's JSON as the browser "
        "writes it (JSON.stringify of the protocol served by GET /api/surveys/{slug}/protocol/, without adaptive "
        "allocation's assignment, assignment_cdf and assignment_source). Another version than the survey's: 409 "
        "stale_protocol, nothing stored.", required=False),
    "token": Key("Refused: a report never carries the invitation token (redeem it first).", text=True,
                 required=False, max_length=64),
    "nonce": Key("A random nonce the page draws once per prepared report (128 bits, unpadded base64url): a resend of "
                 "a report whose nonce is stored is answered 201 and not stored again.", text=True, required=False,
                 max_length=NONCE_CHARS, pattern=NONCE_PATTERN,
                 invalid="Expected 128 random bits in unpadded base64url (22 characters)."),
}, unexpected="Unexpected field; a body holds only report, protocol_version, credential and nonce.")
#: The OpenAPI document's description of ``REPORT_BODY``.
ReportSerializer = REPORT_BODY.serializer("ReportSerializer")

#: The OpenAPI component of ``ReportSerializer``, closed by ``close_report_body``.
REPORT_COMPONENT = "Report"


def close_report_body(result, generator, request, public):
    """drf-spectacular post-processing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``): ``ReportSerializer``'s
    component closed (``additionalProperties: false``), since a body holding another key is a 400."""
    schema = result.get("components", {}).get("schemas", {}).get(REPORT_COMPONENT)
    if schema is not None:
        schema["additionalProperties"] = False
    return result


def read_submission(data) -> Submission:
    """The ``Submission`` of a request body, checked against ``REPORT_BODY`` (400 with its messages)."""
    values, errors = REPORT_BODY.check(data)
    if errors:
        raise ValidationError(errors)
    return Submission(values["report"], values.get("token"), values.get("credential"), values.get("nonce"),
                      values.get("protocol_version"))


#: The longest value of each key of a redemption body.
REDEEM_LIMITS = {"token": 64, "blinded_msg": 2048, "key_id": 64}
#: A redemption's body (``redeem_invitation``).
REDEEM_BODY = Body({
    "token": Key("The invitation token (from the invitation link).", text=True, max_length=REDEEM_LIMITS["token"]),
    "blinded_msg": Key("The blinded message (RFC 9474 §4.2), unpadded base64url of the key's size.", text=True,
                       max_length=REDEEM_LIMITS["blinded_msg"]),
    "key_id": Key("The key the message was blinded for (the protocol's credential.key_id); refused if it is no longer "
                  "the active key.", text=True, required=False, max_length=REDEEM_LIMITS["key_id"]),
}, unexpected="Unexpected field; a body holds only token, blinded_msg and key_id.")
#: The OpenAPI document's description of ``REDEEM_BODY``.
RedeemSerializer = REDEEM_BODY.serializer("RedeemSerializer")


def refuse_constant(name: str) -> Any:
    """``json.loads``'s ``parse_constant``: NaN and ±Infinity are not JSON (RFC 8259 §6)."""
    raise ValueError(f"Out of range float values are not JSON compliant: {name!r}")


def finite_float(text: str) -> float:
    """``json.loads``' ``parse_float``: a number too large for a float (``1e400``) is not one JSON can carry back
    (RFC 8259 §6), nor PostgreSQL's ``jsonb``."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"Out of range float values are not JSON compliant: {text[:40]!r}")
    return value


def unstorable(value: Any) -> str | None:
    """The first NUL or lone surrogate character in a decoded JSON value, keys included (only ``\\u`` escapes make
    them: strict UTF-8 has neither): PostgreSQL stores neither in text or ``jsonb``, and a lone surrogate cannot even
    be written back as UTF-8. ``None`` when there is none."""
    if isinstance(value, str):
        found = _UNSTORABLE.search(value)
        return None if found is None else found.group()
    if isinstance(value, dict):
        return next((c for k, v in value.items() for c in (unstorable(k), unstorable(v)) if c is not None), None)
    if isinstance(value, list):
        return next((c for c in map(unstorable, value) if c is not None), None)
    return None


_UNSTORABLE = re.compile("[\\x00\\ud800-\\udfff]")


def refuse_unstorable(data: Any) -> None:
    """A 400 naming the first key of the body whose name or value holds a NUL or lone surrogate character
    (``unstorable``), with Django's, resp. DRF's, message for it, as the body's key check would for a string key.

    Raises
    ------
    ValidationError
        ``{key: [message]}``, the key's name shown with its surrogates escaped; ``{"non_field_errors": [message]}``
        for a body that is not an object.
    """
    for key, value in data.items() if isinstance(data, dict) else [(api_settings.NON_FIELD_ERRORS_KEY, data)]:
        character = unstorable(key) or unstorable(value)
        if character is not None:
            message = (str(ProhibitNullCharactersValidator.message) if character == "\x00" else
                       str(ProhibitSurrogateCharactersValidator.message).format(code_point=ord(character)))
            shown = str(key).encode("utf-8", "backslashreplace").decode("utf-8")[:40]
            raise ValidationError({shown: [message]})


def read_json(request: HttpRequest, limit: int) -> Any:
    """The request's JSON body, read and parsed once; ``{}`` for an empty body (the key check then names the missing
    fields).

    Raises
    ------
    UnsupportedMediaType
        A body whose Content-Type is not ``application/json`` (415).
    PayloadTooLarge
        More than ``limit`` bytes, declared or read (413).
    ParseError
        A Content-Type parameter other than one ``charset=utf-8``, a body that cannot be read to its end, is not
        UTF-8, not strict JSON, nests too deeply to decode or holds a number beyond a float's range (400).
    ValidationError
        A key whose name or value holds a NUL or lone surrogate character (400 naming it: ``refuse_unstorable``).
    """
    content_type = request.META.get("CONTENT_TYPE", "")
    declared = request.META.get("CONTENT_LENGTH") or ""
    if content_type.split(";", 1)[0].strip().lower() != JSON_MEDIA_TYPE:
        if content_type or (declared.isdigit() and int(declared) > 0):
            raise UnsupportedMediaType(content_type)
    if not declared.isdigit() or int(declared) == 0:
        return {}
    check_json_parameters(content_type)
    body = read_bounded(request, declared, limit)
    try:
        text = body.decode("utf-8")
        data = json.loads(text, parse_constant=refuse_constant, parse_float=finite_float)
    except RecursionError:
        raise ParseError("JSON parse error - nested too deeply.") from None
    except ValueError as exc:  # invalid UTF-8 or JSON
        raise ParseError(f"JSON parse error - {exc}") from None
    if "\\u" in text:  # only an escape makes a NUL or a lone surrogate
        try:
            refuse_unstorable(data)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
    return data


def answer(data: Any, status: int = 200) -> JsonResponse:
    """A JSON answer, written as the API's other answers are (compact, UTF-8)."""
    response = JsonResponse(data, status=status, safe=False,
                            json_dumps_params={"ensure_ascii": False, "separators": (",", ":")})
    response["Allow"] = ALLOWED
    return response


def refusal(exc: APIException) -> JsonResponse:
    """The answer to a refusal: its status code, and ``{"detail": …}`` or the refusal's own fields."""
    detail = exc.detail
    return answer(detail if isinstance(detail, (dict, list)) else {"detail": detail}, exc.status_code)


def refused(outcome) -> JsonResponse:
    """The answer to an ``Outcome`` that stored nothing: 400 naming the field, or the refusal of ``REFUSALS``."""
    if outcome.result is Result.INVALID:
        return answer({cast(str, outcome.field): [outcome.message]}, 400)  # INVALID names its field
    return refusal(REFUSALS[outcome.result](outcome.message))


@csrf_exempt  # no session, no cookie: nothing a forged request could borrow
def report(request: HttpRequest, slug: str) -> JsonResponse:
    """``POST /api/surveys/<slug>/reports/``: the body is read only once the survey is known to exist and be open
    (``submit_report`` calls the reader), so 404 and 410 come before the body's own 400, 413 or 415."""
    if request.method != "POST":
        return refusal(MethodNotAllowed(request.method or ""))
    try:
        outcome = submit_report(slug, lambda: read_submission(read_json(request, MAX_REPORT_BYTES)))
    except APIException as exc:
        return refusal(exc)
    if outcome.stored:
        return answer({"status": "stored"}, 201)
    return refused(outcome)


@csrf_exempt  # no session, no cookie: nothing a forged request could borrow
def redeem_invitation(request: HttpRequest, slug: str) -> JsonResponse:
    """``POST /api/surveys/<slug>/invitations/redeem/``: spend an invitation token for a blind signature.

    200 ``{"blind_signature", "key_id"}``; 400 malformed (the message names the field: a blinded message not of the
    key's size, a retired ``key_id``); 403 unknown token; 404 unknown or draft survey, or an open-link one; 409 token
    already used; 410 closed. The token is the only thing written (marked used); nothing of the blinded message is
    kept. The report follows in a separate request with the unblinded credential (``report``)."""
    if request.method != "POST":
        return refusal(MethodNotAllowed(request.method or ""))
    try:
        data, errors = REDEEM_BODY.check(read_json(request, MAX_REDEEM_BYTES))
    except APIException as exc:
        return refusal(exc)
    if errors:
        return answer(errors, 400)
    redemption = redeem(slug, data["token"], data["blinded_msg"], data.get("key_id"))
    if redemption.outcome.result is Result.SIGNED:
        return answer({"blind_signature": redemption.blind_signature, "key_id": redemption.key_id})
    return refused(redemption.outcome)


# -- the OpenAPI document ----------------------------------------------------------------------------------------------

class ReportSchema(APIView):
    """The OpenAPI description of ``report``: routed only in ``survey_app.urls.schema_urlpatterns``, which the schema
    is generated from; a request never reaches it."""

    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = [JSONParser]  # the document's request media type: application/json only

    @extend_schema(
        summary="Submit one randomized report",
        parameters=[SlugParameter],
        request=ReportSerializer,
        responses={
            201: OpenApiResponse(inline_serializer("ReportAccepted", {"status": serializers.CharField()}),
                                 description="Stored; or a resend of a report whose nonce is stored (not stored "
                                             "again)"),
            400: OpenApiResponse(FieldErrors, description="Malformed report (the message names the field), or a body "
                                                          "that is not UTF-8 JSON: a Content-Type parameter other "
                                                          "than charset=utf-8, invalid UTF-8 or JSON"),
            403: OpenApiResponse(ErrorSchema, description="Unknown invitation token"),
            404: OpenApiResponse(ErrorSchema, description="Unknown survey"),
            409: OpenApiResponse(ErrorSchema, description="Credential already used; or (code stale_model_version) a "
                                                          "validation report of a model version other than the one "
                                                          "evaluated today (?for=validation); or (code "
                                                          "stale_protocol) a report stating another protocol_version "
                                                          "than the survey's"),
            410: OpenApiResponse(ErrorSchema, description="Survey closed"),
            413: OpenApiResponse(ErrorSchema, description=f"Body larger than {MAX_REPORT_BYTES} bytes (declared, or "
                                                          "read from a chunked body)"),
            415: OpenApiResponse(ErrorSchema, description="Content-Type other than application/json"),
        },
    )
    def post(self, request, slug: str):
        """One randomized report, checked against the survey's protocol and stored (``survey_app.reports``), or
        refused with nothing stored. A closed or unknown survey is refused before the body is read."""
        raise MethodNotAllowed(request.method)  # never routed (the class docstring)


class RedeemSchema(APIView):
    """The OpenAPI description of ``redeem_invitation``, routed as ``ReportSchema`` is."""

    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = [JSONParser]

    @extend_schema(
        summary="Redeem an invitation token for a blind signature (RFC 9474, RSABSSA-SHA384-PSS-Randomized)",
        parameters=[SlugParameter],
        request=RedeemSerializer,
        responses={
            200: inline_serializer("Redeemed", {"blind_signature": serializers.CharField(),
                                                "key_id": serializers.CharField()}),
            400: OpenApiResponse(FieldErrors, description="Malformed body or blinded message; the message names the "
                                                          "field"),
            403: OpenApiResponse(ErrorSchema, description="Unknown invitation token"),
            404: OpenApiResponse(ErrorSchema, description="Unknown survey, or one without invitations"),
            409: OpenApiResponse(ErrorSchema, description="Invitation token already used"),
            410: OpenApiResponse(ErrorSchema, description="Survey closed"),
            413: OpenApiResponse(ErrorSchema, description="Body too large"),
            415: OpenApiResponse(ErrorSchema, description="Not application/json"),
        },
    )
    def post(self, request, slug: str):
        """Spend an invitation token for a blind signature on a blinded message (``survey_app.credentials``). The
        token is the only thing written (marked used); nothing of the blinded message is kept. The report follows
        in a separate request with the unblinded credential."""
        raise MethodNotAllowed(request.method)  # never routed (the class docstring)
