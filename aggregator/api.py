"""The model API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/model/`` — the latest published model version: version, report count, the Naive Bayes
  model (``NaiveBayesModel.to_dict()``), privacy figures and creation time; 404 when none is published yet. With
  ``?for=validation``: the version LDP validation respondents evaluate (``services.validation_version``: the newest
  published before the current UTC day), so a validation report's version reveals no more than its day; the
  survey page's browser code asks for this one.
* ``POST /api/surveys/<slug>/predict/`` — ``{"records": [{question name: answer, …}, …]}`` →
  ``{"version": v, "predictions": [class label, …]}`` with the latest model; 400 names the record and field. An
  answer is a label, a number (outside a question's public bounds clipped to them), or for a select-all question the
  list of the choices that apply.

Only public (open or closed) surveys are visible, as for the report API. Bodies are JSON only, at most Django's
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``survey_app.api.BoundedJSONParser``: 415 / 413 otherwise).
"""
from __future__ import annotations

from typing import cast

import numpy as np
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import NotFound, ParseError, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.oracles.wire import is_number
from survey_app.api import BoundedJSONParser, ErrorSchema, FieldErrors, SlugParameter, public_survey
from survey_app.models import PREFER_NOT_TO_SAY, Question, Survey
from survey_app.permissions import surveys_for
from survey_app.protocol import get_protocol

from .dashboard.exports.registry import BY_NAME
from .models import ModelVersion
from .services import latest_accuracy, latest_version, validation_version

MAX_RECORDS = 10_000


def published(survey: Survey) -> ModelVersion:
    version = latest_version(survey)
    if version is None:
        raise NotFound("No model has been published for this survey yet.")
    return version


ModelVersionSchema = inline_serializer("ModelVersion", {
    "version": serializers.IntegerField(),
    "report_count": serializers.IntegerField(),
    "through_day": serializers.DateField(
        allow_null=True,
        help_text="The last day (UTC) whose reports the model includes: a model includes every report received up "
                  "to the end of that day and none after, so it changes at most once a day"),
    "model": serializers.JSONField(
        help_text="NaiveBayesModel.to_dict(): class attribute, attributes, prior, conditionals"),
    "privacy": serializers.JSONField(
        help_text="ε per question and per respondent (and PSE before/after mining for MRR surveys)"),
    "accuracy": serializers.JSONField(
        allow_null=True,
        help_text="Newest private accuracy estimate: {version, estimate, standard_error, low, high, confidence, "
                  "reports, method}; null before any validation report. LDP estimates concern the version respondents "
                  "evaluated, which may be older than this one.",
    ),
    "warnings": serializers.JSONField(help_text="Plausibility findings that warn: raw estimates outside [0, 1], "
                                                "jumps from the previous version, per-report checks "
                                                "(privacy.plausibility)"),
    "created_at": serializers.DateTimeField(),
})


class PredictSerializer(serializers.Serializer):
    records = serializers.ListField(
        child=serializers.DictField(), min_length=1, max_length=MAX_RECORDS,
        help_text="One object per record: {question name: answer label (choices), number (numeric questions) or "
                  "list of the choices that apply (select-all questions; [] for none)}.",
    )


ForParameter = OpenApiParameter(
    "for", str, OpenApiParameter.QUERY, required=False, enum=["validation"],
    description="validation: the newest version published before the current UTC day — the one LDP validation "
                "respondents evaluate, so the version in their report reveals no more than its day.")


class ModelView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(summary="The latest published model (or the one validation respondents evaluate)",
                   parameters=[SlugParameter, ForParameter],
                   responses={200: ModelVersionSchema,
                              400: OpenApiResponse(ErrorSchema, description="Unknown value of for, or an unknown "
                                                                            "query parameter"),
                              204: OpenApiResponse(description="for=validation: no model was published before "
                                                               "today (UTC) yet, so there is nothing to evaluate"),
                              404: OpenApiResponse(ErrorSchema,
                                                   description="Unknown survey, or no model published yet")})
    def get(self, request, slug: str):
        unknown = sorted(k for k in request.query_params if k != "for")
        if unknown:
            raise ParseError(f"Unknown query parameter {unknown[0][:40]!r}: this endpoint takes only for.")
        purpose = request.query_params.get("for")
        if purpose not in (None, "validation"):
            raise ParseError("The query parameter for must be 'validation' or absent.")
        survey = public_survey(slug)
        if purpose == "validation":
            version = validation_version(survey)
            if version is None:  # not an error: every respondent of a new survey asks (static/js/survey.mjs)
                return Response(status=204)
        else:
            version = published(survey)
        accuracy = latest_accuracy(survey)
        return Response({
            "version": version.version,
            "report_count": version.report_count,
            "through_day": version.through_day,
            "model": version.model,
            "privacy": version.privacy,
            "accuracy": {"version": accuracy[0], **accuracy[1]} if accuracy else None,
            "warnings": [f for key in ("out_of_range", "jumps", "plausibility") for f in version.metrics.get(key, [])
                         if f.get("warning")],
            "created_at": version.created_at,
        })


