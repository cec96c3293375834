"""The designer's workspace forms (survey_app/design.py): Django ModelForms with explicit field lists — a new model
field joins the workspace by being named in one of the ``*_FIELDS`` tuples below — and translations as one text box
per language beside the original (never JSON).

The rules are the models' (``Survey.clean``, ``Question.clean``, ``frozen_errors``) and the choice lines' (the
admin's ``QuestionChoicesForm``, ``survey_app.services.parse_choice_lines``); these forms only lay them out and lock
what an opened survey may no longer change (``PROTOCOL_FIELDS``, ``QUESTION_PROTOCOL_FIELDS``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .admin import FIELD_LABELS
from .forms import QuestionChoicesForm, QuestionFormSet
from .languages import QUESTION_FIELDS, SURVEY_FIELDS
from .models import NOT_ASKED, PROTOCOL_FIELDS, QUESTION_PROTOCOL_FIELDS, Question, Survey

if TYPE_CHECKING:  # what the mixin extends, for the type checker; at run time a plain mixin
    _FormBase = forms.ModelForm
else:
    _FormBase = object

#: The survey's general fields on the workspace (its privacy settings are ``PRIVACY_FIELDS``).
SURVEY_FIELDS_SHOWN = ("title", "slug", "description", "access", "opens_at", "closes_at", "quota", "shuffle_questions",
                       "shuffle_choices", "accent_color", "end_text", "end_url")
#: The privacy settings the workspace edits, with the live figures beside them.
PRIVACY_FIELDS = ("mode", "theta", "epsilon", "encoding", "strategy", "allocation", "reference_prior", "postprocess",
                  "validation_share")
#: A question's fields on its block (``position`` is kept by the drag-and-drop order).
QUESTION_FIELDS_SHOWN = ("position", "name", "text", "help_text", "kind", "style", "is_class", "low", "high", "step",
                         "matrix", "prefer_not_to_say", "section", "show_if_question", "show_if_answers")
#: Which translatable texts get a box per language beside the original.
SURVEY_TRANSLATED = ("title", "description", "end_text")
QUESTION_TRANSLATED = ("text", "help_text", "matrix")
#: The kinds of question whose answer can decide whether a later one is shown (``Question.skip_errors``).
GATE_KINDS = (Question.Kind.BINARY, Question.Kind.CATEGORICAL)


def other_languages() -> list[tuple[str, str]]:
    """(code, name) of the site's languages other than the default one, in which texts can be translated."""
    default = settings.LANGUAGE_CODE.split("-")[0]
    return [(code, name) for code, name in settings.LANGUAGES if code != default]


def translation_name(field: str, language: str) -> str:
    return f"{field}__{language}"


class TranslatedFieldsMixin(_FormBase):
    """Adds a box ``<field>__<language>`` per translated field and other language, filled from the instance's
    ``translations`` and written back into it on clean (other languages' and fields' entries are kept)."""

    translated: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()

    def add_translation_fields(self):
        for field in self.translated:
            original = self.fields.get(field)
            for code, name in other_languages():
                entry = (self.instance.translations or {}).get(code) or {}
                widget = forms.Textarea(attrs={"rows": 2}) if isinstance(getattr(original, "widget", None),
                                                                          forms.Textarea) else forms.TextInput()
                widget.attrs["lang"] = code
                label = FIELD_LABELS.get(field, field)
                self.fields[translation_name(field, code)] = forms.CharField(
                    required=False, label=gettext("%(field)s in %(language)s") % {"field": label, "language": name},
                    initial=entry.get(field, "") if isinstance(entry, dict) else "", widget=widget,
                    max_length=getattr(original, "max_length", None))

    def side_by_side(self, field: str) -> list:
        """The bound box of ``field`` followed by its translations' boxes, for one row of the page."""
        return [self[field], *(self[translation_name(field, code)] for code, _name in other_languages())]

    def translations_from(self, cleaned: dict) -> dict:
        out = {code: dict(entry) if isinstance(entry, dict) else entry
               for code, entry in (self.instance.translations or {}).items()}
        for field in self.translated:
            for code, _name in other_languages():
                text = (cleaned.get(translation_name(field, code)) or "").strip()
                entry = out.setdefault(code, {})
                if text:
                    entry[field] = text
                else:
                    entry.pop(field, None)
        return {code: entry for code, entry in out.items() if entry}


