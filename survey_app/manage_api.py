"""The management API (``/api/manage/``): what a designer does in the admin, for scripts — create a survey with its
questions, edit its settings, open, close and clone it, generate invitations. Token authentication only (DRF's
``authtoken``: ``python manage.py drf_create_token USER``), for staff who design the survey (``permissions``) and
hold Django's ``survey_app`` model permissions. The rules are the models' and services': a survey is checked by
``Survey.clean`` (the engine's ``check_settings``), choices by ``services.parse_choice_lines``."""
from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authentication import TokenAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from .models import SKIP_MESSAGES, Question, Survey
from .permissions import can_manage, surveys_for
from .services import (
    choice_lines,
    clone_survey,
    close_survey,
    generate_tokens,
    open_survey,
    parse_choice_lines,
    sync_choices,
)
from .views import invitation_link

SURVEY_FIELDS = (
    "slug", "title", "description", "status", "access", "mode", "theta", "epsilon", "encoding", "strategy",
    "postprocess", "allocation", "validation_share", "numeric_handling", "numeric_bins", "gaussian_approach",
    "retrain_minutes", "opens_at", "closes_at", "quota", "webhook_url", "webhook_secret", "ohttp_relay",
    "accent_color", "end_text", "end_url", "shuffle_questions", "shuffle_choices",
)
QUESTION_FIELDS = ("name", "text", "help_text", "section", "kind", "style", "is_class", "low", "high",
                   "prefer_not_to_say", "group", "step", "matrix")


def _checked(instance, exclude=()) -> None:
    """``instance.full_clean()``, its errors as DRF's 400 body ({field: [messages]})."""
    try:
        instance.full_clean(exclude=list(exclude))
    except DjangoValidationError as exc:
        raise ValidationError(exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}) from exc


class ChoicesField(serializers.ListField):
    """A question's choices as lines, in the admin's format (``services.choice_lines``)."""

    def get_attribute(self, instance):
        return choice_lines(instance).splitlines()


class ShowIfField(serializers.JSONField):
    """Skip logic: ``{"question": <an earlier question's name>, "answers": [<its answers that show this one>]}``, or
    null (always shown)."""

    def get_attribute(self, instance):
        gate = instance.show_if_question
        return None if gate is None else {"question": gate.name, "answers": list(instance.show_if_answers)}


class QuestionSerializer(serializers.ModelSerializer):
    show_if = ShowIfField(
        required=False, allow_null=True, default=None,
        help_text="Skip logic: shown only if the earlier question named by `question` has one of `answers` (its "
                  "labels); hidden, it sends “Not asked”, randomized like any answer. Null: always shown.")
    choices = ChoicesField(
        child=serializers.CharField(max_length=300), required=False, default=list,
        help_text="The answers in the order respondents see them; MRR may declare each one's share of the "
                  "population answering it to the unrelated question as `label = 0.2` (as in the admin).")

    class Meta:
        model = Question
        fields = (*QUESTION_FIELDS, "show_if", "choices")


class SurveySerializer(serializers.ModelSerializer):
    questions = QuestionSerializer(many=True, required=False,
                                   help_text="Given on creation only (edit a draft's questions in the admin).")

    class Meta:
        model = Survey
        fields = (*SURVEY_FIELDS, "questions")
        read_only_fields = ("status", "webhook_secret")

    def validate(self, attrs):
        if self.instance is not None and "questions" in self.initial_data:
            raise ValidationError({"questions": ["Questions are given on creation only."]})
        return attrs

    @transaction.atomic
    def create(self, validated_data):
        questions = validated_data.pop("questions", [])
        survey = Survey(**validated_data)
        _checked(survey)
        survey.save()
        survey.designers.add(self.context["request"].user)
        created: dict[str, Question] = {}
        for position, data in enumerate(questions):
            labels = data.pop("choices", [])
            show_if = data.pop("show_if", None)
            question = Question(survey=survey, position=position, **data)
            if show_if is not None:
                if not (isinstance(show_if, dict) and isinstance(show_if.get("question"), str)
                        and isinstance(show_if.get("answers"), list)):
                    raise ValidationError({"questions": [f"{question.name}: show_if is {{\"question\": name, "
                                                         f"\"answers\": [labels]}} or null"]})
                gate = created.get(show_if["question"])
                if gate is None:
                    raise ValidationError({"questions": [f"{question.name}: {SKIP_MESSAGES['gate_order']}"]})
                question.show_if_question, question.show_if_answers = gate, show_if["answers"]
            _checked(question)
            question.save()
            try:
                lines = parse_choice_lines("\n".join(labels), kind=question.kind,
                                           prefer_not_to_say=question.prefer_not_to_say)
            except ValueError as exc:
                raise ValidationError({"questions": [f"{question.name}: {exc}"]}) from exc
            sync_choices(question, lines)
            created[question.name] = question
        _checked(survey)  # the whole survey, questions included, as the engine will run it
        return survey

    @transaction.atomic
    def update(self, survey, validated_data):
        for field, value in validated_data.items():
            setattr(survey, field, value)
        _checked(survey)  # a survey once opened keeps its privacy settings (Survey.clean)
        survey.save()
        return survey


