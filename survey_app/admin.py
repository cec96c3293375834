"""The designers' interface: surveys with their questions inline — each question's choices typed in place, one per
line — a preview link, CSV import, the question's own page for the rest, token batches."""
from __future__ import annotations

import csv
from typing import TYPE_CHECKING

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from aggregator.privacy.protocol import SETTING_SYMBOLS, SurveyProtocol

from . import languages, theme
from .credentials import active_key, rotate_key
from .fitting import LEVELS, refit
from .forms import CHOICES_LABEL, ImportForm, QuestionAdminForm, QuestionChoicesForm, QuestionFormSet
from .mailing import MailingError, forget_addresses, parse_addresses, queue_invitations, queue_reminders, reminder_rows
from .models import Choice, InvitationToken, Question, Survey, SurveyLogo, parameters_help
from .permissions import can_manage, surveys_for
from .selectors import import_summary, privacy_report
from .services import (
    KINDS_WITH_CHOICES,
    choice_lines,
    clone_survey,
    close_survey,
    generate_tokens,
    import_survey,
    open_survey,
    set_logo,
)
from .tasks import send_later
from .translation_fields import TranslationsField
from .views import invitation_link

if TYPE_CHECKING:  # what the mixins below extend, for the type checker; at run time they are plain mixins
    _AdminBase = admin.options.BaseModelAdmin
    _InlineBase = admin.options.InlineModelAdmin
    _ModelAdminBase = admin.ModelAdmin
else:
    _AdminBase = _InlineBase = _ModelAdminBase = object

#: The texts each model translates (``survey_app.languages``; ``None``: a choice's label).
TRANSLATED_TEXTS = {Survey: languages.SURVEY_FIELDS, Question: languages.QUESTION_FIELDS, Choice: None}

#: How each kind of ``survey_app.fitting.Notice`` is shown.

#: The labels of the models' fields on the designers' forms, translatable (a model field's verbose_name is part of
#: its migration state: these labels change no migration).
FIELD_LABELS = {
    "title": _("Title"), "slug": _("Slug"), "description": _("Description"), "translations": _("Translations"),
    "status": _("Status"), "access": _("Access"), "mode": _("Mode"), "theta": _("θ (MRR)"), "epsilon": _("ε (LDP)"),
    "encoding": _("Encoding"), "encoding_parameters": _("Encoding parameters"), "strategy": _("Strategy"),
    "numeric_handling": _("Numeric handling"), "numeric_bins": _("Numeric bins"),
    "gaussian_approach": _("Gaussian approach"), "projection": _("Projection"),
    "projection_components": _("Projection components"), "reference_sample": _("Reference sample"),
    "reference_prior": _("Start from the reference sample"),
    "allocation": _("Allocation"), "postprocess": _("Post-processing"), "validation_share": _("Validation share"),
    "designers": _("Designers"), "retrain_minutes": _("Retrain every (minutes)"),
    "ohttp_relay": _("Oblivious HTTP relay"),
    "survey": _("Survey"), "position": _("Position"), "section": _("Section"), "name": _("Name"), "text": _("Text"),
    "help_text": _("Help text"), "kind": _("Kind"), "style": _("Style"), "is_class": _("Is the class"),
    "low": _("Lower bound"), "high": _("Upper bound"), "prefer_not_to_say": _("Prefer not to say"),
    "group": _("Group"), "personal_mode": _("Unrelated question"), "personal_text": _("Unrelated question's text"),
    "label": _("Label"), "personal_probability": _("Declared share (MRR)"), "batch": _("Batch"), "used": _("Used"),
    "token": _("Token"), "created_on": _("Created on"), "step": _("Slider step"), "matrix": _("Matrix title"),
    "shuffle_questions": _("Shuffle the questions"), "shuffle_choices": _("Shuffle the choices"),
    "accent_color": _("Accent colour"), "end_text": _("Thank-you text"), "end_url": _("Address after Send"),
}


