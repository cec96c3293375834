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
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from aggregator.privacy.protocol import SETTING_SYMBOLS, SurveyProtocol

from . import languages, theme
from .credentials import active_key, rotate_key
from .mailing import MailingError, forget_addresses, parse_addresses, queue_invitations, queue_reminders, reminder_rows
from .models import (
    CHOICE_COUNT,
    CHOICES_FROZEN,
    SCALE_TOO_FEW,
    Choice,
    InvitationToken,
    Question,
    Survey,
    SurveyLogo,
    engine_message,
    parameters_help,
)
from .permissions import can_manage, surveys_for
from .pilot import fit_pilot
from .selectors import privacy_figures
from .services import (
    KINDS_WITH_CHOICES,
    choice_lines,
    clone_survey,
    close_survey,
    create_survey_from_table,
    fit_projection,
    generate_tokens,
    open_survey,
    parse_choice_lines,
    read_table,
    set_logo,
    sync_choices,
)
from .tasks import send_later
from .views import invitation_link

if TYPE_CHECKING:  # what the mixins below extend, for the type checker; at run time they are plain mixins
    _AdminBase = admin.options.BaseModelAdmin
    _InlineBase = admin.options.InlineModelAdmin
    _ModelAdminBase = admin.ModelAdmin
else:
    _AdminBase = _InlineBase = _ModelAdminBase = object

#: The labels of the models' fields on the designers' forms, translatable (a model field's verbose_name is part of
#: its migration state: these labels change no migration).
FIELD_LABELS = {
    "title": _("Title"), "slug": _("Slug"), "description": _("Description"), "translations": _("Translations"),
    "status": _("Status"), "access": _("Access"), "mode": _("Mode"), "theta": _("θ (MRR)"), "epsilon": _("ε (LDP)"),
    "encoding": _("Encoding"), "encoding_parameters": _("Encoding parameters"), "strategy": _("Strategy"),
    "numeric_handling": _("Numeric handling"), "numeric_bins": _("Numeric bins"),
    "gaussian_approach": _("Gaussian approach"), "projection": _("Projection"),
    "projection_components": _("Projection components"), "reference_sample": _("Reference sample"),
    "allocation": _("Allocation"), "postprocess": _("Post-processing"), "validation_share": _("Validation share"),
    "designers": _("Designers"), "retrain_minutes": _("Retrain every (minutes)"),
    "ohttp_relay": _("Oblivious HTTP relay"),
    "survey": _("Survey"), "position": _("Position"), "section": _("Section"), "name": _("Name"), "text": _("Text"),
    "help_text": _("Help text"), "kind": _("Kind"), "style": _("Style"), "is_class": _("Is the class"),
    "low": _("Lower bound"), "high": _("Upper bound"), "prefer_not_to_say": _("Prefer not to say"),
    "group": _("Group"), "personal_mode": _("Unrelated question"), "personal_text": _("Unrelated question's text"),
    "label": _("Label"), "personal_probability": _("Declared share (MRR)"), "batch": _("Batch"), "used": _("Used"),
    "token": _("Token"), "created_on": _("Created on"),
    "accent_color": _("Accent colour"), "end_text": _("Thank-you text"), "end_url": _("Address after Send"),
}


class TranslationsField(forms.JSONField):
    """A ``translations`` box: empty when there are none (never a bare "{}"), and an empty box means none."""

    def prepare_value(self, value):
        return "" if value in (None, {}, "{}") else super().prepare_value(value)

    def to_python(self, value):
        return {} if value in (None, "") or (isinstance(value, str) and not value.strip()) else super().to_python(value)


