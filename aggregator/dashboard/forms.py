"""The dashboard's prediction form: one field per feature question of a survey — a select of its answers (binary and
categorical questions) or a number within its public bounds (numeric questions) — whose cleaned data is a record as
the predict API takes it (``aggregator.api.records_to_matrix``: {question name: answer label or number})."""
from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from aggregator.lab.methods import get as get_method
from aggregator.planning import reference_table
from survey_app.models import Question, Survey

from .glossary import method_label


class PredictionForm(forms.Form):
    def __init__(self, survey: Survey, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for q in survey.feature_questions.prefetch_related("choices"):
            if q.kind == Question.Kind.NUMERIC:
                self.fields[q.name] = forms.FloatField(
                    label=q.text, min_value=q.low, max_value=q.high,
                    help_text=f"A number from {q.low:g} to {q.high:g}.",
                )
            elif q.kind == Question.Kind.MULTI:
                # Select all that apply: the predict API takes the list of the choices that apply.
                self.fields[q.name] = forms.MultipleChoiceField(
                    label=q.text, required=False, widget=forms.CheckboxSelectMultiple,
                    choices=[(label, label) for label in q.options()], help_text="Tick every choice that applies.")
            else:
                self.fields[q.name] = forms.ChoiceField(label=q.text, choices=[(label, label) for label in q.labels()])

    def record(self) -> dict:
        """The cleaned answers, {question name: label, number or list of labels} (call after ``is_valid()``)."""
        return {name: self.cleaned_data[name] for name in self.fields}


#: Largest reference CSV the planner accepts (it is kept in the job's parameters): 2 MB, over twice the largest
#: bundled data set (mushroom, 0.37 MB).
MAX_REFERENCE_BYTES = 2 * 1024 * 1024
DEFAULT_EPSILONS = "0.5, 1, 2, 4, 8"
DEFAULT_THETAS = "0.6, 0.7, 0.8, 0.9"


def _numbers(text: str, name: str, low: float, high: float, low_open: bool = True) -> list[float]:
    """A comma-separated list of numbers in (low, high] (or [low, high]), sorted, without repeats."""
    values = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            value = float(part)
        except ValueError:
            raise forms.ValidationError(
                f"{part!r} is not a number; write the {name} values separated by commas.") from None
        if not (low < value <= high if low_open else low <= value <= high) or value != value:
            raise forms.ValidationError(f"{name} values must lie in {'(' if low_open else '['}{low:g}, {high:g}]; "
                                        f"{part} does not.")
        values.append(value)
    if len(values) > 12:
        raise forms.ValidationError(f"At most 12 {name} values, please (each one is a full evaluation).")
    return sorted(set(values))


def _planned_by_default(name: str) -> bool:
    """Whether the mechanism the lab method ``name`` runs asks to be ticked at first (``Description.plan_default``)."""
    description = getattr(get_method(name).mechanism, "description", None)
    return bool(description is not None and description.plan_default)


class PlannerForm(forms.Form):
    """What the planner evaluates: reference data, mechanisms, grids, repetitions and the target accuracy."""

    dataset = forms.ChoiceField(required=False, label=_("Bundled data set"),
                                help_text=_("A public data set shipped with Coinflip (data/datasets/)."))
    upload = forms.FileField(required=False, label=_("…or upload a public reference CSV"),
                             help_text=_("A header row and one row per person, answers as your questions will record "
                                       "them; at most 2 MB. Use public data only: it is stored with the job."))
    class_column = forms.CharField(required=False, max_length=100, label=_("Class column"),
                                   help_text=_("Default: the last column."))
    methods = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, label=_("Mechanisms (how browsers disguise the answers)"),
        help_text=_("Each option is explained in the glossary (Glossary, at the top of the page). Exact definitions: "
                  "SPEC §2 (randomized response), §3–§4 (one disguised answer per person), §5b (numbers kept as "
                  "numbers)."))
    epsilons = forms.CharField(initial=DEFAULT_EPSILONS, required=False, label=_("ε grid (LDP mechanisms)"))
    thetas = forms.CharField(initial=DEFAULT_THETAS, required=False, label=_("θ grid (unrelated-question MRR)"))
    reps = forms.IntegerField(initial=5, min_value=2, max_value=50, label=_("Repetitions per setting"),
                              help_text=_("Each repetition is a fresh 80/20 split; more give narrower intervals."))
    target = forms.FloatField(initial=0.8, min_value=0.01, max_value=1.0, label=_("Target accuracy"),
                              help_text=_("A fraction, e.g. 0.8 for 80 %."))
    respondents = forms.IntegerField(required=False, min_value=10, max_value=100_000_000,
                                     label=_("Planned respondents"),
                                     help_text=_("How many people you expect to answer (training respondents). The "
                                               "planner warns when the recommended setting is not expected to beat "
                                               "always guessing the most frequent class at that size. Default: the "
                                               "reference data's 80 % training rows."))

    def __init__(self, *args, datasets: list[str], methods: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dataset"].choices = [("", "—")] + [(d, d) for d in datasets]
        self.fields["methods"].choices = [(m, method_label(m, label)) for m, label in methods]  # plain words
        self.fields["methods"].initial = [m for m, _ in methods if _planned_by_default(m)]

    def clean_epsilons(self):
        return _numbers(self.cleaned_data["epsilons"], "ε", 0.0, 100.0)

    def clean_thetas(self):
        return _numbers(self.cleaned_data["thetas"], "θ", 0.0, 1.0)

    def clean_upload(self):
        upload = self.cleaned_data.get("upload")
        if upload is None:
            return None
        if upload.size > MAX_REFERENCE_BYTES:
            raise forms.ValidationError(f"The file is {upload.size / 1e6:.1f} MB; the planner takes at most 2 MB.")
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError(_("The file is not UTF-8 text; save it as a UTF-8 CSV.")) from None

    def clean(self):
        data = super().clean()
        if bool(data.get("dataset")) == bool(data.get("upload")):
            raise forms.ValidationError(_("Choose a bundled data set or upload a CSV (one of the two)."))
        chosen = data.get("methods") or []
        if any(get_method(m).parameter == "epsilon" for m in chosen) and not data.get("epsilons"):
            self.add_error("epsilons", _("Give at least one ε for the LDP mechanisms chosen."))
        if any(get_method(m).parameter == "theta" for m in chosen) and not data.get("thetas"):
            self.add_error("thetas", _("Give at least one θ for MRR."))
        if not self.errors:
            try:
                reference_table(self.params())
            except ValueError as exc:
                raise forms.ValidationError(f"The reference data cannot be read: {exc}") from None
        return data

    def params(self) -> dict:
        """The planner job's parameters (``aggregator.planning``)."""
        d = self.cleaned_data
        out = {"methods": d["methods"], "epsilons": d["epsilons"], "thetas": d["thetas"], "reps": d["reps"],
               "target": d["target"], "class_column": d["class_column"], "seed": 0,
               "respondents": d.get("respondents")}
        return out | ({"dataset": d["dataset"]} if d["dataset"]
                      else {"csv": d["upload"], "filename": self.files["upload"].name})


class ApplySettingForm(forms.Form):
    """Which planned setting goes to which draft survey."""

    setting = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    survey = forms.ModelChoiceField(queryset=None, label=_("Draft survey"), empty_label=None)

    def __init__(self, *args, surveys, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["survey"].queryset = surveys