class TranslatedLabelsMixin(_AdminBase):
    """Form fields labelled from ``FIELD_LABELS`` (in the page's language); ``translations`` as one input per
    language and text (``survey_app.translation_fields.TranslationsField``)."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.URLField):
            kwargs.setdefault("assume_scheme", "https")  # a relay's address typed without its scheme
        if db_field.name == "translations":
            texts = TRANSLATED_TEXTS[db_field.model]
            return TranslationsField(None if texts is None else {t: FIELD_LABELS[t] for t in texts},
                                     label=FIELD_LABELS["translations"])
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and db_field.name in FIELD_LABELS:
            field.label = FIELD_LABELS[db_field.name]
        if field is not None and db_field.name == "encoding_parameters":
            field.help_text = parameters_help()  # from the oracles' own parameters, in the page's language
        return field


def column(name: str, **options):
    """A list column of the model field ``name`` headed by its ``FIELD_LABELS`` label (a column named by the field
    would be headed by the field's verbose_name, which only a migration could make translatable); sorted by the
    field, a field with choices showing its label."""
    def value(obj):
        display = getattr(obj, f"get_{name}_display", None)
        return display() if display is not None else getattr(obj, name)

    value.__name__ = name
    return admin.display(description=FIELD_LABELS[name], ordering=name, **options)(value)


def titled(name: str, base):
    """A list filter on the model field ``name`` titled by its ``FIELD_LABELS`` label (as ``column``)."""
    class Filter(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.title = FIELD_LABELS[name]

    return name, Filter


def _locked(obj) -> bool:
    """A survey with reports has read-only questions and choices (changing a domain would corrupt the estimates)."""
    survey = obj if isinstance(obj, Survey) else getattr(obj, "survey", None)
    if survey is None and isinstance(obj, Choice):
        survey = obj.question.survey
    return bool(survey is not None and survey.pk and survey.has_reports())


def _opened(obj) -> bool:
    """The survey of ``obj`` (a survey, question or choice) has been opened: nothing its protocol covers changes, no
    question or choice is added or removed (``survey_app.models.frozen_errors``)."""
    survey = obj if isinstance(obj, Survey) else getattr(obj, "survey", None)
    if survey is None and isinstance(obj, Choice):
        survey = obj.question.survey
    return bool(survey is not None and survey.pk and survey.has_opened())


class LockedInlineMixin(TranslatedLabelsMixin, _InlineBase):
    """For inlines: ``obj`` is the parent (a survey or a question)."""

    def has_add_permission(self, request, obj=None):
        return not (_locked(obj) or _opened(obj)) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not _locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not (_locked(obj) or _opened(obj)) and super().has_delete_permission(request, obj)


class QuestionInline(LockedInlineMixin, admin.StackedInline):
    """One block per question, its fields in small groups: a table of eleven columns made the survey page 2,300 px
    wide at a 1,280 px window. Its choices are a text box, one per line (``QuestionChoicesForm``); the
    question's own page has the rest (help text, the unrelated question of MRR)."""
    model = Question
    verbose_name, verbose_name_plural = _("question"), _("questions")  # the model's own would need a migration
    form = QuestionChoicesForm
    formset = QuestionFormSet
    extra = 0
    fieldsets = ((None, {"fields": (("position", "section"), ("name", "kind", "style", "is_class"), "text",
                                    "choices_text", ("low", "high", "step"), ("prefer_not_to_say", "group"), "matrix",
                                    "edit_link")}),)
    readonly_fields = ("edit_link",)
    show_change_link = True

    @admin.display(description=CHOICES_LABEL)
    def choices_text(self, obj):
        """The choices as the locked (view-only) inline shows them."""
        return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in choice_lines(obj).split("\n"))) \
            if obj is not None and obj.pk else "—"

    @admin.display(description=_("More"))
    def edit_link(self, obj):
        if not obj.pk:
            return gettext("Save to set the help text and the unrelated question (MRR) on the question's own page.")
        url = reverse("admin:survey_app_question_change", args=[obj.pk])
        return format_html('<a href="{}">{} ›</a>', url, gettext("Help text, unrelated question (MRR) and the rest"))


