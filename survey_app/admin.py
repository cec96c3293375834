"""The designers' interface: surveys with their questions inline, choices inline on each question, token batches."""
from __future__ import annotations

import csv

from django.contrib import admin, messages
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from .models import Choice, InvitationToken, Question, Survey
from .services import clone_survey, generate_tokens


class QuestionInline(admin.TabularInline):
    model = Question
    extra = 0
    fields = ("position", "section", "name", "text", "kind", "is_class", "low", "high", "prefer_not_to_say", "group", "edit_link")
    readonly_fields = ("edit_link",)
    show_change_link = True

    @admin.display(description="Choices")
    def edit_link(self, obj):
        if not obj.pk:
            return "—"
        url = reverse("admin:survey_app_question_change", args=[obj.pk])
        return format_html('<a href="{}">{} choice(s) ›</a>', url, obj.choices.count())


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "status", "mode", "privacy_summary", "report_count", "access")
    list_filter = ("status", "mode", "access")
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}
    inlines = [QuestionInline]
    actions = ["open_surveys", "close_surveys", "clone", "make_100_tokens", "export_token_links"]
    fieldsets = (
        (None, {"fields": ("title", "slug", "description", "status", "access")}),
        ("Privacy", {
            "fields": ("mode", "theta", "epsilon", "encoding", "the_threshold", "strategy", "postprocess"),
            "description": "MRR uses θ; LDP uses ε and an encoding. Locked once the survey has reports (clone it to change).",
        }),
        ("Numeric questions (LDP)", {
            "fields": ("numeric_handling", "numeric_bins", "gaussian_approach", "projection", "projection_components", "reference_sample"),
            "classes": ("collapse",),
        }),
    )

    @admin.display(description="Privacy")
    def privacy_summary(self, obj: Survey) -> str:
        if obj.mode == Survey.Mode.MRR:
            return f"θ = {obj.theta:g}" if obj.theta is not None else "θ not set"
        return f"ε = {obj.epsilon:g} ({obj.encoding})" if obj.epsilon is not None else "ε not set"

    @admin.display(description="Reports")
    def report_count(self, obj: Survey) -> int:
        return obj.reports.count()

    @admin.action(description="Open the selected surveys")
    def open_surveys(self, request, queryset):
        queryset.update(status=Survey.Status.OPEN)

    @admin.action(description="Close the selected surveys")
    def close_surveys(self, request, queryset):
        queryset.update(status=Survey.Status.CLOSED)

    @admin.action(description="Clone (a draft copy whose privacy settings can be changed)")
    def clone(self, request, queryset):
        for survey in queryset:
            copy = clone_survey(survey)
            self.message_user(request, f"Cloned {survey.slug} as {copy.slug}.", messages.SUCCESS)

    @admin.action(description="Generate 100 invitation tokens")
    def make_100_tokens(self, request, queryset):
        for survey in queryset:
            generate_tokens(survey, 100)
            self.message_user(request, f"100 tokens added to {survey.slug}.", messages.SUCCESS)

    @admin.action(description="Export unused invitation links (CSV)")
    def export_token_links(self, request, queryset):
        response = HttpResponse(content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="invitations.csv"'
        writer = csv.writer(response)
        writer.writerow(["survey", "batch", "link"])
        for token in InvitationToken.objects.filter(survey__in=queryset, used=False).select_related("survey"):
            link = request.build_absolute_uri(reverse("survey-token", args=[token.survey.slug, token.token]))
            writer.writerow([token.survey.slug, token.batch, link])
        return response


class ChoiceInline(admin.TabularInline):
    model = Choice
    extra = 2
    fields = ("position", "label", "personal_probability")


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("name", "survey", "kind", "is_class", "position")
    list_filter = ("kind", "is_class", "survey")
    search_fields = ("name", "text")
    inlines = [ChoiceInline]
    fieldsets = (
        (None, {"fields": ("survey", "position", "section", "name", "text", "help_text", "kind", "is_class", "prefer_not_to_say")}),
        ("Numeric bounds (public)", {"fields": ("low", "high")}),
        ("Unrelated-question model (MRR)", {"fields": ("group", "personal_mode", "personal_text")}),
    )


@admin.register(InvitationToken)
class InvitationTokenAdmin(admin.ModelAdmin):
    list_display = ("__str__", "survey", "batch", "used", "created_on")
    list_filter = ("used", "survey")
    readonly_fields = ("token", "used", "created_on")