def multi_codes(question: Question, value, field: str) -> list[int]:
    """The no/yes codes of a select-all question's features from its answer: the list of the choices that apply
    (empty: none), or “Prefer not to say” when the question offers it (every feature then says so)."""
    options = question.options()
    if question.prefer_not_to_say and value == PREFER_NOT_TO_SAY:
        return [2] * len(options)
    if not isinstance(value, list) or any(v not in options for v in value):
        raise ValidationError({field: [f"A list of the choices that apply (possibly empty), among: "
                                       f"{', '.join(options)}."]})
    return [int(option in value) for option in options]


def records_to_matrix(survey: Survey, records: list[dict]) -> np.ndarray:
    """Question-order feature matrix (choice index or number per feature question); 400 naming record and field."""
    questions = list(survey.questions.prefetch_related("choices"))
    features = [q for q in questions if not q.is_class]
    class_names = {q.name for q in questions if q.is_class}
    known = {q.name for q in features}
    columns = [j for j, q in enumerate(features) for _ in q.feature_names()]  # a select-all question: one per choice
    X = np.empty((len(records), len(columns)), dtype=np.float64)
    labels = {q.name: q.labels() for q in features}
    for i, record in enumerate(records):
        unknown = [k for k in record if k not in known and k not in class_names]
        if unknown:
            raise ValidationError({f"records[{i}].{unknown[0]}": ["No such question in this survey."]})
        for j, q in enumerate(features):
            field = f"records[{i}].{q.name}"
            if q.name not in record:
                raise ValidationError({field: ["Missing answer."]})
            value = record[q.name]
            if q.kind == Question.Kind.MULTI:
                first = columns.index(j)
                X[i, first:first + len(q.options())] = multi_codes(q, value, field)
            elif q.kind == Question.Kind.NUMERIC:
                if not is_number(value):
                    raise ValidationError({field: ["Must be a finite number."]})
                # Clipped to the public bounds, as respondents' answers are (SPEC §5, ``Numeric.normalise``).
                X[i, j] = min(max(float(value), cast(float, q.low)), cast(float, q.high))  # set on numeric ones
            else:
                if value not in labels[q.name]:
                    raise ValidationError({field: [f"Unknown answer {value!r}; one of: {', '.join(labels[q.name])}."]})
                X[i, j] = labels[q.name].index(value)
    return X


class PredictView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        summary="Predict the class of records with the latest model",
        parameters=[SlugParameter],
        request=PredictSerializer,
        responses={
            200: inline_serializer("Predictions", {
                "version": serializers.IntegerField(),
                "predictions": serializers.ListField(child=serializers.CharField()),
            }),
            400: OpenApiResponse(FieldErrors, description="Malformed records; the message names the record and field"),
            404: OpenApiResponse(ErrorSchema, description="Unknown survey or no model published yet"),
            413: OpenApiResponse(ErrorSchema, description="Body larger than DATA_UPLOAD_MAX_MEMORY_SIZE"),
            415: OpenApiResponse(ErrorSchema, description="Not application/json"),
        },
    )
    def post(self, request, slug: str):
        survey = public_survey(slug)
        serializer = PredictSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        version = published(survey)
        X = records_to_matrix(survey, serializer.validated_data["records"])
        model = NaiveBayesModel.from_dict(version.model)
        predictions = model.predict_labels(get_protocol(survey).to_model_input(X))
        return Response({"version": version.version, "predictions": predictions})


class ExportView(APIView):
    """A published version in one of the dashboard's download formats (``dashboard.exports.registry``), for the
    management API's token holders who design the survey."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Download a published model version: scikit-learn estimator, frequency tables or model card",
                   parameters=[SlugParameter, OpenApiParameter("version", int, OpenApiParameter.PATH),
                               OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(BY_NAME))],
                   responses={(200, "application/octet-stream"): OpenApiResponse(description="The file"),
                              403: OpenApiResponse(ErrorSchema, description="No permission to view surveys"),
                              404: OpenApiResponse(ErrorSchema, description="Not a survey of yours, or no such "
                                                                            "version or format"),
                              409: OpenApiResponse(ErrorSchema, description="The version has no such form")})
    def get(self, request, slug: str, version: int, fmt: str):
        if not request.user.has_perm("survey_app.view_survey"):
            raise PermissionDenied("Downloads need the permission to view surveys.")
        survey = surveys_for(request.user).filter(slug=slug).first()
        export = BY_NAME.get(fmt)
        stored = ModelVersion.objects.filter(survey=survey, version=version).first() if survey else None
        if survey is None or export is None or stored is None:
            raise NotFound("No such survey of yours, version or format.")
        try:
            protocol = get_protocol(survey) if export.needs_protocol else None
            body = export.build(stored, protocol)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=409)
        response = HttpResponse(body, content_type=export.content_type)
        response["Content-Disposition"] = f'attachment; filename="{slug}-v{version}-{export.suffix}"'
        return response
