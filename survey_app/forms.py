"""The designers' forms behind the admin's survey and question pages: the CSV import, a question's choices typed as
lines of text (``survey_app.services.parse_choice_lines``, saved by ``sync_choices``), and the survey page's set of
questions (at most one class)."""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import CHOICE_COUNT, CHOICES_FROZEN, SCALE_TOO_FEW, Question, Survey
from .services import choice_lines, parse_choice_lines, sync_choices

__all__ = ["CHOICES_LABEL", "ChoiceLinesField", "ImportForm", "QuestionChoicesForm", "QuestionFormSet"]


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


class AnswerLinesField(forms.CharField):
    """The answers that show a question (``Question.show_if_answers``) as one label per line instead of a JSON list;
    ``Question.skip_errors`` judges them."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value):
        return [line.strip() for line in (super().to_python(value) or "").splitlines() if line.strip()]

    def has_changed(self, initial, data):
        return not self.disabled and (initial or []) != self.to_python(data)


class QuestionAdminForm(forms.ModelForm):
    """The admin's question page: the answers that show it one per line."""

    show_if_answers = AnswerLinesField(
        required=False, label=_("Answers that show it"),
        help_text=_("One answer per line, as labelled in the original language, e.g. yes."))

    class Meta:
        model = Question
        fields = "__all__"


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
