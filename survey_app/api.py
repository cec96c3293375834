"""The report API (Django REST framework; OpenAPI via drf-spectacular).

* ``GET  /api/surveys/<slug>/protocol/`` — what a browser needs to randomize: questions and the public protocol.
* ``POST /api/surveys/<slug>/reports/`` — one randomized report. 201 stored; 400 malformed (the message names the
  field); 403 unknown token; 409 token already used; 410 survey closed; 404 unknown or draft survey.

Nothing but the report itself and a coarse date is stored: the token is consumed by a conditional UPDATE (``used``
false → true) in the same transaction as the insert, never written beside the report.
"""
from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from aggregator.privacy.survey_protocol import ReportError

from .models import InvitationToken, Report, Survey
from .protocol import get_protocol


class Gone(APIException):
    status_code = status.HTTP_410_GONE
    default_detail = "This survey is closed and no longer accepts answers."
    default_code = "closed"


class TokenUsed(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "This invitation has already been used."
    default_code = "token_used"


def public_survey(slug: str) -> Survey:
    """An open or closed survey (drafts are not public); 404 otherwise."""
    survey = Survey.objects.filter(slug=slug).exclude(status=Survey.Status.DRAFT).first()
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


class ReportSerializer(serializers.Serializer):
    report = serializers.JSONField(help_text="The randomized report, in the wire format of the survey's protocol.")
    token = serializers.CharField(required=False, max_length=64, help_text="Invitation token (token surveys only).")


class ProtocolView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        summary="The survey's questions and public randomization protocol",
        responses={200: OpenApiResponse(description="Questions, protocol and privacy figures"), 404: None, 410: None},
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
        })


class ReportView(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        summary="Submit one randomized report",
        request=ReportSerializer,
        responses={
            201: inline_serializer("ReportAccepted", {"status": serializers.CharField()}),
            400: OpenApiResponse(description="Malformed report; the message names the field"),
            403: OpenApiResponse(description="Unknown invitation token"),
            404: OpenApiResponse(description="Unknown survey"),
            409: OpenApiResponse(description="Invitation token already used"),
            410: OpenApiResponse(description="Survey closed"),
        },
    )
    def post(self, request, slug: str):
        survey = public_survey(slug)
        if survey.status != Survey.Status.OPEN:
            raise Gone()
        serializer = ReportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        report = serializer.validated_data["report"]
        try:
            get_protocol(survey).parse_one(report)
        except ReportError as exc:
            raise ValidationError({f"report.{exc.field}": [exc.message]}) from None
        token = serializer.validated_data.get("token")
        with transaction.atomic():
            if survey.access == Survey.Access.TOKENS:
                if not token:
                    raise PermissionDenied("This survey needs an invitation token.")
                consumed = InvitationToken.objects.filter(survey=survey, token=token, used=False).update(used=True)
                if consumed != 1:
                    if InvitationToken.objects.filter(survey=survey, token=token).exists():
                        raise TokenUsed()
                    raise PermissionDenied("Unknown invitation token.")
            Report.objects.create(survey=survey, payload=report)
        return Response({"status": "stored"}, status=status.HTTP_201_CREATED)
