"""The report API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* ``POST /api/surveys/<slug>/reports/`` — one randomized report: a training report, or a validation report
  ``{"validation": …}`` from the validation share (``aggregator.privacy.validation``). 201 stored; 400 malformed
  (the message names the field); 403 unknown token; 409 token already used; 410 survey closed; 404 unknown or draft
  survey.

Nothing but the report itself and a coarse date is stored: the token is consumed by a conditional UPDATE (``used``
false → true) in the same transaction as the insert, never written beside the report.

Hostile input (issue 5, tests/security/): bodies are JSON only (``BoundedJSONParser``: anything else is 415) of at most
``MAX_REPORT_BYTES`` (413 beyond; the predict API uses Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``), NaN/±Infinity
constants are refused by DRF's strict JSON, nesting too deep for the decoder is a 400, and keys beyond ``report``
and ``token`` — or beyond the report's wire format (``SurveyProtocol.parse_one``) — are refused, since the payload
is stored verbatim.
"""
from __future__ import annotations

import copy
import io
from contextlib import nullcontext

from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ParseError, PermissionDenied, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy.survey_protocol import ReportError

from .models import InvitationToken, Report, Survey
from .protocol import get_protocol


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
    default_detail = "This survey is closed and no longer accepts answers."
    default_code = "closed"


class TokenUsed(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "This invitation has already been used."
    default_code = "token_used"


#: Surveys ``public_survey`` read, by slug: (row version, survey). PostgreSQL only; bounded; shared by threads.
_SURVEYS: dict[str, tuple[tuple, Survey]] = {}
_SURVEYS_SIZE = 1024


def public_survey(slug: str) -> Survey:
    """An open or closed survey (drafts are not public); 404 otherwise.

    Every report POST calls this, and building a ``Survey`` through the ORM cost several times the query itself
    (bench/load measures the report path). So on PostgreSQL one two-column SELECT reads the row's version — its id,
    ``xmin`` (the transaction that wrote it) and ``ctid`` (where; each UPDATE writes a new tuple, so even updates
    within one transaction change it) — and a survey read at that version is reused, as a copy. Any committed or
    own change to the row, by ``save``, ``update_fields``, ``QuerySet.update`` or SQL, makes a new version, which
    reads the whole row again. Other databases (the embedded SQLite) read the whole row every time."""
    def read():
        return Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()

    if connection.vendor != "postgresql":
        survey = read()
    else:
        table = connection.ops.quote_name(Survey._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id, xmin::text, ctid::text FROM {table} WHERE slug = %s AND status <> %s",
                           [slug, Survey.Status.DRAFT])
            version = cursor.fetchone()
        cached = _SURVEYS.get(slug)
        if version is None:
            survey = None
        elif cached is not None and cached[0] == version:
            survey = copy.copy(cached[1])
        else:
            survey = read()  # read after the version: if newer, the next call's version differs
            if survey is not None:
                if len(_SURVEYS) >= _SURVEYS_SIZE:
                    _SURVEYS.clear()
                _SURVEYS[slug] = (version, copy.copy(survey))
    if survey is None:
        raise NotFound("No such survey.")
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


def validated_version(protocol, report) -> int | None:
    """The model version an LDP validation report evaluated (``None`` for any other report)."""
    if protocol.mode == "ldp" and protocol.is_validation(report):
        return report["validation"]["version"]
    return None


class ReportSerializer(serializers.Serializer):
    report = serializers.JSONField(help_text="The randomized report, in the wire format of the survey's protocol.")
    token = serializers.CharField(required=False, max_length=64, help_text="Invitation token (token surveys only).")

    def validate(self, attrs):
        unknown = sorted(str(key) for key in self.initial_data if key not in self.fields)
        if unknown:
            raise ValidationError({unknown[0][:40]: ["Unexpected field; a body holds only report and token."]})
        return attrs


def store_report(survey: Survey, payload, guard: tuple[str, list] | None = None) -> bool:
    """Insert one report row: what ``Report.objects.create(survey=survey, payload=payload)`` does (``Report`` has no
    ``save`` override and no signal receivers), as one INSERT built from the model's fields — without the ORM's
    per-call query compilation, which cost a tenth of a report POST's CPU (bench/load). With ``guard`` (an SQL
    condition and its parameters) the row is added only if the condition holds. Returns whether it was added."""
    quote, meta = connection.ops.quote_name, Report._meta
    survey_field, payload_field, date_field = (meta.get_field(n) for n in ("survey", "payload", "received_on"))
    columns = ", ".join(quote(f.column) for f in (survey_field, payload_field, date_field))
    values = [survey.pk, payload_field.get_db_prep_save(payload, connection),
              date_field.get_db_prep_save(date_field.get_default(), connection)]
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) SELECT %s, %s, %s"
    if guard is not None:
        sql, values = f"{sql} WHERE {guard[0]}", values + guard[1]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.rowcount == 1