class SurveyForm(TranslatedFieldsMixin, forms.ModelForm):
    """The survey's title, address, description, access and schedule, with their translations side by side."""

    translated = SURVEY_TRANSLATED
    allowed = SURVEY_FIELDS

    class Meta:
        model = Survey
        fields = SURVEY_FIELDS_SHOWN
        widgets = {"description": forms.Textarea(attrs={"rows": 3}), "end_text": forms.Textarea(attrs={"rows": 2}),
                   "accent_color": forms.TextInput(attrs={"placeholder": "#0b5cad", "size": 8}),
                   "opens_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
                   "closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")}

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.label = FIELD_LABELS.get(name, field.label)
        self.fields["opens_at"].label, self.fields["closes_at"].label = _("Opens at"), _("Closes at")
        self.fields["quota"].label = _("Quota (reports)")
        self.fields["end_text"].label = _("End text")
        self.fields["end_text"].help_text = _("Shown after Send instead of the standard thank-you text.")
        self.add_translation_fields()
        if self.instance.has_opened():
            self.fields["access"].disabled = True  # the invitation scheme respondents were told

    def rows(self) -> list[tuple[str, list]]:
        """The survey's rows of boxes: the title and description beside their translations, the rest in rows."""
        return [("side-by-side", self.side_by_side("title")), ("row", [self["slug"], self["access"]]),
                ("side-by-side", self.side_by_side("description")),
                ("row", [self["opens_at"], self["closes_at"], self["quota"]]),
                ("checks", [self["shuffle_questions"], self["shuffle_choices"]]),
                ("side-by-side", self.side_by_side("end_text")), ("row", [self["end_url"], self["accent_color"]])]

    def clean(self):
        cleaned = super().clean() or {}
        self.instance.translations = self.translations_from(cleaned)
        return cleaned


class PrivacyForm(forms.ModelForm):
    """The privacy settings; disabled once the survey has opened (``PROTOCOL_FIELDS`` are frozen then)."""

    class Meta:
        model = Survey
        fields = PRIVACY_FIELDS

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.label = FIELD_LABELS.get(name, field.label)
            if name in ("theta", "epsilon", "validation_share"):
                field.widget.attrs.update({"step": "any", "inputmode": "decimal"})
        self.locked = self.instance.has_opened()
        if self.locked:
            for name in PROTOCOL_FIELDS:
                if name in self.fields:
                    self.fields[name].disabled = True


class NewSurveyForm(forms.ModelForm):
    """A new draft: its title, address and mode; ε = 1 (LDP) and θ = 0.7 (MRR) to start from."""

    class Meta:
        model = Survey
        fields = ("title", "slug", "mode")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.label = FIELD_LABELS.get(name, field.label)
        self.instance.epsilon, self.instance.theta = 1.0, 0.7


