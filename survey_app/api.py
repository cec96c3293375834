"""The report API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* ``POST /api/surveys/<slug>/reports/`` — one randomized report: a training report, or a validation report
  ``{"validation": …}`` from the validation share (``aggregator.privacy.validation``). 201 stored; 400 malformed
  (the message names the field); 403 no credential (token survey); 409 credential already used; 410 survey closed;
  404 unknown or draft survey. A token survey's report carries ``{"credential": {value, signature, key_id}}`` and
  never the token (400).
* ``POST /api/surveys/<slug>/invitations/redeem/`` — a token survey's invitation token and blinded message in, a
  blind signature out (``RedeemView``; survey_app/credentials.py): the credential's first half, in its own request.

The views keep to HTTP, through DRF's public API: ``ReportView`` parses the body once (DRF's ``request.data`` and
``ReportSerializer``), hands it to the ingestion service (``survey_app.reports.submit_report``: survey lookup,
checks, credential, storage, each once) and maps its ``Outcome`` onto a status code; ``RedeemView`` likewise with
``survey_app.credentials.redeem``. Nothing but the report itself, its random nonce and a coarse date is stored.

Hostile input (tests/security/): bodies are UTF-8 JSON only (``JSONBodyView``: a Content-Type other than
``application/json`` is 415, a parameter other than ``charset=utf-8`` 400) of at most ``MAX_REPORT_BYTES`` (413
beyond; the predict API uses Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``; a body without ``Content-Length`` is empty to
Django: the proxy buffers chunked bodies, docs/operations.md), NaN/±Infinity
constants are refused by DRF's strict JSON, nesting too deep for the decoder is a 400, and keys beyond ``report``
and ``token`` — or beyond the report's wire format (``SurveyProtocol.parse_one``) — are refused, since the payload
is stored verbatim.

The report's type: the engine knows each mechanism's wire format; a survey's exact JSON Schema of one report
is served with its protocol (``report_schema``), and the OpenAPI document types the body's ``report`` as a ``oneOf``
of the mechanisms' generic shapes, one component each (``ReportFieldSchema``), both from
``aggregator.privacy.protocol`` (``SurveyProtocol.report_schema``, ``report_shapes``).
"""
from __future__ import annotations

import io
import logging
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
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
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy import blind_rsa
from aggregator.privacy.protocol import report_shapes

from . import languages, ohttp
from .credentials import public_credential, redeem, warm_keys
from .models import NONCE_CHARS, NONCE_PATTERN, Survey
from .outcomes import MESSAGES, Result, Submission
from .protocol import get_protocol, survey_version
from .reports import submit_report, todays_assignment
from .surveys import find_public_survey

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)

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