class Designer(BasePermission):
    """Active staff with Django's permission for the request (view, add or change ``survey``), on the surveys they
    design (``permissions.can_manage``)."""

    PERMS = {"GET": "view", "HEAD": "view", "OPTIONS": "view", "POST": "add", "PATCH": "change", "PUT": "change"}

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated and user.is_active and user.is_staff):
            return False
        perm = "change" if getattr(view, "action", None) in SurveyViewSet.CHANGING else self.PERMS.get(request.method)
        return perm is not None and user.has_perm(f"survey_app.{perm}_survey")

    def has_object_permission(self, request, view, survey):
        return can_manage(request.user, survey)


LINKS = inline_serializer("InvitationLinks", {"links": serializers.ListField(child=serializers.URLField())})


class InvitationRequest(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=100_000)
    batch = serializers.CharField(required=False, max_length=100)


CREATE_EXAMPLE = OpenApiExample("A two-question LDP survey", request_only=True, value={
    "slug": "commute", "title": "Getting to work", "mode": "ldp", "epsilon": 1.0, "encoding": "oue",
    "questions": [{"name": "mode", "text": "How do you get to work?", "kind": "categorical",
                   "choices": ["Walk", "Bike", "Bus or train", "Car"]},
                  {"name": "late", "text": "Were you late this week?", "kind": "binary", "is_class": True}]})


@extend_schema_view(
    list=extend_schema(summary="The surveys you design"),
    retrieve=extend_schema(summary="One survey with its questions"),
    create=extend_schema(summary="Create a draft survey with its questions", examples=[CREATE_EXAMPLE]),
    partial_update=extend_schema(summary="Change a survey's settings (its privacy settings only while it is a "
                                         "draft)"),
)
class SurveyViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                    mixins.UpdateModelMixin, viewsets.GenericViewSet):
    authentication_classes = [TokenAuthentication]
    permission_classes = [Designer]
    serializer_class = SurveySerializer
    lookup_field = "slug"
    http_method_names = ["get", "post", "patch", "head", "options"]
    #: Actions that change a survey: they need Django's change permission whatever their HTTP method.
    CHANGING = ("open", "close", "clone", "invitations")

    def get_queryset(self):
        return surveys_for(self.request.user).prefetch_related("questions__choices").order_by("slug")

    @extend_schema(summary="Open a survey for reports", request=None,
                   responses={200: SurveySerializer, 409: inline_serializer("OpenRefused",
                                                                            {"detail": serializers.CharField()})})
    @action(detail=True, methods=["post"])
    def open(self, request, slug=None):
        survey = self.get_object()
        try:
            open_survey(survey)
        except ValueError as exc:
            return Response({"detail": f"The survey cannot open: {exc}"}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(survey).data)

    @extend_schema(summary="Close a survey: it takes no more reports", request=None, responses=SurveySerializer)
    @action(detail=True, methods=["post"])
    def close(self, request, slug=None):
        survey = self.get_object()
        close_survey(survey)
        return Response(self.get_serializer(survey).data)

    @extend_schema(summary="Clone a survey as a draft whose settings can change", request=None,
                   responses={201: SurveySerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, slug=None):
        if not request.user.has_perm("survey_app.add_survey"):
            raise PermissionDenied("Cloning creates a survey: it needs the permission to add surveys.")
        copy = clone_survey(self.get_object())
        copy.designers.add(request.user)
        return Response(self.get_serializer(copy).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Generate one-use invitation links", request=InvitationRequest, responses={201: LINKS},
                   examples=[OpenApiExample("100 links", request_only=True, value={"count": 100, "batch": "March"})])
    @action(detail=True, methods=["post"])
    def invitations(self, request, slug=None):
        survey = self.get_object()
        if survey.access != Survey.Access.TOKENS:
            raise ValidationError({"access": ["The survey is open to anyone with its link: set access to tokens "
                                              "first."]})
        body = InvitationRequest(data=request.data)
        body.is_valid(raise_exception=True)
        tokens = generate_tokens(survey, body.validated_data["count"], body.validated_data.get("batch", ""))
        base = request.build_absolute_uri("/").rstrip("/")
        links = [invitation_link(survey, t.token, base) for t in tokens]
        return Response({"links": links}, status=status.HTTP_201_CREATED)
