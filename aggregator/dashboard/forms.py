"""The dashboard's prediction form: one field per feature question of a survey — a select of its answers (binary and
categorical questions) or a number within its public bounds (numeric questions) — whose cleaned data is a record as
the predict API takes it (``aggregator.api.records_to_matrix``: {question name: answer label or number})."""
from __future__ import annotations

from django import forms

from survey_app.models import Question, Survey


class PredictionForm(forms.Form):
    def __init__(self, survey: Survey, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for q in survey.feature_questions.prefetch_related("choices"):
            if q.kind == Question.Kind.NUMERIC:
                self.fields[q.name] = forms.FloatField(
                    label=q.text, min_value=q.low, max_value=q.high,
                    help_text=f"A number from {q.low:g} to {q.high:g}.",
                )
            else:
                self.fields[q.name] = forms.ChoiceField(label=q.text, choices=[(label, label) for label in q.labels()])

    def record(self) -> dict:
        """The cleaned answers, {question name: label or number} (call after ``is_valid()``)."""
        return {name: self.cleaned_data[name] for name in self.fields}
