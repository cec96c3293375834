"""The designers' interface: surveys with their questions inline, choices inline on each question, token batches."""
from __future__ import annotations

import csv

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from aggregator.privacy.jsonable import format_epsilon
from aggregator.privacy.protocol import SurveyProtocol

from .credentials import active_key, rotate_key
from .models import Choice, InvitationToken, Question, Survey
from .permissions import can_manage, surveys_for
from .protocol import get_protocol
from .services import clone_survey, create_survey_from_table, fit_projection, generate_tokens

#: How the admin writes each privacy setting (``SurveyProtocol.privacy_settings``; as the dashboard does).
SETTING_SYMBOLS = {"theta": "θ", "epsilon": "ε"}


class ImportForm(forms.Form):
    csv_file = forms.FileField(label="CSV table", help_text="One column per question and a header row; the class "
                                                         "column last unless named below.")
    slug = forms.SlugField(max_length=80)
    title = forms.CharField(max_length=200, required=False)
    mode = forms.ChoiceField(choices=Survey.Mode.choices, initial=Survey.Mode.LDP)
    encoding = forms.ChoiceField(choices=Survey.Encoding.choices, initial=Survey.Encoding.ADAPTIVE)
    epsilon = forms.FloatField(required=False, help_text="LDP only (default 1).")
    theta = forms.FloatField(required=False, help_text="MRR only (default 0.7).")
    class_column = forms.CharField(required=False, help_text="Default: the last column.")


def _locked(obj) -> bool:
    """A survey with reports has read-only questions and choices (changing a domain would corrupt the estimates)."""
    survey = obj if isinstance(obj, Survey) else getattr(obj, "survey", None)
    if survey is None and isinstance(obj, Choice):
        survey = obj.question.survey
    return bool(survey is not None and survey.pk and survey.has_reports())