class BoundedJSONParser(JSONParser):
    """DRF's strict JSON parser for UTF-8 bodies of at most the view's ``body_limit``: 413 beyond (declared or
    read); 400 for a Content-Type parameter other than one ``charset=utf-8``
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
        except Exception:  # a client gone mid-body (any server's error): a 400
            raise ParseError("The request body could not be read to its end.") from None
        if len(body) > limit:
            raise PayloadTooLarge()
        context["encoding"] = "utf-8"
        try:
            return super().parse(io.BytesIO(body), media_type, context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None


class JSONBodyView(APIView):
    """An API view taking a JSON body: strict media type (``StrictContentNegotiation``) and ``BoundedJSONParser``."""

    parser_classes = [BoundedJSONParser]
    content_negotiation_class = StrictContentNegotiation

    def json_body(self, request):
        """The parsed body (DRF's ``request.data``); 415 for a Content-Type no parser takes, whatever the body — also
        when a middleware already read a form body (``coinflip.middleware.NulByteMiddleware`` reads
        ``request.POST``), where DRF would parse "nothing"."""
        if request.content_type and self.get_content_negotiator().select_parser(request, self.get_parsers()) is None:
            raise UnsupportedMediaType(request.content_type)
        return request.data


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


class StaleVersion(APIException):
    """409 with a code the page recognises: it fetches today's validation model and prepares the report again."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "stale_model_version"

    def __init__(self, message: StrOrPromise = MESSAGES[Result.STALE_VERSION]):
        super().__init__({"detail": message, "code": self.default_code})


class StaleProtocol(APIException):
    """409 with a code the page recognises: the report was randomized under other settings than the survey's."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "stale_protocol"

    def __init__(self, message: StrOrPromise = MESSAGES[Result.STALE_PROTOCOL]):
        super().__init__({"detail": message, "code": self.default_code})


def public_survey(slug: str) -> Survey:
    """An open or closed survey (drafts are not public), read through the ingestion service's cache
    (``survey_app.surveys.find_public_survey``); 404 otherwise."""
    survey = find_public_survey(slug)
    if survey is None:
        raise NotFound(MESSAGES[Result.NOT_FOUND])
    return survey


def question_display(survey: Survey) -> list[dict]:
    out = []
    questions = list(survey.questions.prefetch_related("choices"))
    sections = languages.section_titles(questions)
    for q in questions:
        # Texts and labels in the page's language (survey_app/languages.py), the engine's names and the order of the
        # labels (the choice numbers sent) unchanged.
        texts = languages.question_texts(q)
        out.append({
            "name": q.name,
            "text": texts["text"],
            "help_text": texts["help_text"],
            "section": sections.get(q.section, q.section),
            "kind": q.kind,
            "is_class": q.is_class,
            "labels": languages.display_labels(q, q.labels()),
            "low": q.low,
            "high": q.high,
            "personal_mode": q.personal_mode,
            "personal_text": texts["personal_text"],
            # How the page shows it (never "auto": Question.resolved_style decides); a select-all question's
            # choices, each with the engine feature (a no/yes question) its box answers.
            "style": q.resolved_style(),
            "prefer_not_to_say": q.prefer_not_to_say,
            # Skip logic (static/js/skip.mjs): shown only if the question ``question`` has one of the answer codes
            # ``answers``; hidden, it sends the code ``not_asked`` (its last label, "Not asked").
            "show_if": {"question": q.show_if_question.name, "answers": q.show_if_codes(),
                        "not_asked": len(q.labels()) - 1} if q.show_if_question is not None else None,
            "options": [{"label": label, "feature": feature}
                        for label, feature in zip(languages.display_labels(q, q.options()), q.feature_names(),
                                                  strict=True)]
            if q.kind == q.Kind.MULTI else [],
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
    protocol_version = serializers.JSONField(
        required=False, help_text="The protocol version the report was randomized under: SHA-256 (hex) of the "
                                  "protocol's JSON as the browser writes it (JSON.stringify of the protocol served by "
                                  "GET /api/surveys/{slug}/protocol/, without adaptive allocation's assignment, "
                                  "assignment_cdf and assignment_source). Another version than the survey's: 409 "
                                  "stale_protocol, nothing stored.")
    token = serializers.CharField(required=False, max_length=64,
                                  help_text="Refused: a report never carries the invitation token (redeem it first).")
    nonce = serializers.RegexField(
        NONCE_PATTERN, required=False, max_length=NONCE_CHARS,
        error_messages={"invalid": "Expected 128 random bits in unpadded base64url (22 characters)."},
        help_text="A random nonce the page draws once per prepared report (128 bits, unpadded base64url): a resend "
                  "of a report whose nonce is stored is answered 201 and not stored again.")

    def validate(self, attrs):
        unknown = sorted(str(key) for key in self.initial_data if key not in self.fields)
        if unknown:
            raise ValidationError({unknown[0][:40]: ["Unexpected field; a body holds only report, protocol_version, "
                                                     "credential and nonce."]})
        return attrs


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
    """The ``Submission`` of a request body, validated by ``ReportSerializer`` (400 with its messages)."""
    serializer = ReportSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    return Submission(data["report"], data.get("token"), data.get("credential"), data.get("nonce"),
                      data.get("protocol_version"))


#: The answer to each refusal of the ingestion service (``survey_app.outcomes.Result``).
REFUSALS: dict[Result, type[APIException]] = {
    Result.NOT_FOUND: NotFound,
    Result.CLOSED: Gone,
    Result.TOKEN_UNKNOWN: PermissionDenied,
    Result.TOKEN_USED: TokenUsed,
    Result.CREDENTIAL_MISSING: PermissionDenied,
    Result.CREDENTIAL_USED: TokenUsed,
    Result.NO_INVITATIONS: NotFound,
    Result.STALE_VERSION: StaleVersion,
    Result.STALE_PROTOCOL: StaleProtocol,
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
        return Response(protocol_body(survey))


def public_protocol(survey: Survey, protocol, preview: bool) -> dict:
    """The protocol as the browser runs it today: with adaptive allocation, the assignment of the day
    (``todays_assignment``, checked by ``served_assignment``: the uniform one before any, in a preview, or should a
    stored one not fit)."""
    if not protocol.publishes_assignment or preview:
        return protocol.public()
    stored, source = todays_assignment(survey)
    if stored is not None and protocol.served_assignment(stored) is None:
        logger.warning("survey %s: the stored assignment does not fit the protocol; serving the uniform one",
                       survey.slug)
    return protocol.public_with(stored, source)


#: The parts of ``protocol_body`` fixed by the survey's version (``survey_version``: its row, which moves with its
#: questions and choices) and the page's language — texts, questions, report schema, privacy figures — by
#: (version, language), least recently used first; shared by a worker's threads and never mutated. Building them
#: (question texts and the exact privacy figures) is the bulk of a GET, and the browser fetches the protocol at least
#: twice per respondent. The day's assignment and the active key are read every time.
_STATIC_BODIES: OrderedDict = OrderedDict()
_STATIC_BODIES_SIZE = 512
_STATIC_BODIES_LOCK = threading.Lock()


def _static_body(survey: Survey, protocol) -> dict:
    key = (survey_version(survey), languages.active_language())
    with _STATIC_BODIES_LOCK:
        body = _STATIC_BODIES.get(key)
        if body is not None:
            _STATIC_BODIES.move_to_end(key)
            return body
    body = {
        "survey": {"slug": survey.slug, "title": survey.display_title, "description": survey.display_description,
                   "access": survey.access},
        "questions": question_display(survey),
        "report_schema": protocol.report_schema(),
        "privacy": protocol.privacy(),
    }
    with _STATIC_BODIES_LOCK:
        _STATIC_BODIES[key] = body
        while len(_STATIC_BODIES) > _STATIC_BODIES_SIZE:
            _STATIC_BODIES.popitem(last=False)
    return body


def warm_protocols(budget: float) -> int:
    """Build, in this process, the engine protocol (and its version) and the protocol GET's fixed parts (every site
    language) of the open surveys, most recently changed first, and read a token survey's keys
    (``credentials.warm_keys``), for at most ``budget`` seconds; the number warmed. gunicorn calls it as a worker
    starts (docker/gunicorn.conf.py, ``post_worker_init``), so a new or recycled worker does not make its first
    respondents of each survey wait for the build (up to a second per survey), nor serve them by the whole stack in a
    thread."""
    deadline = time.monotonic() + budget
    warmed = 0
    for slug in Survey.objects.filter(status=Survey.Status.OPEN).order_by("-updated_at").values_list("slug", flat=True):
        if time.monotonic() >= deadline:
            break
        survey = find_public_survey(slug)
        if survey is None:
            continue
        try:
            protocol = get_protocol(survey)
            protocol.version  # noqa: B018 - computed once here, not by a respondent's report
            for language, _name in settings.LANGUAGES:
                with translation.override(language):
                    _static_body(survey, protocol)
            warm_keys(survey)
        except ValueError:  # a survey the engine refuses: its GET says why, as before
            continue
        warmed += 1
    return warmed


def protocol_body(survey: Survey, *, preview: bool = False) -> dict:
    """What ``ProtocolView`` serves for ``survey``. ``preview`` (a designer's preview of any survey, drafts included:
    survey_app/views.py): the same, without the model (nothing is validated) and without making a key — a token
    survey's active key only if it already has one."""
    protocol = get_protocol(survey)
    credential: dict[str, Any]
    if preview:
        key = survey.keys.filter(active=True).first() if survey.access == Survey.Access.TOKENS else None
        credential = {"credential": {"variant": blind_rsa.VARIANT, "key_id": key.key_id, "spki": key.public_spki}} \
            if key is not None else {}
    else:
        credential = {"credential": public_credential(survey)} if survey.access == Survey.Access.TOKENS else {}
    return {
        **_static_body(survey, protocol),
        "protocol": public_protocol(survey, protocol, preview),
        "model_url": None if preview else reverse("api-model", kwargs={"slug": survey.slug}),
        **credential,
        **ohttp.published(survey),  # the relay and the gateway's key, if it has a relay
    }