class TranslatedLabelsMixin(_AdminBase):
    """Form fields labelled from ``FIELD_LABELS`` (in the page's language); ``translations`` boxes as
    ``TranslationsField``, narrow enough for a table row."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.URLField):
            kwargs.setdefault("assume_scheme", "https")  # a relay's address typed without its scheme
        if db_field.name == "translations":
            kwargs.update(form_class=TranslationsField, widget=forms.Textarea(attrs={"rows": 2, "cols": 36}))
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


def reason(exc: Exception) -> str:
    """Why the engine refused a survey: its message (``ConfigError.message``) in the page's language where the
    catalogue has it (``survey_app.models.ENGINE_MESSAGES``), else the error as raised."""
    message = getattr(exc, "message", None)
    return engine_message(message) if isinstance(message, str) and message else str(exc)


class ImportForm(forms.Form):
    csv_file = forms.FileField(label=_("CSV table"), help_text=_(
        "One column per question and a header row; the class column last unless named below. Each question's text "
        "is made from its column name (“capital-gain” → “Capital gain”), to reword on the survey's page; empty or "
        "“?” cells become the answer “Prefer not to say”."))
    slug = forms.SlugField(max_length=80, label=_("Slug"))
    title = forms.CharField(max_length=200, required=False, label=_("Title"))
    mode = forms.ChoiceField(choices=Survey.Mode.choices, initial=Survey.Mode.LDP, label=_("Mode"))
    encoding = forms.ChoiceField(choices=Survey.Encoding.choices, initial=Survey.Encoding.ADAPTIVE,
                                 label=_("Encoding"))
    epsilon = forms.FloatField(required=False, label=_("ε (LDP)"), help_text=_("LDP only (default 1)."))
    theta = forms.FloatField(required=False, label=_("θ (MRR)"), help_text=_("MRR only (default 0.7)."))
    class_column = forms.CharField(required=False, label=_("Class column"),
                                   help_text=_("Default: the last column."))


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


CHOICES_HELP = _("One answer per line, in the order respondents see them. MRR: optionally “label = probability” on "
                  "every line (e.g. “Daily = 0.2”, or 20%, or 1/5), the declared share of the population giving that "
                  "answer to the unrelated question, summing to 1; without them the browser draws the stand-in "
                  "uniformly. A yes/no question has the answers no and yes, a number none: leave this empty. "
                  "“Prefer not to say” is added by its own box.")
CHOICES_LABEL = _("Choices (one per line)")


class ChoiceLinesField(forms.CharField):
    """A textarea of choice lines. Browsers send CRLF line breaks and the initial value has LF: compare them
    normalised, so a question whose choices nobody touched is not taken as changed (and not parsed again)."""

    def to_python(self, value):
        return (super().to_python(value) or "").replace("\r\n", "\n").replace("\r", "\n")

    def has_changed(self, initial, data):
        if self.disabled:  # as Field.has_changed: a disabled box's value is its initial one
            return False
        return self.to_python(initial or "").strip() != self.to_python(data or "").strip()


class QuestionChoicesForm(forms.ModelForm):
    """A question with its choices as lines of text (``survey_app.services.parse_choice_lines``): the survey page edits
    every question's answers in place. Saved, the lines become the question's ``Choice`` rows — created, renamed,
    reordered, deleted (``sync_choices``) — only when the text changed."""

    choices_text = ChoiceLinesField(
        label=CHOICES_LABEL, required=False, help_text=CHOICES_HELP,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 48, "class": "choices-text", "spellcheck": "true"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "choices_text" in self.fields:
            self.fields["choices_text"].initial = choice_lines(self.instance)
        self.choice_lines = None

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        if "choices_text" not in self.fields or "choices_text" in self.errors:
            return cleaned
        if self.instance.pk is not None and not {"choices_text", "kind", "prefer_not_to_say"} & set(self.changed_data):
            return cleaned  # the choices are not concerned: saving the survey's other settings is not held up
        if "choices_text" in self.changed_data and self.instance.survey_id is not None \
                and self.instance.survey.has_opened():
            self.add_error("choices_text", ValidationError(CHOICES_FROZEN, code="frozen",
                                                           params={"fields": gettext("the choices")}))
            return cleaned
        kind = cleaned.get("kind", self.instance.kind)
        prefer = cleaned.get("prefer_not_to_say", self.instance.prefer_not_to_say)
        try:
            lines = parse_choice_lines(cleaned.get("choices_text") or "", kind=kind, prefer_not_to_say=prefer)
        except ValueError as exc:
            self.add_error("choices_text", exc.args[0])
            return cleaned
        self.choice_lines = lines
        return cleaned

    def _post_clean(self):
        super()._post_clean()  # type: ignore[misc]  # ModelForm's model-validation hook; django-stubs omit it
        if self.choice_lines is None:
            return
        # The question's own rules count its saved choices (Question.clean); the lines replace them on save, so a
        # count error (code CHOICE_COUNT, whatever the page's language) is the lines' to judge (parse_choice_lines
        # checked the count of the lines).
        for field in ("kind", "style"):
            errors = self.errors.get(field)
            if errors:
                kept = [e for e in errors.as_data() if e.code != CHOICE_COUNT]
                if kept:
                    errors.data[:] = kept
                else:
                    del self.errors[field]
                    self.cleaned_data.setdefault(field, getattr(self.instance, field))
        style = getattr(self.instance, "style", None)
        if style == "scale" and self.instance.kind == Question.Kind.CATEGORICAL and len(self.choice_lines) < 3:
            self.add_error("choices_text", ValidationError(SCALE_TOO_FEW, code=CHOICE_COUNT))

    def save(self, commit=True):
        question = super().save(commit=commit)
        if commit:
            self.save_choices()
        else:
            save_m2m = self.save_m2m

            def save_m2m_and_choices():
                save_m2m()
                self.save_choices()

            # save(commit=False) sets the attribute save_m2m (Django's docs); django-stubs declare a method
            self.save_m2m = save_m2m_and_choices  # type: ignore[method-assign]
        return question

    def save_choices(self):
        if self.choice_lines is not None and self.instance.pk is not None:
            sync_choices(self.instance, self.choice_lines)


class QuestionFormSet(forms.BaseInlineFormSet):
    """The survey page's questions: at most one class question (a database constraint the forms cannot see one by
    one: without this check, two ticked boxes were a server error)."""

    def clean(self):
        super().clean()
        classes = [form.cleaned_data.get("name") or "?" for form in self.forms
                   if form.cleaned_data.get("is_class") and not form.cleaned_data.get("DELETE")]
        if len(classes) > 1:
            raise ValidationError(gettext("Only one question can be the class the model predicts; ticked: %(names)s.")
                                  % {"names": ", ".join(classes)})


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
                                    "choices_text", ("low", "high"), ("prefer_not_to_say", "group"), "edit_link")}),)
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
        (_("Schedule and quota"), {"fields": ("opens_at", "closes_at", "quota")}),
        (_("Webhook"), {"fields": ("webhook_url", "webhook_secret"), "classes": ("collapse",)}),
        (_("Look and end page"), {"fields": ("accent_color", "logo_file", "remove_logo", "end_text", "end_url")}),
        (_("Other languages"), {"fields": ("translations",), "classes": ("collapse",)}),
        (_("Privacy"), {
            "fields": ("mode", "theta", "epsilon", "encoding", "encoding_parameters", "strategy", "allocation",
                       "postprocess", "validation_share", "privacy_report"),
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
        """After the questions are saved, (re)fit PCA/DCA on the reference sample when the survey uses one."""
        super().save_related(request, form, formsets, change)
        survey = form.instance
        if not change:
            survey.designers.add(request.user)  # the designers field (superusers only) was just saved
        frozen = survey.has_opened() or survey.has_reports()
        if survey.projection != Survey.Projection.NONE and not frozen:
            try:
                fit_projection(survey)
                self.message_user(request, gettext("%(projection)s fitted on the reference sample.")
                                  % {"projection": survey.projection.upper()}, messages.SUCCESS)
            except ValueError as exc:
                self.message_user(request, gettext("PCA/DCA not fitted: %(reason)s") % {"reason": exc},
                                  messages.ERROR)
        if not frozen:
            try:
                if fit_pilot(survey) is not None:
                    self.message_user(request, gettext("The first days' assignment of respondents was set from the "
                                                       "reference sample."), messages.SUCCESS)
            except ValueError as exc:
                self.message_user(request, gettext("The reference sample cannot set the first days' assignment "
                                                   "(%(reason)s); respondents are assigned uniformly until the first "
                                                   "model.") % {"reason": exc}, messages.WARNING)

    @admin.display(description=_("Privacy this gives"))
    def privacy_report(self, obj: Survey) -> str:
        """ε per question and per respondent (and PSE for MRR), computed by the engine from the saved settings
        (``survey_app.selectors.privacy_figures``, which the designer's workspace shows too)."""
        if obj is None or obj.pk is None:
            return gettext("Save the survey to see the privacy it gives.")
        figures = privacy_figures(obj)
        if figures.problem:
            return figures.problem
        return format_html(
            "<p><strong>{}</strong> ({})</p>{}"
            '<table class="privacy-report"><thead><tr><th>{}</th><th>ε</th><th>{}</th></tr>'
            "</thead><tbody>{}</tbody></table>",
            gettext("ε per respondent: %(epsilon)s") % {"epsilon": figures.epsilon},
            gettext("smaller is more private"), format_html_join("", "<p>{}</p>", ((n,) for n in figures.notes)),
            gettext("question"), gettext("PSE (uniform prior)"),
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", figures.rows),
        )

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
                table = read_table(data["csv_file"], class_column=data["class_column"] or None)
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
                missing = survey.questions.filter(prefer_not_to_say=True).count()
                self.message_user(request, gettext(
                    "Created draft survey %(slug)s with %(count)d questions. Their texts were made from the column "
                    "names: check and reword them below, then preview the survey.")
                    % {"slug": survey.slug, "count": survey.questions.count()}
                    + (" " + ngettext("%(count)d question had empty or “?” cells: it offers “Prefer not to say”.",
                                      "%(count)d questions had empty or “?” cells: they offer “Prefer not to say”.",
                                      missing) % {"count": missing} if missing else ""))
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

    def get_extra(self, request, obj=None, **kwargs):
        """Two empty rows for a question still without choices, none once it has them."""
        return 0 if obj is not None and obj.pk and obj.choices.exists() else 2


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

    def get_inlines(self, request, obj):
        """Choice rows only for the kinds whose answers are choices (a yes/no question's are no/yes, a number has
        none)."""
        return [] if obj is not None and obj.kind not in KINDS_WITH_CHOICES else self.inlines

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
                           "prefer_not_to_say")}),
        (_("Numeric bounds (public)"), {"fields": ("low", "high")}),
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