class SurveyForm(forms.ModelForm):
    """The survey's form, with its logo (checked by ``theme.read_logo``; kept in ``SurveyLogo``)."""

    logo_file = forms.FileField(
        label=_("Logo"), required=False,
        help_text=_("PNG, JPEG or WebP, at most 200 KB and 1200 pixels a side; shown above the title."))
    remove_logo = forms.BooleanField(label=_("Remove the logo"), required=False)

    class Meta:
        model = Survey
        fields = "__all__"

    def clean_logo_file(self):
        upload = self.cleaned_data.get("logo_file")
        if not upload:
            return None
        theme.check_logo_size(upload.size)
        return theme.read_logo(upload.read())


class InvitationMailForm(forms.Form):
    addresses = forms.CharField(
        label=_("Email addresses"), widget=forms.Textarea(attrs={"rows": 8, "cols": 60}),
        help_text=_("One per line (or separated by commas). Each gets its own one-use invitation link."))
    language = forms.ChoiceField(label=_("Language of the mail"), choices=settings.LANGUAGES)
    forget = forms.BooleanField(
        label=_("Forget the addresses once sent"), required=False,
        help_text=_("The addresses are deleted as soon as their mail was sent. No reminder can then be sent."))

    def clean_addresses(self):
        found = parse_addresses(self.cleaned_data["addresses"])
        if found.invalid:
            raise ValidationError(gettext("Not email addresses: %(items)s") % {"items": ", ".join(found.invalid[:10])})
        if not found.valid:
            raise ValidationError(gettext("Give at least one email address."))
        return found.valid