class ReportView(JSONBodyView):
    authentication_classes: list = []
    permission_classes: list = []
    max_body_bytes = MAX_REPORT_BYTES

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
        outcome = submit_report(slug, lambda: read_submission(self.json_body(request)))
        if outcome.stored:
            return Response({"status": "stored"}, status=status.HTTP_201_CREATED)
        if outcome.result is Result.INVALID:
            raise ValidationError({cast(str, outcome.field): [outcome.message]})  # INVALID names its field
        raise REFUSALS[outcome.result](outcome.message)


# -- unlinkable invitations (survey_app/credentials.py) ----------------------------------------------------------------

#: The longest value of each field of a redemption body (``RedeemSerializer``).
REDEEM_LIMITS = {"token": 64, "blinded_msg": 2048, "key_id": 64}


class RedeemSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=REDEEM_LIMITS["token"],
                                  help_text="The invitation token (from the invitation link).")
    blinded_msg = serializers.CharField(max_length=REDEEM_LIMITS["blinded_msg"],
                                        help_text="The blinded message (RFC 9474 §4.2), unpadded base64url of the "
                                                  "key's size.")
    key_id = serializers.CharField(required=False, max_length=REDEEM_LIMITS["key_id"],
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
            raise ValidationError({cast(str, outcome.field): [outcome.message]})  # INVALID names its field
        raise REFUSALS[outcome.result](outcome.message)
