"""The report API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* ``POST /api/surveys/<slug>/reports/`` — one randomized report: a training report, or a validation report
  ``{"validation": …}`` from the validation share (``aggregator.privacy.validation``). 201 stored; 400 malformed
  (the message names the field); 403 no credential (token survey); 409 credential already used; 410 survey closed;
  404 unknown or draft survey. A token survey's report carries ``{"credential": {value, signature, key_id}}`` and
  never the token (400).
* ``POST /api/surveys/<slug>/invitations/redeem/`` — a token survey's invitation token and blinded message in, a
  blind signature out (``RedeemView``; survey_app/credentials.py): the credential's first half, in its own request.

The views keep to HTTP: ``ReportView`` parses the body (``read_submission``), hands it to the ingestion service
(``survey_app.reports.submit_report``: survey lookup, checks, token, storage) and maps its ``Outcome`` onto a
status code. Nothing but the report itself and a coarse date is stored: the token is consumed by a conditional UPDATE
(``used`` false → true) in the same transaction as the insert, never written beside the report.

Hostile input (issue 5, tests/security/): bodies are UTF-8 JSON only (``JSONBodyView``: a Content-Type other than
``application/json`` is 415, a parameter other than ``charset=utf-8`` 400, issue 14) of at most ``MAX_REPORT_BYTES``
(413 beyond, chunked bodies included; the predict API uses Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``), NaN/±Infinity
constants are refused by DRF's strict JSON, nesting too deep for the decoder is a 400, and keys beyond ``report``
and ``token`` — or beyond the report's wire format (``SurveyProtocol.parse_one``) — are refused, since the payload
is stored verbatim.

The report's type (issue 14): the engine knows each mechanism's wire format; a survey's exact JSON Schema of one report
is served with its protocol (``report_schema``), and the OpenAPI document types the body's ``report`` as a ``oneOf``
of the mechanisms' generic shapes, one component each (``ReportFieldSchema``), both from
``aggregator.privacy.protocol`` (``SurveyProtocol.report_schema``, ``report_shapes``).
"""
from __future__ import annotations

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.urls import reverse
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import (
    APIException,
    NotFound,
    ParseError,
    PermissionDenied,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy.protocol import report_shapes

from .credentials import public_credential, redeem
from .models import Survey
from .protocol import get_protocol
from .reports import MESSAGES, Result, Submission, find_public_survey, submit_report

#: Largest report body accepted: 512 KiB, ten times the largest honest report measured on the bundled data sets
#: (glass, 64 bins, split SHE/THE: 50 KB; one-report bodies stay under 6 KB) and a fifth of Django's
#: DATA_UPLOAD_MAX_MEMORY_SIZE. A split SHE/THE survey of over ~35,000 components per respondent would need more.
MAX_REPORT_BYTES = 512 * 1024


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def body_limit(view) -> int:
    """The most bytes a view's body may have: its ``max_body_bytes``, else Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``
    (DRF itself applies no limit to JSON bodies)."""
    return getattr(view, "max_body_bytes", None) or settings.DATA_UPLOAD_MAX_MEMORY_SIZE or MAX_REPORT_BYTES


def media_type_parameters(media_type: str) -> list[tuple[str, str]]:
    """The (name lowercased, value unquoted) parameters of a Content-Type, in order, repeats kept; ``ParseError``
    for a parameter that is not ``name=value``."""
    out = []
    for part in media_type.split(";")[1:]:
        name, sep, value = part.strip().partition("=")
        if not sep or not name.strip():
            raise ParseError(f"Malformed Content-Type parameter {part.strip()[:40]!r}.")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        out.append((name.strip().lower(), value))
    return out


class StrictContentNegotiation(DefaultContentNegotiation):
    """A parser only for its exact media type, compared case-insensitively (RFC 9110 §8.3.1): DRF's default also
    gives ``application/*`` and ``*/*`` bodies to the JSON parser. Anything else is a 415."""

    def select_parser(self, request, parsers):
        media_type = (request.content_type or "").split(";", 1)[0].strip().lower()
        return next((parser for parser in parsers if parser.media_type == media_type), None)


class BodyRequest(Request):
    """DRF's request, also reading a chunked body (``Transfer-Encoding: chunked``, no ``Content-Length``): Django
    reads a body without CONTENT_LENGTH as empty and DRF then skips parsing. Under a server that de-chunks the WSGI
    input and ends it with the body (gunicorn: ``wsgi.input_terminated``), the body is the input up to its end; it is
    read through a ``LimitedStream`` of the view's ``body_limit`` + 1 bytes, so ``BoundedJSONParser`` sees at most
    one byte beyond the limit (413)."""

    def _load_stream(self):
        super()._load_stream()
        request, meta = self._request, self._request.META
        environ = getattr(request, "environ", {})
        chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower() or environ.get("wsgi.input_terminated")
        if (self._stream is None and chunked and not meta.get("CONTENT_LENGTH") and "wsgi.input" in environ
                and not request._read_started):
            request._stream = LimitedStream(environ["wsgi.input"], body_limit(self.parser_context.get("view")) + 1)
            self._stream = request

    def _parse(self):
        """415 for a Content-Type no parser takes, whatever the body: also when a middleware already read a form
        body (``coinflip.middleware.NulByteMiddleware`` reads ``request.POST``), where DRF would parse "nothing"."""
        if self.content_type and self.negotiator.select_parser(self, self.parsers) is None:
            raise UnsupportedMediaType(self.content_type)
        return super()._parse()


class BoundedJSONParser(JSONParser):
    """DRF's strict JSON parser for UTF-8 bodies of at most the view's ``body_limit``: 413 beyond (declared or
    read, chunked bodies too: ``BodyRequest``); 400 for a Content-Type parameter other than one ``charset=utf-8``
    (RFC 8259 §8.1: JSON exchanged between systems is UTF-8; case-insensitive, quoted or not), for a body that is not
    UTF-8, cannot be read to its end, or nests too deeply to decode (not a ``RecursionError``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        context = dict(parser_context or {})
        for name, value in media_type_parameters(media_type or ""):
            if name != "charset":
                raise ParseError(f"Unsupported Content-Type parameter {name[:40]!r}: send application/json.")
            if value.lower() != "utf-8":
                raise ParseError(f"Unsupported charset {value[:40]!r}: send the JSON body in UTF-8.")
        if len(media_type_parameters(media_type or "")) > 1:
            raise ParseError("Repeated Content-Type parameter: send application/json; charset=utf-8 at most.")
        limit = body_limit(context.get("view"))
        request = context.get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and str(declared).isdigit() and int(declared) > limit:
            raise PayloadTooLarge()
        try:
            body = stream.read(limit + 1)
        except Exception:  # a broken chunked encoding or a client gone mid-body (any server's error): a 400
            raise ParseError("The request body could not be read to its end.") from None
        if len(body) > limit:
            raise PayloadTooLarge()
        context["encoding"] = "utf-8"
        try:
            return super().parse(io.BytesIO(body), media_type, context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None


class JSONBodyView(APIView):
    """An API view taking a JSON body: strict media type (``StrictContentNegotiation``), ``BoundedJSONParser``, and
    chunked bodies read (``BodyRequest``)."""

    parser_classes = [BoundedJSONParser]
    content_negotiation_class = StrictContentNegotiation

    def initialize_request(self, request, *args, **kwargs):
        return BodyRequest(request, parsers=self.get_parsers(), authenticators=self.get_authenticators(),
                           negotiator=self.get_content_negotiator(), parser_context=self.get_parser_context(request))


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


class ReportField(serializers.JSONField):
    """The report: any JSON value to DRF (the survey's protocol judges it: ``SurveyProtocol.parse_one``), typed in
    the OpenAPI document as one of the mechanisms' report shapes (``ReportFieldSchema``)."""


class ReportFieldSchema(OpenApiSerializerFieldExtension):
    """OpenAPI type of ``ReportField``: a ``oneOf`` of one component per generic report shape of the engine
    (``aggregator.privacy.protocol.report_shapes``: LDP one-report, split and validation, Gaussian NB, MRR record
    and validation).
    A survey's exact schema is served with its protocol (``ProtocolView``: ``report_schema``)."""

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


class ReportSerializer(serializers.Serializer):
    report = ReportField(help_text="The randomized report, in the wire format of the survey's protocol.")
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


class ReportSerializerSchema(OpenApiSerializerExtension):
    """``ReportSerializer`` as drf-spectacular maps it, closed: a body holding another key is a 400."""

    target_class = ReportSerializer

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        return {**schema, "additionalProperties": False}


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
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="Questions, protocol, report_schema (the "
                                                                         "JSON Schema of one report) and privacy "
                                                                         "figures"),
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
            "report_schema": protocol.report_schema(),
            "privacy": protocol.privacy(),
            "model_url": reverse("api-model", kwargs={"slug": survey.slug}),
            **({"credential": public_credential(survey)} if survey.access == Survey.Access.TOKENS else {}),
        })


class ReportView(JSONBodyView):
    authentication_classes: list = []
    permission_classes: list = []
    max_body_bytes = MAX_REPORT_BYTES

    @extend_schema(
        summary="Submit one randomized report",
        parameters=[SlugParameter],
        request=ReportSerializer,
        responses={
            201: inline_serializer("ReportAccepted", {"status": serializers.CharField()}),
            400: OpenApiResponse(FieldErrors, description="Malformed report (the message names the field), or a body "
                                                          "that is not UTF-8 JSON: a Content-Type parameter other "
                                                          "than charset=utf-8, invalid UTF-8 or JSON"),
            403: OpenApiResponse(ErrorSchema, description="Unknown invitation token"),
            404: OpenApiResponse(ErrorSchema, description="Unknown survey"),
            409: OpenApiResponse(ErrorSchema, description="Invitation token already used"),
            410: OpenApiResponse(ErrorSchema, description="Survey closed"),
            413: OpenApiResponse(ErrorSchema, description=f"Body larger than {MAX_REPORT_BYTES} bytes (declared, or "
                                                          "read from a chunked body)"),
            415: OpenApiResponse(ErrorSchema, description="Content-Type other than application/json"),
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
