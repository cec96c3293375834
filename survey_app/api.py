"""The report API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* ``POST /api/surveys/<slug>/reports/`` — one randomized report: a training report, or a validation report
  ``{"validation": …}`` from the validation share (``aggregator.privacy.validation``). 201 stored; 400 malformed
  (the message names the field); 403 no credential (token survey); 409 credential already used; 410 survey closed;
  404 unknown or draft survey. A token survey's report carries ``{"credential": {value, signature, key_id}}`` and never the token (400).
* ``POST /api/surveys/<slug>/invitations/redeem/`` — a token survey's invitation token and blinded message in, a
  blind signature out (``RedeemView``; survey_app/credentials.py): the credential's first half, in its own request.

The views keep to HTTP: ``ReportView`` parses the body (``read_submission``), hands it to the ingestion service
(``survey_app.reports.submit_report``: survey lookup, checks, token, storage) and maps its ``Outcome`` onto a
status code. Nothing but the report itself and a coarse date is stored: the token is consumed by a conditional UPDATE
(``used`` false → true) in the same transaction as the insert, never written beside the report.

Hostile input (issue 5, tests/security/): bodies are JSON only (``BoundedJSONParser``: anything else is 415) of at most
``MAX_REPORT_BYTES`` (413 beyond; the predict API uses Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``), NaN/±Infinity
constants are refused by DRF's strict JSON, nesting too deep for the decoder is a 400, and keys beyond ``report``
and ``token`` — or beyond the report's wire format (``SurveyProtocol.parse_one``) — are refused, since the payload
is stored verbatim.
"""
from __future__ import annotations

import io

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ParseError, PermissionDenied, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from .models import Survey
from .protocol import get_protocol
from .credentials import public_credential, redeem
from .reports import MESSAGES, Result, Submission, find_public_survey, submit_report

#: Largest report body accepted: 512 KiB, ten times the largest honest report measured on the bundled data sets
#: (glass, 64 bins, split SHE/THE: 50 KB; one-report bodies stay under 6 KB) and a fifth of Django's
#: DATA_UPLOAD_MAX_MEMORY_SIZE. A split SHE/THE survey of over ~35,000 components per respondent would need more.
MAX_REPORT_BYTES = 512 * 1024


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


class BoundedJSONParser(JSONParser):
    """DRF's strict JSON parser reading at most the view's ``max_body_bytes`` (default Django's
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``; DRF itself applies no limit to JSON bodies): 413 beyond, and 400 (not a
    ``RecursionError`` or ``LookupError``) for nesting too deep to decode or an unknown charset."""

    def parse(self, stream, media_type=None, parser_context=None):
        context = parser_context or {}
        limit = getattr(context.get("view"), "max_body_bytes", None) or settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = context.get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if limit is not None and declared and str(declared).isdigit() and int(declared) > limit:
            raise PayloadTooLarge()
        body = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(body) > limit:
            raise PayloadTooLarge()
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
        except LookupError:  # codecs: an unknown charset in the Content-Type
            raise ParseError("JSON parse error - unknown charset.") from None


#: Documented error bodies: ``{"detail": …}``, or for 400 ``{field: [messages]}``.
ErrorSchema = inline_serializer("Error", {"detail": serializers.CharField()})
FieldErrors = OpenApiTypes.OBJECT
#: The ``<slug:slug>`` path parameter as Django's URL converter matches it (any other path is not an API URL).
SlugParameter = OpenApiParameter("slug", str, OpenApiParameter.PATH, pattern=r"^[-a-zA-Z0-9_]+$",
                                 description="The survey's slug")


class Gone(APIException):
    status_code = status.HTTP_410_GONE
    default_detail = MESSAGES[Result.CLOSED]
    default_code = "closed"