@admin.register(Survey)
class SurveyAdmin(TranslatedLabelsMixin, admin.ModelAdmin):
    list_display = (column("title"), column("slug"), column("status"), column("mode"), "privacy_summary",
                    "report_count", column("access"))
    list_filter = (titled("status", admin.ChoicesFieldListFilter), titled("mode", admin.ChoicesFieldListFilter),
                   titled("access", admin.ChoicesFieldListFilter))
    search_fields = ("title", "slug")
    prepopulated_fields = {"slug": ("title",)}
    inlines = [QuestionInline]
    readonly_fields = ("privacy_report", "invitation_key", "webhook_secret", "invitation_mails")
    form = SurveyForm
    change_list_template = "admin/survey_app/survey/change_list.html"

    class Media:
        css = {"all": ("css/admin.css",)}  # e.g. no capital "Ε" in the privacy table's headings
    actions = ["open_surveys", "close_surveys", "clone", "make_100_tokens", "export_token_links", "rotate_keys",
               "email_invitations"]
    fieldsets = (
        (None, {"fields": ("title", "slug", "description", "status", "access", "invitation_key", "invitation_mails",
                           "ohttp_relay", "retrain_minutes")}),
        (_("Order on the page"), {"fields": ("shuffle_questions", "shuffle_choices")}),
        (_("Schedule and quota"), {"fields": ("opens_at", "closes_at", "quota")}),
        (_("Webhook"), {"fields": ("webhook_url", "webhook_secret"), "classes": ("collapse",)}),
        (_("Look and end page"), {"fields": ("accent_color", "logo_file", "remove_logo", "end_text", "end_url")}),
        (_("Other languages"), {"fields": ("translations",), "classes": ("collapse",)}),
        (_("Privacy"), {
            "fields": ("mode", "theta", "epsilon", "encoding", "encoding_parameters", "strategy", "allocation",
                       "reference_prior", "postprocess", "validation_share", "privacy_report"),
            "description": _("MRR uses θ; LDP uses ε and an encoding. Locked once the survey has been opened, "
                             "with its questions' answers, groups and unrelated questions (clone it to change)."),
        }),
        (_("Numeric questions (LDP)"), {
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
            return [*fieldsets, (_("Designers"), {"fields": ("designers",), "classes": ("collapse",)})]
        return fieldsets

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.cleaned_data.get("remove_logo"):
            SurveyLogo.objects.filter(survey=obj).delete()
        elif form.cleaned_data.get("logo_file") is not None:
            set_logo(obj, form.cleaned_data["logo_file"])
        if not change:
            obj.designers.add(request.user)
        if obj.access == Survey.Access.TOKENS:
            active_key(obj)  # a token survey signs invitations with its own key (survey_app/credentials.py)

    @admin.display(description=_("Invitation key"))
    def invitation_key(self, obj: Survey) -> str:
        """The active key's fingerprint (what respondents' pages show), for a token survey."""
        if obj is None or obj.pk is None or obj.access != Survey.Access.TOKENS:
            return gettext("— (token surveys only)")
        key = obj.keys.filter(active=True).first()
        if key is None:
            return gettext("Made when the survey is saved or first used.")
        retired = obj.keys.filter(active=False).count()
        return format_html("<code>{}</code> ({}){}", key.key_id,
                           gettext("RSA, RFC 9474; since %(date)s") % {"date": key.created_on},
                           ngettext("; %(count)d retired key still verifies credentials",
                                    "; %(count)d retired keys still verify credentials", retired)
                           % {"count": retired} if retired else "")

    @admin.display(description=_("Privacy"))
    def privacy_summary(self, obj: Survey) -> str:
        """The setting that sets the privacy level and the others that qualify it, e.g. "ε = 1 (oue)"
        (``SurveyProtocol.privacy_settings`` of the survey's mode)."""
        level, *others = SurveyProtocol.for_mode(obj.mode).privacy_settings
        symbol, value = SETTING_SYMBOLS[level], getattr(obj, level)
        if value is None:
            return gettext("%(symbol)s not set") % {"symbol": symbol}
        return f"{symbol} = {value:g}" + "".join(f" ({getattr(obj, name)})" for name in others)

    def save_related(self, request, form, formsets, change):
        """After the questions are saved, refit what the survey derives from its reference sample
        (``survey_app.fitting.refit``) and say how it went."""
        super().save_related(request, form, formsets, change)
        survey = form.instance
        if not change:
            survey.designers.add(request.user)  # the designers field (superusers only) was just saved
        for notice in refit(survey):
            self.message_user(request, notice.text, LEVELS[notice.level])

    @admin.display(description=_("Privacy this gives"))
    def privacy_report(self, obj: Survey) -> str:
        """ε per respondent and per question (and PSE for MRR), computed by the engine from the saved settings
        (``survey_app.selectors.privacy_report``)."""
        return render_to_string("admin/survey_app/survey/privacy_report.html", {"report": privacy_report(obj)})

    def get_urls(self):
        importer = path("import/", self.admin_site.admin_view(self.import_view), name="survey_app_survey_import")
        mails = path("<int:pk>/invitations/", self.admin_site.admin_view(self.invitations_view),
                     name="survey_app_survey_invitations")
        return [importer, mails] + super().get_urls()

    @admin.display(description=_("Invitations by email"))
    def invitation_mails(self, obj: Survey) -> str:
        if obj is None or obj.pk is None or obj.access != Survey.Access.TOKENS:
            return gettext("— (token surveys only)")
        return format_html('<a href="{}">{}</a>', reverse("admin:survey_app_survey_invitations", args=[obj.pk]),
                           gettext("Send invitations and reminders by email ›"))

    @admin.action(description=_("Email invitations (token surveys)"))
    def email_invitations(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, gettext("Choose one survey to email invitations for."), messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin:survey_app_survey_invitations", args=[queryset.get().pk]))

    def invitations_view(self, request, pk: int):
        """Email invitations for one token survey, remind those whose link is unused, forget the addresses; the
        progress of each sending (survey_app/mailing.py)."""
        survey = Survey.objects.filter(pk=pk).first()
        if survey is None or not self.has_change_permission(request, survey):
            raise PermissionDenied
        here = reverse("admin:survey_app_survey_invitations", args=[survey.pk])
        base_url = request.build_absolute_uri("/").rstrip("/")
        form = InvitationMailForm(request.POST if request.POST.get("do") == "invite" else None,
                                  initial={"language": languages.active_language()})
        try:
            if request.method == "POST" and request.POST.get("do") == "invite" and form.is_valid():
                queued = queue_invitations(survey, form.cleaned_data["addresses"],
                                           language=form.cleaned_data["language"], base_url=base_url,
                                           forget=form.cleaned_data["forget"])
                if queued.batch is not None:
                    send_later(queued.batch)
                    self.message_user(request, ngettext("%(count)d invitation is being sent.",
                                                        "%(count)d invitations are being sent.", queued.batch.total)
                                      % {"count": queued.batch.total}, messages.SUCCESS)
                if queued.already:
                    self.message_user(request, ngettext(
                        "%(count)d address was invited before and got no new invitation.",
                        "%(count)d addresses were invited before and got no new invitation.", queued.already)
                        % {"count": queued.already}, messages.WARNING)
                return HttpResponseRedirect(here)
            if request.method == "POST" and request.POST.get("do") == "remind":
                batch = queue_reminders(survey, base_url)
                if batch is None:
                    self.message_user(request, gettext("Nobody to remind: every mailed invitation was used, or no "
                                                       "address is kept."), messages.WARNING)
                else:
                    send_later(batch)
                    self.message_user(request, ngettext("%(count)d reminder is being sent.",
                                                        "%(count)d reminders are being sent.", batch.total)
                                      % {"count": batch.total}, messages.SUCCESS)
                return HttpResponseRedirect(here)
            if request.method == "POST" and request.POST.get("do") == "forget":
                if not request.POST.get("confirm"):
                    raise MailingError(gettext("Tick the box to confirm: no reminder can be sent afterwards."))
                count = forget_addresses(survey)
                self.message_user(request, ngettext(
                    "%(count)d address forgotten. The invitations stay valid; no reminder can be sent any more.",
                    "%(count)d addresses forgotten. The invitations stay valid; no reminder can be sent any more.",
                    count) % {"count": count}, messages.SUCCESS)
                return HttpResponseRedirect(here)
        except MailingError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(here)
        context = {**self.admin_site.each_context(request), "form": form, "survey": survey,
                   "title": gettext("Invitations by email: %(title)s") % {"title": survey.title},
                   "opts": self.model._meta, "batches": survey.mail_batches.order_by("-pk")[:10],
                   "sending": survey.mail_batches.filter(done=False).exists(),
                   "kept": survey.invitation_mails.count(), "unused": reminder_rows(survey).count()}
        return TemplateResponse(request, "admin/survey_app/survey/invitations.html", context)

    def import_view(self, request):
        """Create a draft survey from an uploaded CSV (the same as ``manage.py create_survey``)."""
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                survey = import_survey(
                    data["csv_file"], designer=request.user, class_column=data["class_column"] or None,
                    slug=data["slug"], title=data["title"] or None, mode=data["mode"], encoding=data["encoding"],
                    epsilon=data["epsilon"], theta=data["theta"])
            except ValidationError as exc:
                for field, errs in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errs)
            except ValueError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(request, import_summary(survey))
                return HttpResponseRedirect(reverse("admin:survey_app_survey_change", args=[survey.pk]))
        context = {**self.admin_site.each_context(request), "form": form,
                   "title": gettext("Import a survey from a CSV table"),
                   "opts": self.model._meta}
        return TemplateResponse(request, "admin/survey_app/survey/import.html", context)

    @admin.display(description=_("Reports"))
    def report_count(self, obj: Survey) -> int:
        return obj.report_total()  # folded and still in the inbox

    @admin.action(description=_("Open the selected surveys"))
    def open_surveys(self, request, queryset):
        """Open only surveys whose protocol the engine accepts (a class question with ≥ 2 answers, features, …) and
        whose settings give privacy (``survey_app.services.open_survey``)."""
        for survey in queryset:
            try:
                open_survey(survey)
            except ValueError as exc:
                self.message_user(request, gettext("%(slug)s cannot open: %(reason)s")
                                  % {"slug": survey.slug, "reason": exc}, messages.ERROR)
                continue
            self.message_user(request, gettext("%(slug)s is open: %(link)s")
                              % {"slug": survey.slug, "link": f"/s/{survey.slug}/"}, messages.SUCCESS)

    @admin.action(description=_("Close the selected surveys"))
    def close_surveys(self, request, queryset):
        for survey in queryset:
            close_survey(survey)
            self.message_user(request, gettext("%(slug)s is closed: it takes no more reports.")
                              % {"slug": survey.slug}, messages.SUCCESS)

    @admin.action(description=_("Clone (a draft copy whose privacy settings can be changed)"))
    def clone(self, request, queryset):
        for survey in queryset:
            copy = clone_survey(survey)
            copy.designers.set([*survey.designers.all(), request.user])
            self.message_user(request, gettext("Cloned %(slug)s as %(copy)s.") % {"slug": survey.slug,
                                                                                    "copy": copy.slug},
                              messages.SUCCESS)

    @admin.action(description=_("Generate 100 invitation tokens"))
    def make_100_tokens(self, request, queryset):
        for survey in queryset:
            generate_tokens(survey, 100)
            self.message_user(request, gettext("100 tokens added to %(slug)s.") % {"slug": survey.slug},
                              messages.SUCCESS)
            if survey.access == Survey.Access.LINK:
                self.message_user(request, gettext(
                    "%(slug)s is an open-link survey: anyone with its link can answer, as often as they like, and its "
                    "tokens are not asked for. To admit one report per invitation, set its access to invitations "
                    "(tokens) before it opens.") % {"slug": survey.slug}, messages.WARNING)

    def get_changeform_initial_data(self, request):
        """A new survey starts from sensible privacy settings: ε = 1 (LDP), θ = 0.7 (MRR)."""
        return {"epsilon": 1.0, "theta": 0.7, **super().get_changeform_initial_data(request)}

    @admin.action(description=_("Rotate the invitation key (token surveys)"))
    def rotate_keys(self, request, queryset):
        for survey in queryset:
            if survey.access != Survey.Access.TOKENS:
                self.message_user(request, gettext("%(slug)s is an open-link survey: it has no invitation key.")
                                  % {"slug": survey.slug}, messages.WARNING)
                continue
            key = rotate_key(survey)
            self.message_user(request, gettext("%(slug)s: new invitation key %(key)s…; the previous keys still "
                                               "verify the credentials they signed.")
                              % {"slug": survey.slug, "key": key.key_id[:16]}, messages.SUCCESS)

    @admin.action(description=_("Export unused invitation links (CSV)"))
    def export_token_links(self, request, queryset):
        response = HttpResponse(content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="invitations.csv"'
        writer = csv.writer(response)
        writer.writerow(["survey", "batch", "link"])
        for token in InvitationToken.objects.filter(survey__in=queryset, used=False).select_related("survey"):
            link = invitation_link(token.survey, token.token, base=request.build_absolute_uri("/").rstrip("/"))
            writer.writerow([token.survey.slug, token.batch, link])
        return response


class ChoiceInline(LockedInlineMixin, TranslatedLabelsMixin, admin.TabularInline):
    model = Choice
    verbose_name, verbose_name_plural = _("choice"), _("choices")
    fields = ("position", "label", "personal_probability", "translations")

    extra = 0  # the survey's page types choices one per line; here "Add another choice" adds a row when wanted


class OfDesignedSurveyMixin(_ModelAdminBase):
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
class QuestionAdmin(OfDesignedSurveyMixin, TranslatedLabelsMixin, admin.ModelAdmin):
    list_display = (column("name"), column("survey"), column("kind"), column("is_class", boolean=True),
                    column("position"))
    list_filter = (titled("kind", admin.ChoicesFieldListFilter), titled("is_class", admin.BooleanFieldListFilter),
                   titled("survey", admin.RelatedOnlyFieldListFilter))
    search_fields = ("name", "text")
    inlines = [ChoiceInline]
    form = QuestionAdminForm

    class Media:
        css = {"all": ("css/admin.css",)}  # the translations' table

    def get_inlines(self, request, obj):
        """Choice rows only for a saved question whose kind has choices (a yes/no question's are no/yes, a number
        has none; a new question's kind is not known until it is saved)."""
        return self.inlines if obj is not None and obj.kind in KINDS_WITH_CHOICES else []

    def get_form(self, request, obj=None, change=False, **kwargs):
        """The condition (skip logic) chooses among the earlier questions of the question's own survey (of the
        surveys the designer designs, for a new question); ``Question.clean`` judges the rest."""
        form = super().get_form(request, obj, change=change, **kwargs)
        field = form.base_fields.get("show_if_question")
        if isinstance(field, forms.ModelChoiceField):
            if obj is not None:
                field.queryset = obj.survey.questions.exclude(pk=obj.pk)
            else:
                field.queryset = Question.objects.filter(survey__in=surveys_for(request.user))
        return form

    # -- back to the survey: a question is edited from its survey's page, so "Save" and "Delete" return there, not
    # to the list of every survey's questions ("Save and continue editing" and "Save and add another" stay). --------
    def _back_to_survey(self, request, survey_id):
        survey = Survey.objects.filter(pk=survey_id).first()
        if survey is not None and can_manage(request.user, survey):
            return HttpResponseRedirect(reverse("admin:survey_app_survey_change", args=[survey.pk]))
        return None

    def response_post_save_add(self, request, obj):
        return self._back_to_survey(request, obj.survey_id) or super().response_post_save_add(request, obj)

    def response_post_save_change(self, request, obj):
        return self._back_to_survey(request, obj.survey_id) or super().response_post_save_change(request, obj)

    def delete_model(self, request, obj):
        request.deleted_question_survey = obj.survey_id
        super().delete_model(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        response = super().response_delete(request, obj_display, obj_id)  # its message; a popup's own answer
        survey_id = getattr(request, "deleted_question_survey", None)
        if isinstance(response, HttpResponseRedirect) and survey_id is not None:
            return self._back_to_survey(request, survey_id) or response
        return response

    def has_change_permission(self, request, obj=None):
        return not _locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not (_locked(obj) or _opened(obj)) and super().has_delete_permission(request, obj)

    fieldsets = (
        (None, {"fields": ("survey", "position", "section", "name", "text", "help_text", "kind", "style", "is_class",
                           "prefer_not_to_say", "matrix")}),
        (_("Numeric bounds (public)"), {"fields": ("low", "high", "step")}),
        (_("Shown only if (skip logic)"), {"fields": ("show_if_question", "show_if_answers")}),
        (_("Unrelated-question model (MRR)"), {"fields": ("group", "personal_mode", "personal_text")}),
        (_("Other languages"), {"fields": ("translations",), "classes": ("collapse",)}),
    )


@admin.register(InvitationToken)
class InvitationTokenAdmin(OfDesignedSurveyMixin, TranslatedLabelsMixin, admin.ModelAdmin):
    list_display = ("__str__", column("survey"), column("batch"), column("used", boolean=True),
                    column("created_on"))
    list_filter = (titled("used", admin.BooleanFieldListFilter), titled("survey", admin.RelatedOnlyFieldListFilter))
    readonly_fields = ("token", "used", "created_on")

