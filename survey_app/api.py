"""The report API's read side and shared HTTP helpers (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* The respondents' two POSTs (a report, an invitation's redemption) are plain Django views:
  ``survey_app.respondent_views``, which maps the ingestion service's refusals through ``REFUSALS``.

Hostile input (tests/security/): the model API's JSON bodies go through ``BoundedJSONParser`` (415 for a Content-Type
other than ``application/json``, 400 for a parameter other than ``charset=utf-8``, 413 beyond the view's limit or
Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``; a body without ``Content-Length`` is empty to Django: the proxy buffers
chunked bodies, docs/operations.md); NaN/±Infinity constants are refused by DRF's strict JSON, nesting too deep for
the decoder is a 400. A report body is at most ``MAX_REPORT_BYTES``.
"""
from __future__ import annotations

import io
import logging
import time
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ParseError, PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy import blind_rsa

from . import languages, ohttp
from .caching import BoundedCache
from .credentials import public_credential, warm_keys
from .models import Survey
from .outcomes import MESSAGES, Result
from .protocol import get_protocol, survey_version
from .reports import todays_assignment
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


def check_json_parameters(media_type: str) -> None:
    """``ParseError`` unless a JSON body's Content-Type has no parameter but at most one ``charset=utf-8`` (RFC 8259
    §8.1: JSON exchanged between systems is UTF-8; case-insensitive, quoted or not)."""
    parameters = media_type_parameters(media_type)
    for name, value in parameters:
        if name != "charset":
            raise ParseError(f"Unsupported Content-Type parameter {name[:40]!r}: send application/json.")
        if value.lower() != "utf-8":
            raise ParseError(f"Unsupported charset {value[:40]!r}: send the JSON body in UTF-8.")
    if len(parameters) > 1:
        raise ParseError("Repeated Content-Type parameter: send application/json; charset=utf-8 at most.")


def read_bounded(stream, declared, limit: int) -> bytes:
    """The body from ``stream``, at most ``limit`` bytes: ``PayloadTooLarge`` (413) when the ``declared``
    Content-Length or what is read exceeds it; ``ParseError`` (400) when it cannot be read to its end."""
    if declared and str(declared).isdigit() and int(declared) > limit:
        raise PayloadTooLarge()
    try:
        body = stream.read(limit + 1)
    except Exception:  # a client gone mid-body (any server's error): a 400
        raise ParseError("The request body could not be read to its end.") from None
    if len(body) > limit:
        raise PayloadTooLarge()
    return body


class BoundedJSONParser(JSONParser):
    """DRF's strict JSON parser for UTF-8 bodies of at most the view's ``body_limit``: 413 beyond (declared or
    read); 400 for a Content-Type parameter other than one ``charset=utf-8``
    (RFC 8259 §8.1: JSON exchanged between systems is UTF-8; case-insensitive, quoted or not), for a body that is not
    UTF-8, cannot be read to its end, or nests too deeply to decode (not a ``RecursionError``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        context = dict(parser_context or {})
        check_json_parameters(media_type or "")
        limit = body_limit(context.get("view"))
        request = context.get("request")
        body = read_bounded(stream, request.META.get("CONTENT_LENGTH") if request is not None else None, limit)
        context["encoding"] = "utf-8"
        try:
            return super().parse(io.BytesIO(body), media_type, context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None


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
    matrices = languages.section_titles(questions, "matrix")
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
            # A slider's step (null: a hundredth of the range); the matrix (grid) this question is a row of ("": none).
            "step": q.step,
            "matrix": matrices.get(q.matrix, q.matrix),
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
_STATIC_BODIES: BoundedCache[tuple, dict] = BoundedCache(512)


def _static_body(survey: Survey, protocol) -> dict:
    return _STATIC_BODIES.get_or_build((survey_version(survey), languages.active_language()),
                                       lambda: _build_static_body(survey, protocol))


def _build_static_body(survey: Survey, protocol) -> dict:
    return {
        "survey": {"slug": survey.slug, "title": survey.display_title, "description": survey.display_description,
                   "access": survey.access,
                   # Each respondent's browser draws its own order of questions and choices (never sent).
                   "shuffle": {"questions": survey.shuffle_questions, "choices": survey.shuffle_choices}},
        "questions": question_display(survey),
        "report_schema": protocol.report_schema(),
        "privacy": protocol.privacy(),
    }


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