class TokenUsed(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = MESSAGES[Result.TOKEN_USED]
    default_code = "token_used"


def public_survey(slug: str) -> Survey:
    """An open or closed survey (drafts are not public), read through the ingestion service's cache
    (``survey_app.reports.find_public_survey``); 404 otherwise."""
    survey = find_public_survey(slug)
    if survey is None:
        raise NotFound(MESSAGES[Result.NOT_FOUND])
    return survey


def question_display(survey: Survey) -> list[dict]:
    out = []
    for q in survey.questions.prefetch_related("choices"):
        out.append({
            "name": q.name,
            "text": q.text,
            "help_text": q.help_text,
            "section": q.section,
            "kind": q.kind,
            "is_class": q.is_class,
            "labels": q.labels(),
            "low": q.low,
            "high": q.high,
            "personal_mode": q.personal_mode,
            "personal_text": q.personal_text,
        })
    return out


class CredentialSerializer(serializers.Serializer):
    """An unblinded credential (survey_app/credentials.py); checked by the ingestion service, not here."""

    value = serializers.CharField(help_text="The prepared random value (RFC 9474 §4.1), unpadded base64url.")
    signature = serializers.CharField(help_text="RSA-PSS signature on value (RSABSSA-SHA384-PSS-Randomized), "
                                                "unpadded base64url.")
    key_id = serializers.CharField(help_text="Hex SHA-256 of the survey key's SPKI that signed it.")


class ReportSerializer(serializers.Serializer):
    report = serializers.JSONField(help_text="The randomized report, in the wire format of the survey's protocol.")
    credential = serializers.JSONField(
        required=False, help_text="Token surveys: the credential from redeeming the invitation, "
                                  "{value, signature, key_id} (see CredentialSerializer).")
    token = serializers.CharField(required=False, max_length=64,
                                  help_text="Refused: a report never carries the invitation token (redeem it first).")

    def validate(self, attrs):
        unknown = sorted(str(key) for key in self.initial_data if key not in self.fields)
        if unknown:
            raise ValidationError({unknown[0][:40]: ["Unexpected field; a body holds only report and credential."]})
        return attrs


def usual_report(data):
    """The report of the usual body, ``{"report": {…}}`` — exactly what ``ReportSerializer`` returns for it (its
    JSONField passes a parsed object through) — or ``None`` for any other body."""
    if type(data) is dict and len(data) == 1 and type(data.get("report")) is dict:
        return data["report"]
    return None


def read_submission(data) -> Submission:
    """The ``Submission`` of a request body, validated by ``ReportSerializer``: the usual body (``usual_report``)
    without building a serializer, which cost a tenth of a report POST's CPU (bench/load); every other body (a token,
    an error to report) through it."""
    report = usual_report(data)
    if report is not None:
        return Submission(report)
    serializer = ReportSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    return Submission(data["report"], data.get("token"), data.get("credential"))


#: The answer to each refusal of the ingestion service (``survey_app.reports.Result``).
REFUSALS: dict[Result, type[APIException]] = {
    Result.NOT_FOUND: NotFound,
    Result.CLOSED: Gone,
    Result.TOKEN_UNKNOWN: PermissionDenied,
    Result.TOKEN_USED: TokenUsed,
    Result.CREDENTIAL_MISSING: PermissionDenied,
    Result.CREDENTIAL_USED: TokenUsed,
    Result.NO_INVITATIONS: NotFound,
}


class ProtocolView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        summary="The survey's questions and public randomization protocol",
        parameters=[SlugParameter],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="Questions, protocol and privacy figures"),
                   404: OpenApiResponse(ErrorSchema, description="Unknown or draft survey"),
                   410: OpenApiResponse(ErrorSchema, description="Survey closed")},
    )
    def get(self, request, slug: str):
        survey = public_survey(slug)
        if survey.status == Survey.Status.CLOSED:
            raise Gone()
        protocol = get_protocol(survey)
        return Response({
            "survey": {"slug": survey.slug, "title": survey.title, "description": survey.description,
                       "access": survey.access},
            "questions": question_display(survey),
            "protocol": protocol.public(),
            "privacy": protocol.privacy(),
            "model_url": reverse("api-model", kwargs={"slug": survey.slug}),
            **({"credential": public_credential(survey)} if survey.access == Survey.Access.TOKENS else {}),
        })


class ReportView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = [BoundedJSONParser]
    max_body_bytes = MAX_REPORT_BYTES

    @extend_schema(
        summary="Submit one randomized report",
        parameters=[SlugParameter],
        request=ReportSerializer,
        responses={
            201: inline_serializer("ReportAccepted", {"status": serializers.CharField()}),
            400: OpenApiResponse(FieldErrors, description="Malformed report; the message names the field"),
            403: OpenApiResponse(ErrorSchema, description="Unknown invitation token"),
            404: OpenApiResponse(ErrorSchema, description="Unknown survey"),
            409: OpenApiResponse(ErrorSchema, description="Invitation token already used"),
            410: OpenApiResponse(ErrorSchema, description="Survey closed"),
            413: OpenApiResponse(ErrorSchema, description=f"Body larger than {MAX_REPORT_BYTES} bytes"),
            415: OpenApiResponse(ErrorSchema, description="Not application/json"),
        },
    )
    def post(self, request, slug: str):
        outcome = submit_report(slug, lambda: read_submission(request.data))
        if outcome.stored:
            return Response({"status": "stored"}, status=status.HTTP_201_CREATED)
        if outcome.result is Result.INVALID:
            raise ValidationError({outcome.field: [outcome.message]})
        raise REFUSALS[outcome.result](outcome.message)


# -- unlinkable invitations (issue 11; survey_app/credentials.py) ----------------------------------------------------

class RedeemSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=64, help_text="The invitation token (from the invitation link).")
    blinded_msg = serializers.CharField(max_length=2048, help_text="The blinded message (RFC 9474 §4.2), unpadded "
                                                                   "base64url of the key's size.")
    key_id = serializers.CharField(required=False, max_length=64,
                                   help_text="The key the message was blinded for (the protocol's credential.key_id); "
                                             "refused if it is no longer the active key.")

    def validate(self, attrs):
        unknown = sorted(str(key) for key in self.initial_data if key not in self.fields)
        if unknown:
            raise ValidationError({unknown[0][:40]: ["Unexpected field; a body holds only token, blinded_msg and "
                                                     "key_id."]})
        return attrs


class RedeemView(APIView):
    """``POST /api/surveys/<slug>/invitations/redeem/``: spend an invitation token for a blind signature.

    200 ``{"blind_signature", "key_id"}``; 400 malformed (the message names the field: a blinded message not of the
    key's size, a retired ``key_id``); 403 unknown token; 404 unknown or draft survey, or an open-link one; 409 token
    already used; 410 closed. The token is the only thing written (marked used); nothing of the blinded message is
    kept. The report follows in a separate request with the unblinded credential (``ReportView``)."""

    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = [BoundedJSONParser]
    max_body_bytes = 16 * 1024

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
        serializer = RedeemSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        redemption = redeem(slug, data["token"], data["blinded_msg"], data.get("key_id"))
        outcome = redemption.outcome
        if outcome.result is Result.SIGNED:
            return Response({"blind_signature": redemption.blind_signature, "key_id": redemption.key_id})
        if outcome.result is Result.INVALID:
            raise ValidationError({outcome.field: [outcome.message]})
        raise REFUSALS[outcome.result](outcome.message)