class QuestionForm(TranslatedFieldsMixin, QuestionChoicesForm):
    """One question's block: its fields, its choices one per line (the admin's rules), and beside each the texts in
    the other languages — the question's text and help text, and the choices' labels one per line in the same order.
    Once its survey has opened, only texts and translations stay editable."""

    translated = QUESTION_TRANSLATED
    allowed = QUESTION_FIELDS

    def add_error(self, field, error):
        """As ``Form.add_error``; the model's errors on a field this block does not show (set in the admin) become the
        block's own errors, named by the field's label, instead of a ``ValueError``."""
        if field is None and hasattr(error, "error_dict"):
            hidden = {name: errors for name, errors in error.error_dict.items()
                      if name != NON_FIELD_ERRORS and name not in self.fields}
            for name, errors in hidden.items():
                label = getattr(Question._meta.get_field(name), "verbose_name", name)
                for message in ValidationError(errors).messages:
                    super().add_error(None, f"{label}: {message}")
            shown = {name: errors for name, errors in error.error_dict.items() if name not in hidden}
            if not shown:
                return
            error = ValidationError(shown)
        super().add_error(field, error)

    class Meta:
        model = Question
        fields = QUESTION_FIELDS_SHOWN
        widgets = {"position": forms.HiddenInput(attrs={"class": "position"}),
                   "text": forms.TextInput(attrs={"class": "question-text"})}

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.label = FIELD_LABELS.get(name, field.label)
        self.fields["name"].help_text = _("Machine name (the CSV column name): letters, digits, - and _.")
        self.fields["choices_text"].widget.attrs.pop("cols", None)
        self.fields["choices_text"].help_text = _(
            "One answer per line, in the order respondents see them; MRR: optionally “label = share”. A yes/no "
            "question and a number take none.")
        self.add_translation_fields()
        choices = list(self.instance.choices.all()) if self.instance.pk else []
        for code, name in other_languages():
            labels = [c.translations.get(code, "") if isinstance(c.translations, dict) else "" for c in choices]
            self.fields[translation_name("choices", code)] = forms.CharField(
                required=False,
                label=gettext("Choices in %(language)s (one per line, same order)") % {"language": name},
                initial="\n".join(labels) if any(labels) else "",
                widget=forms.Textarea(attrs={"rows": 4, "lang": code}))
        if self.instance.pk and self.instance.survey_id and self.instance.survey.has_opened():
            for name in (*QUESTION_PROTOCOL_FIELDS, "choices_text", "style"):
                if name in self.fields:
                    self.fields[name].disabled = True
        self.skip_fields()
        self.choice_translations: dict[str, list[str]] | None = None

    def skip_fields(self) -> None:
        """"Show only if": a select of the survey's earlier yes/no and choices questions that are not the class, and
        their answers as checkboxes (``<gate pk>:<label>``, grouped by question; ``clean_show_if_answers`` keeps the
        chosen question's labels). The select validates against every other question of the survey so that a wrong
        one gets the model's message (``Question.skip_errors``). A question not saved yet has none: its condition is
        set once it is saved."""
        question = self.instance
        if question.pk is None or not question.survey_id:
            self.fields.pop("show_if_question", None)
            self.fields.pop("show_if_answers", None)
            return
        others = question.survey.questions.exclude(pk=question.pk).prefetch_related("choices")
        gates = [q for q in others if q.kind in GATE_KINDS and not q.is_class
                 and (q.position, q.pk) < (question.position, question.pk)]
        current = question.show_if_question
        if current is not None and current not in gates:
            gates.append(current)
        gate_field = self.fields["show_if_question"]
        assert isinstance(gate_field, forms.ModelChoiceField)
        gate_field.queryset = others
        gate_field.label = _("Show only if")
        gate_field.help_text = _("An earlier yes/no or choices question; this one is shown when it is answered with "
                                 "one of the answers ticked below.")
        gate_field.widget.choices = [("", gettext("— always shown —")), *((q.pk, q.name) for q in gates)]
        disabled = self.fields["show_if_answers"].disabled
        self.fields["show_if_answers"] = forms.MultipleChoiceField(
            required=False, disabled=disabled, widget=forms.CheckboxSelectMultiple(attrs={"class": "skip-answers"}),
            label=_("Answers that show it"),
            choices=[(gettext("Answers of %(name)s") % {"name": q.name},
                      [(f"{q.pk}:{label}", label) for label in q.labels() if label != NOT_ASKED]) for q in gates])
        self.initial["show_if_answers"] = [f"{current.pk}:{label}" for label in question.show_if_answers or []] \
            if current else []

    def clean_show_if_answers(self) -> list[str]:
        """The ticked answers of the chosen question, as its labels (the model's list)."""
        gate = self.cleaned_data.get("show_if_question")
        if gate is None:
            return []
        ticked = [value.partition(":") for value in self.cleaned_data.get("show_if_answers") or []]
        return [label for pk, _colon, label in ticked if pk == str(gate.pk)]

    def has_changed(self) -> bool:
        """A question not saved yet whose only change is its place (the page numbers every block) is an empty block."""
        if self.instance.pk is None:
            return bool(set(self.changed_data) - {"position"})
        return super().has_changed()

    def rows(self) -> list[tuple[str, list]]:
        """The block's rows of boxes: each translated text beside its translations, then the choices beside theirs."""
        return [("side-by-side", self.side_by_side("text")), ("side-by-side", self.side_by_side("help_text")),
                ("side-by-side choices", [self["choices_text"],
                                  *(self[translation_name("choices", c)] for c, _n in other_languages())]),
                ("side-by-side", self.side_by_side("matrix"))]

    def clean(self):
        cleaned = super().clean()
        self.instance.translations = self.translations_from(cleaned)
        lines = [line for line in (cleaned.get("choices_text") or "").replace("\r\n", "\n").split("\n") if line.strip()]
        out = {}
        for code, _name in other_languages():
            field = translation_name("choices", code)
            text = (cleaned.get(field) or "").replace("\r\n", "\n")
            labels = [line.strip() for line in text.split("\n")] if text.strip() else []
            while len(labels) > len(lines) and not labels[-1]:  # trailing empty lines
                labels.pop()
            if labels and len(labels) != len(lines):
                self.add_error(field, ValidationError(
                    gettext("Give one line per choice, in the same order: %(count)d choices, %(given)d lines (an "
                            "empty line keeps the original label).") % {"count": len(lines), "given": len(labels)},
                    code="translation_count"))
            out[code] = labels
        self.choice_translations = out
        return cleaned


class DesignQuestionFormSet(QuestionFormSet):
    """The survey's questions: the admin's check (at most one class question) and Django's (one name per survey),
    ordered by their ``position`` boxes, which the page's drag-and-drop and move buttons keep in the order shown."""


def question_formset(survey: Survey, data=None):
    """The question formset of ``survey``: one blank question to add (none once the survey has opened: no question
    is added or removed then)."""
    opened = survey.has_opened()
    factory = forms.inlineformset_factory(Survey, Question, form=QuestionForm, formset=DesignQuestionFormSet,
                                          extra=0 if opened else 1, can_delete=not opened)
    formset = factory(data, instance=survey, prefix="q", queryset=survey.questions.prefetch_related("choices"))
    last = max((form.instance.position for form in formset.initial_forms), default=-1)
    for i, form in enumerate(formset.extra_forms, start=1):  # a new question goes last (the page renumbers them all)
        form.fields["position"].initial = last + i
    return formset