def store_if_unchanged(request, slug: str) -> bool:
    """The usual report POST in one round trip to the database (PostgreSQL); ``True`` if it stored the report.

    The usual POST — an open link survey, the body ``{"report": {…}}``, a valid report — is checked against the
    survey as ``public_survey`` last read it (no query), then stored by one INSERT … SELECT that adds the row only if
    the survey row is still at that version, and, for a validation report, the model version it names exists: the
    full path's checks, made at the moment of the insert. (A round trip cost a fifth of a POST's CPU, bench/load.)
    ``False`` — nothing stored; the full path answers, errors included — when the survey is not cached, anything
    else is asked, the report is not valid, or the row changed since."""
    cached = _SURVEYS.get(slug) if connection.vendor == "postgresql" else None
    if cached is None:
        return False
    (survey_id, xmin, ctid), survey = cached
    if survey.status != Survey.Status.OPEN or survey.access != Survey.Access.LINK:
        return False
    try:
        report = usual_report(request.data)
    except APIException:  # an unreadable body: answered as the full path would, after the survey's 404 or 410
        if public_survey(slug).status != Survey.Status.OPEN:
            raise Gone() from None
        raise
    if report is None:
        return False
    try:
        protocol = get_protocol(survey)
        protocol.parse_one(report)
    except ValueError:  # a malformed report (ReportError), or a survey changed since beyond building
        return False
    quote = connection.ops.quote_name
    guard = (f"EXISTS (SELECT 1 FROM {quote(Survey._meta.db_table)} "
             "WHERE id = %s AND xmin::text = %s AND ctid::text = %s)")
    params = [survey_id, xmin, ctid]
    version = validated_version(protocol, report)
    if version is not None:
        versions = Survey._meta.get_field("model_versions").related_model._meta
        guard += (f" AND EXISTS (SELECT 1 FROM {quote(versions.db_table)} WHERE "
                  f"{quote(versions.get_field('survey').column)} = %s AND {quote(versions.get_field('version').column)} = %s)")
        params += [survey_id, version]
    return store_report(survey, report, (guard, params))


def usual_report(data):
    """The report of the usual body, ``{"report": {…}}`` — exactly what ``ReportSerializer`` returns for it (its
    JSONField passes a parsed object through) — or ``None`` for any other body."""
    if type(data) is dict and len(data) == 1 and type(data.get("report")) is dict:
        return data["report"]
    return None


def report_and_token(data) -> tuple:
    """(report, token or ``None``) of a request body, validated by ``ReportSerializer``: the usual body
    (``usual_report``) without building a serializer, which cost a tenth of a report POST's CPU (bench/load); every
    other body (a token, an error to report) through it."""
    report = usual_report(data)
    if report is not None:
        return report, None
    serializer = ReportSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["report"], serializer.validated_data.get("token")


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
        if store_if_unchanged(request, slug):
            return Response({"status": "stored"}, status=status.HTTP_201_CREATED)
        survey = public_survey(slug)
        if survey.status != Survey.Status.OPEN:
            raise Gone()
        report, token = report_and_token(request.data)
        protocol = get_protocol(survey)
        try:
            protocol.parse_one(report)
        except ReportError as exc:
            raise ValidationError({f"report.{exc.field}": [exc.message]}) from None
        version = validated_version(protocol, report)
        if version is not None and not survey.model_versions.filter(version=version).exists():
            raise ValidationError({"report.validation.version": ["No such published model version."]})
        # A token survey consumes its token in the report's transaction; a link survey's report is one INSERT, atomic
        # by itself (no BEGIN/COMMIT round trips on the hot path).
        with transaction.atomic() if survey.access == Survey.Access.TOKENS else nullcontext():
            if survey.access == Survey.Access.TOKENS:
                if not token:
                    raise PermissionDenied("This survey needs an invitation token.")
                consumed = InvitationToken.objects.filter(survey=survey, token=token, used=False).update(used=True)
                if consumed != 1:
                    if InvitationToken.objects.filter(survey=survey, token=token).exists():
                        raise TokenUsed()
                    raise PermissionDenied("Unknown invitation token.")
            store_report(survey, report)
        return Response({"status": "stored"}, status=status.HTTP_201_CREATED)