class LockedInlineMixin:
    """For inlines: ``obj`` is the parent (a survey or a question)."""

    def has_add_permission(self, request, obj=None):
        return not _locked(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not _locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not _locked(obj) and super().has_delete_permission(request, obj)


class QuestionInline(LockedInlineMixin, admin.StackedInline):
    """One block per question, its fields in small groups: a table of eleven columns made the survey page 2,300 px
    wide at a 1,280 px window (issue 12)."""
    model = Question
    extra = 0
    fieldsets = ((None, {"fields": (("position", "section"), ("name", "kind", "is_class"), "text",
                                    ("low", "high"), ("prefer_not_to_say", "group"), "edit_link")}),)
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
    readonly_fields = ("privacy_report", "invitation_key")
    change_list_template = "admin/survey_app/survey/change_list.html"

    class Media:
        css = {"all": ("css/admin.css",)}  # e.g. no capital "Ε" in the privacy table's headings
    actions = ["open_surveys", "close_surveys", "clone", "make_100_tokens", "export_token_links", "rotate_keys"]
    fieldsets = (
        (None, {"fields": ("title", "slug", "description", "status", "access", "invitation_key", "retrain_minutes")}),
        ("Privacy", {
            "fields": ("mode", "theta", "epsilon", "encoding", "the_threshold", "strategy", "postprocess",
                       "validation_share", "privacy_report"),
            "description": "MRR uses θ; LDP uses ε and an encoding. Locked once the survey has reports "
                           "(clone it to change).",
        }),
        ("Numeric questions (LDP)", {
            "fields": ("numeric_handling", "numeric_bins", "gaussian_approach", "projection", "projection_components",
                       "reference_sample"),
            "classes": ("collapse",),
        }),
    )

    # -- designers: each staff member sees and edits the surveys they design (survey_app/permissions.py) ---------
    def get_queryset(self, request):
        return surveys_for(request.user, super().get_queryset(request))

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and can_manage(request.user, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and can_manage(request.user, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and can_manage(request.user, obj)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets + (("Designers", {"fields": ("designers",), "classes": ("collapse",)}),)
        return fieldsets

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            obj.designers.add(request.user)
        if obj.access == Survey.Access.TOKENS:
            active_key(obj)  # a token survey signs invitations with its own key (survey_app/credentials.py)

    @admin.display(description="Invitation key")
    def invitation_key(self, obj: Survey) -> str:
        """The active key's fingerprint (what respondents' pages show), for a token survey."""
        if obj is None or obj.pk is None or obj.access != Survey.Access.TOKENS:
            return "— (token surveys only)"
        key = obj.keys.filter(active=True).first()
        if key is None:
            return "Made when the survey is saved or first used."
        retired = obj.keys.filter(active=False).count()
        return format_html("<code>{}</code> (RSA, RFC 9474; since {}){}", key.key_id, key.created_on,
                           f"; {retired} retired key(s) still verify credentials" if retired else "")

    @admin.display(description="Privacy")
    def privacy_summary(self, obj: Survey) -> str:
        """The setting that sets the privacy level and the others that qualify it, e.g. "ε = 1 (oue)"
        (``SurveyProtocol.privacy_settings`` of the survey's mode)."""
        level, *others = SurveyProtocol.for_mode(obj.mode).privacy_settings
        symbol, value = SETTING_SYMBOLS[level], getattr(obj, level)
        if value is None:
            return f"{symbol} not set"
        return f"{symbol} = {value:g}" + "".join(f" ({getattr(obj, name)})" for name in others)

    def save_related(self, request, form, formsets, change):
        """After the questions are saved, (re)fit PCA/DCA on the reference sample when the survey uses one."""
        super().save_related(request, form, formsets, change)
        survey = form.instance
        if not change:
            survey.designers.add(request.user)  # the designers field (superusers only) was just saved
        if survey.projection != Survey.Projection.NONE and not survey.has_reports():
            try:
                fit_projection(survey)
                self.message_user(request, f"{survey.projection.upper()} fitted on the reference sample.",
                                  messages.SUCCESS)
            except ValueError as exc:
                self.message_user(request, f"PCA/DCA not fitted: {exc}", messages.ERROR)

    @admin.display(description="Privacy this gives")
    def privacy_report(self, obj: Survey) -> str:
        """ε per question and per respondent (and PSE for MRR), computed by the engine from the saved settings."""
        if obj is None or obj.pk is None:
            return "Save the survey to see the privacy it gives."
        try:
            privacy = get_protocol(obj).privacy()
        except ValueError as exc:
            return f"Not computable yet: {exc}"
        pse = privacy.get("pse_per_question", {})
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((name, format_epsilon(eps), f"{pse[name]:.3f}" if name in pse else "—")
             for name, eps in privacy["epsilon_per_question"].items()),
        )
        epsilon = privacy["epsilon_per_respondent"]
        notes = [privacy["epsilon_note"]] if privacy.get("epsilon_note") else []
        if "epsilon_per_respondent_known_personal" in privacy:
            notes.append("Against someone who knows a respondent's answers to the real unrelated questions: ε = "
                         f"{format_epsilon(privacy['epsilon_per_respondent_known_personal'])} per respondent.")
        if obj.access == Survey.Access.LINK:
            notes.append("Open link: nothing stops one person from answering several times, and a person who answers "
                         f"k times gives up to k·ε about themselves (twice: ε = {format_epsilon(2 * float(epsilon))}). "
                         "Invitation tokens admit one report each.")
        else:
            notes.append("By invitation: each invitation admits one report, so ε per respondent holds per invitation.")
        return format_html(
            "<p><strong>ε per respondent: {}</strong> (smaller is more private)</p>{}"
            '<table class="privacy-report"><thead><tr><th>question</th><th>ε</th><th>PSE (uniform prior)</th></tr>'
            "</thead><tbody>{}</tbody></table>",
            format_epsilon(epsilon), format_html_join("", "<p>{}</p>", ((n,) for n in notes)), rows,
        )

    def get_urls(self):
        importer = path("import/", self.admin_site.admin_view(self.import_view), name="survey_app_survey_import")
        return [importer] + super().get_urls()

    def import_view(self, request):
        """Create a draft survey from an uploaded CSV (the same as ``manage.py create_survey``)."""
        from aggregator.lab.datasets import load_table, read_csv

        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                table = load_table(read_csv(data["csv_file"]), class_column=data["class_column"] or None)
                survey = create_survey_from_table(
                    table, slug=data["slug"], title=data["title"] or None, mode=data["mode"], encoding=data["encoding"],
                    epsilon=data["epsilon"], theta=data["theta"],
                )
            except ValidationError as exc:
                for field, errs in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errs)
            except (ValueError, UnicodeDecodeError) as exc:
                form.add_error(None, str(exc))
            else:
                survey.designers.add(request.user)
                self.message_user(request, f"Created draft survey {survey.slug} with "
                                           f"{survey.questions.count()} questions.")
                return HttpResponseRedirect(reverse("admin:survey_app_survey_change", args=[survey.pk]))
        context = {**self.admin_site.each_context(request), "form": form, "title": "Import a survey from a CSV table",
                   "opts": self.model._meta}
        return TemplateResponse(request, "admin/survey_app/survey/import.html", context)

    @admin.display(description="Reports")
    def report_count(self, obj: Survey) -> int:
        return obj.report_total()  # folded and still in the inbox

    @admin.action(description="Open the selected surveys")
    def open_surveys(self, request, queryset):
        """Open only surveys whose protocol the engine accepts (a class question with ≥ 2 answers, features, …)."""
        for survey in queryset:
            try:
                get_protocol(survey)
            except ValueError as exc:
                self.message_user(request, f"{survey.slug} cannot open: {exc}", messages.ERROR)
                continue
            survey.status = Survey.Status.OPEN
            survey.save(update_fields=["status"])
            self.message_user(request, f"{survey.slug} is open: /s/{survey.slug}/", messages.SUCCESS)

    @admin.action(description="Close the selected surveys")
    def close_surveys(self, request, queryset):
        for survey in queryset:  # one save each, so the retraining schedule follows (aggregator.schedules)
            survey.status = Survey.Status.CLOSED
            survey.save(update_fields=["status"])

    @admin.action(description="Clone (a draft copy whose privacy settings can be changed)")
    def clone(self, request, queryset):
        for survey in queryset:
            copy = clone_survey(survey)
            copy.designers.set([*survey.designers.all(), request.user])
            self.message_user(request, f"Cloned {survey.slug} as {copy.slug}.", messages.SUCCESS)

    @admin.action(description="Generate 100 invitation tokens")
    def make_100_tokens(self, request, queryset):
        for survey in queryset:
            generate_tokens(survey, 100)
            self.message_user(request, f"100 tokens added to {survey.slug}.", messages.SUCCESS)
            if survey.access == Survey.Access.LINK:
                self.message_user(request, f"{survey.slug} is an open-link survey: anyone with its link can answer, "
                                           "as often as they like, and its tokens are not asked for. To admit one "
                                           "report per invitation, set its access to invitations (tokens) before "
                                           "it opens.", messages.WARNING)

    def get_changeform_initial_data(self, request):
        """A new survey starts from sensible privacy settings: ε = 1 (LDP), θ = 0.7 (MRR)."""
        return {"epsilon": 1.0, "theta": 0.7, **super().get_changeform_initial_data(request)}

    @admin.action(description="Rotate the invitation key (token surveys)")
    def rotate_keys(self, request, queryset):
        for survey in queryset:
            if survey.access != Survey.Access.TOKENS:
                self.message_user(request, f"{survey.slug} is an open-link survey: it has no invitation key.",
                                  messages.WARNING)
                continue
            key = rotate_key(survey)
            self.message_user(request, f"{survey.slug}: new invitation key {key.key_id[:16]}…; the previous keys "
                                       "still verify the credentials they signed.", messages.SUCCESS)

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


class ChoiceInline(LockedInlineMixin, admin.TabularInline):
    model = Choice
    extra = 2
    fields = ("position", "label", "personal_probability")


class OfDesignedSurveyMixin:
    """For models that belong to a survey: staff see and act on the rows of the surveys they design."""

    def get_queryset(self, request):
        return super().get_queryset(request).filter(survey__in=surveys_for(request.user))

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "survey":
            kwargs["queryset"] = surveys_for(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and can_manage(request.user, obj and obj.survey)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and can_manage(request.user, obj and obj.survey)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and can_manage(request.user, obj and obj.survey)


@admin.register(Question)
class QuestionAdmin(OfDesignedSurveyMixin, admin.ModelAdmin):
    list_display = ("name", "survey", "kind", "is_class", "position")
    list_filter = ("kind", "is_class", ("survey", admin.RelatedOnlyFieldListFilter))
    search_fields = ("name", "text")
    inlines = [ChoiceInline]


    def has_change_permission(self, request, obj=None):
        return not _locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not _locked(obj) and super().has_delete_permission(request, obj)

    fieldsets = (
        (None, {"fields": ("survey", "position", "section", "name", "text", "help_text", "kind", "is_class",
                           "prefer_not_to_say")}),
        ("Numeric bounds (public)", {"fields": ("low", "high")}),
        ("Unrelated-question model (MRR)", {"fields": ("group", "personal_mode", "personal_text")}),
    )


@admin.register(InvitationToken)
class InvitationTokenAdmin(OfDesignedSurveyMixin, admin.ModelAdmin):
    list_display = ("__str__", "survey", "batch", "used", "created_on")
    list_filter = ("used", ("survey", admin.RelatedOnlyFieldListFilter))
    readonly_fields = ("token", "used", "created_on")

