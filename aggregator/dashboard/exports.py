"""Downloads of the staff dashboard: the randomized reports as CSV, a published model as a scikit-learn estimator, its
estimated frequency tables as CSV and Excel, and its model card (issue 12 item 5; docs/dashboard.md).

**Reports CSV** (``report_rows``): one row per stored report — ``id``, ``received_on`` (the coarse date),
``kind`` (``training`` or ``validation``) and ``payload`` (the randomized report as JSON, exactly as the browser sent
it). That is all a report holds: no respondent identifier, token, IP address, user agent or precise time is ever
stored (``survey_app.models.Report``), so none can be exported.

**scikit-learn** (``sklearn_estimator``): a ``CategoricalNB`` for discrete models (categorical questions, numeric
ones discretized into bins) or a ``GaussianNB`` for Gaussian models (SPEC §5b), whose fitted attributes are set from
the ``NaiveBayesModel`` — never fitted on data. They hold the model's *floored* parameters (``naive_bayes.model``):

* CategoricalNB: ``class_log_prior_`` = log max(P(c), PROB_FLOOR), ``feature_log_prob_[i]`` = log max(P(a | c),
  PROB_FLOOR) transposed to (classes, values);
* GaussianNB: ``class_prior_`` = max(P(c), PROB_FLOOR) — not renormalised, as in the model —, ``theta_`` = μ and
  ``var_`` = max(σ, SIGMA_FLOOR_FRACTION·(high − low))².

scikit-learn adds the same log terms in another order (and GaussianNB writes the log-density as
−½·log(2πσ²) − (x − μ)²/(2σ²) where ``scipy.stats.norm.logpdf`` computes −z²/2 − log σ − ½·log 2π), so the joint
log-likelihoods agree to rounding (≈ 1e-15 relative): class probabilities agree within 1e-9 and predictions agree
except at exact ties, which rounding may break either way (``tests/dashboard/test_exports.py``).

Inputs are the model's: one column per model attribute in the order of the JSON download's ``attributes`` — category
codes (0-based, in the order of each attribute's ``values``; a discretized numeric question as its bin code), or
values in the attribute's units for Gaussian models (the projected components for PCA/DCA surveys). ``class_count_``
and ``category_count_`` hold the estimated counts (P̂ × reports) for information only: ``partial_fit`` would
re-estimate from them without the floors.

A pickle runs code when it is loaded: load one only from a source you trust.

**Frequency tables** (``frequency_rows``, ``frequencies_csv``, ``frequencies_xlsx``): one row per published parameter
— P(c) per class, P(a | c) per (question, answer, class), or μ_c and σ_c per (question, class) for Gaussian models —
with its standard error: the protocol's ``conditional_standard_errors`` for P(a | c) and μ_c (as the dashboard's
charts), ``prior_standard_errors`` from the model's metadata for P(c). Text cells that a spreadsheet would read as a
formula (starting with =, +, -, @, tab or carriage return) get a leading apostrophe (``spreadsheet_safe``).

**Model card** (``model_card``, ``model_card_markdown``; the HTML page is ``templates/dashboard/model_card.html``):
the data, the mechanism in plain words (from the protocol's capabilities and the privacy figures stored with the
version, never from comparing mode strings), ε and PSE as stored in ``ModelVersion.privacy``, the accuracy estimate
with its interval (``services.accuracy_by_version``), the warnings stored in ``ModelVersion.metrics``, intended use
and limitations.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
from django.utils import translation

from aggregator.privacy import oracles
from aggregator.privacy.continuous.approaches import APPROACH_CLASSES
from aggregator.privacy.jsonable import format_epsilon
from aggregator.privacy.naive_bayes.model import PROB_FLOOR, SIGMA_FLOOR_FRACTION, NaiveBayesModel
from aggregator.privacy.protocol import SETTING_SYMBOLS
from aggregator.privacy.schema import Categorical, Numeric
from aggregator.privacy.survey_protocol import SurveyProtocol

from . import charts

__all__ = ["CSV_COLUMNS", "report_kind", "report_rows", "sklearn_estimator", "sklearn_bytes",
           "FREQUENCY_COLUMNS", "spreadsheet_safe", "frequency_rows", "frequencies_csv", "frequencies_xlsx",
           "frequency_summary", "model_card", "card_for", "model_card_markdown"]

CSV_COLUMNS = ("id", "received_on", "kind", "payload")


# -- reports CSV ------------------------------------------------------------------------------------------------
class _Echo:
    """A file-like object whose ``write`` returns the line: ``csv.writer`` then yields rows for streaming."""

    def write(self, value: str) -> str:
        return value


def report_kind(payload: Any) -> str:
    """``"validation"`` for a validation-share report (``{"validation": …}``), else ``"training"``."""
    return "validation" if SurveyProtocol.is_validation(payload) else "training"


def report_rows(reports: Iterable[tuple[int, Any, Any]]) -> Iterator[str]:
    """CSV lines (header first) for ``(id, received_on, payload)`` tuples, one report each, as they come."""
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_COLUMNS)
    for pk, received_on, payload in reports:
        yield writer.writerow([pk, received_on.isoformat(), report_kind(payload),
                               json.dumps(payload, separators=(",", ":"), ensure_ascii=False)])


# -- scikit-learn -----------------------------------------------------------------------------------------------
def _estimated_class_counts(model: NaiveBayesModel) -> np.ndarray:
    return model.prior * float(model.metadata.get("reports") or 0)


def _categorical_nb(model: NaiveBayesModel):
    from sklearn.naive_bayes import CategoricalNB

    est = CategoricalNB()
    est.classes_ = np.asarray(model.classes, dtype=object)
    est.class_count_ = _estimated_class_counts(model)
    est.class_log_prior_ = np.log(np.maximum(model.prior, PROB_FLOOR))
    est.feature_log_prob_ = [np.log(np.maximum(table, PROB_FLOOR)).T for table in model.conditionals]
    est.category_count_ = [table.T * est.class_count_[:, None] for table in model.conditionals]
    est.n_categories_ = np.asarray([a.size for a in model.attributes], dtype=np.int64)
    est.n_features_in_ = len(model.attributes)
    return est


def _gaussian_nb(model: NaiveBayesModel):
    from sklearn.naive_bayes import GaussianNB

    est = GaussianNB()
    est.classes_ = np.asarray(model.classes, dtype=object)
    est.class_count_ = _estimated_class_counts(model)
    est.class_prior_ = np.maximum(model.prior, PROB_FLOOR)
    est.theta_ = np.vstack([table[0] for table in model.conditionals]).T
    sigma = [np.maximum(table[1], SIGMA_FLOOR_FRACTION * (a.high - a.low))
             for a, table in zip(model.attributes, model.conditionals, strict=True)]
    est.var_ = np.vstack(sigma).T ** 2
    est.epsilon_ = 0.0
    est.n_features_in_ = len(model.attributes)
    return est


def has_sklearn_estimator(model: NaiveBayesModel) -> bool:
    """Whether ``sklearn_estimator`` can export ``model``: every attribute of one kind (not a mixed survey's)."""
    kinds = {isinstance(a, Numeric) for a in model.attributes}
    return len(kinds) <= 1


def sklearn_estimator(model: NaiveBayesModel):
    """The model as a fitted ``CategoricalNB`` (every attribute categorical) or ``GaussianNB`` (every attribute
    numeric); ``ValueError`` for a model that mixes both (scikit-learn has no single estimator for it)."""
    if all(isinstance(a, Categorical) for a in model.attributes):
        return _categorical_nb(model)
    if all(isinstance(a, Numeric) for a in model.attributes):
        return _gaussian_nb(model)
    raise ValueError("scikit-learn has no single Naive Bayes estimator for categorical and numeric attributes mixed: "
                     "use the model's JSON (NaiveBayesModel.from_dict) or the frequency tables")


def sklearn_bytes(model: NaiveBayesModel) -> bytes:
    """``sklearn_estimator(model)`` pickled with joblib (load it with ``joblib.load`` — from a trusted source only)."""
    import joblib

    buffer = io.BytesIO()
    joblib.dump(sklearn_estimator(model), buffer)
    return buffer.getvalue()


# -- frequency tables (CSV and Excel) ---------------------------------------------------------------------------
#: Columns of the frequency tables: ``parameter`` is "P(c)" (class prior; ``answer`` empty), "P(a | c)" (share of an
#: answer among people of a class), or for Gaussian models "mean" / "sd" (μ_c / σ_c in the question's units;
#: ``answer`` empty). ``standard_error_kind``: the protocol's interval method for P(a | c) and μ_c — "delta" (the
#: delta-method SE of the published value) or "bound" (MRR: a conservative upper bound) —, "raw" for P(c) (the SE of
#: the unbiased raw estimate that post-processing turned into the published one), empty where there is no SE.
FREQUENCY_COLUMNS = ("question", "question_text", "parameter", "answer", "class", "estimate", "standard_error",
                     "standard_error_kind")

#: Leading characters that make a spreadsheet read a text cell as a formula (OWASP, "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: Control characters an .xlsx cannot hold (openpyxl's ILLEGAL_CHARACTERS_RE): removed from text in both formats.
_ILLEGAL_CHARACTERS = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")


def spreadsheet_safe(value):
    """Text as a spreadsheet cell: control characters an .xlsx refuses removed, and a leading apostrophe when it
    starts with =, +, -, @, tab or carriage return (so it stays text, never a formula); anything else unchanged."""
    if not isinstance(value, str):
        return value
    value = _ILLEGAL_CHARACTERS.sub("", value)
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def _finite(x) -> float | None:
    """A finite float, or ``None`` (empty cell) for a missing, unknown (NaN) or infinite value."""
    if x is None or isinstance(x, str):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def frequency_rows(model_dict: dict, protocol=None, texts: Mapping[str, str] | None = None) -> list[dict]:
    """The model's estimated frequency tables, one dict per parameter keyed by ``FREQUENCY_COLUMNS``: the class prior
    first, then each model attribute in order — P(a | c) per (answer, class), or per class μ_c and σ_c for a numeric
    attribute. Standard errors: ``protocol.conditional_standard_errors`` (as the charts), the model's
    ``prior_standard_errors`` for P(c); ``texts`` maps question names to their wording. Values are not escaped yet
    (``frequencies_csv`` / ``frequencies_xlsx`` do it)."""
    model = NaiveBayesModel.from_dict(model_dict)
    method, standard_errors = protocol.conditional_standard_errors(model) if protocol is not None else ("none", None)
    if standard_errors is None:
        method = ""
    texts = texts or {}
    classes = list(model.classes)

    def row(question, parameter, answer, klass, estimate, se, kind):
        se = _finite(se)
        return {"question": question, "question_text": texts.get(question, ""), "parameter": parameter,
                "answer": answer, "class": klass, "estimate": _finite(estimate), "standard_error": se,
                "standard_error_kind": kind if se is not None else ""}

    prior_se = model.metadata.get("prior_standard_errors")
    rows = [row(model.class_attribute.name, "P(c)", "", label, model.prior[c],
                None if prior_se is None else prior_se[c], "raw") for c, label in enumerate(classes)]
    for i, (attr, table) in enumerate(zip(model.attributes, model.conditionals, strict=True)):
        se = None if standard_errors is None else np.asarray(standard_errors[i], dtype=np.float64)
        if isinstance(attr, Categorical):
            rows += [row(attr.name, "P(a | c)", value, label, table[a, c], None if se is None else se[a, c], method)
                     for a, value in enumerate(attr.values) for c, label in enumerate(classes)]
        else:
            for c, label in enumerate(classes):
                rows.append(row(attr.name, "mean", "", label, table[0, c], None if se is None else se[c], method))
                rows.append(row(attr.name, "sd", "", label, table[1, c], None, ""))
    return rows


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # every digit: the CSV holds the model's numbers exactly
    return spreadsheet_safe(str(value))


def frequencies_csv(rows: Iterable[Mapping]) -> str:
    """``frequency_rows`` as CSV text: a header (``FREQUENCY_COLUMNS``), then one line per parameter; numbers in
    full precision, empty cells where there is no value, text made formula-safe (``spreadsheet_safe``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(FREQUENCY_COLUMNS)
    for row in rows:
        writer.writerow([_csv_cell(row[key]) for key in FREQUENCY_COLUMNS])
    return buffer.getvalue()


#: Excel sheet names: at most 31 characters, none of these, not "History", unique ignoring case.
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\\000-\037]")
_SHEET_MAX = 31


def _sheet_title(name: str, used: set[str]) -> str:
    base = _SHEET_FORBIDDEN.sub("_", name).strip().strip("'")[:_SHEET_MAX] or "Question"
    title, n = base, 1
    while title.casefold() in used:
        n += 1
        suffix = f" ({n})"
        title = base[:_SHEET_MAX - len(suffix)] + suffix
    used.add(title.casefold())
    return title


def frequencies_xlsx(rows: Iterable[Mapping], summary: Sequence[tuple[str, Any]]) -> bytes:
    """An .xlsx workbook: a "Summary" sheet (``summary``'s (label, value) pairs, one a row), then one sheet per
    question — the class question (P(c)) first, then the model attributes in order — with the ``FREQUENCY_COLUMNS``
    header and that question's rows of ``frequency_rows``: the very cells of the CSV, numbers as numbers."""
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Summary"
    for label, value in summary:
        sheet.append([spreadsheet_safe(label), spreadsheet_safe(value)])
    sheet.column_dimensions["A"].width = 28
    sheet.column_dimensions["B"].width = 90
    used = {"summary", "history"}
    by_question: dict[str, list] = {}
    for row in rows:
        by_question.setdefault(row["question"], []).append(row)
    for question, question_rows in by_question.items():
        sheet = workbook.create_sheet(_sheet_title(question, used))
        sheet.append(list(FREQUENCY_COLUMNS))
        for row in question_rows:
            sheet.append([spreadsheet_safe(row[key]) for key in FREQUENCY_COLUMNS])
        sheet.freeze_panes = "A2"
        for column, width in zip("ABCDEFGH", (16, 36, 10, 18, 14, 22, 22, 12), strict=True):
            sheet.column_dimensions[column].width = width
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def frequency_summary(card: dict) -> list[tuple[str, Any]]:
    """The workbook's "Summary" sheet from a ``model_card``: what the model is, its privacy and accuracy, and how to
    read the other sheets."""
    out: list[tuple[str, Any]] = [("Coinflip model version", f"{card['survey_title']} ({card['slug']}), "
                                                             f"version {card['version']}")]
    out += card["data"]
    out.append(("Mechanism", f"{card['mechanism']['name']} — "
                             + ", ".join(f"{k} = {v}" for k, v in card["mechanism"]["settings"])))
    out += [("ε per respondent", card["privacy"]["epsilon"])]
    if card["privacy"]["pse"]:
        out.append(("PSE before / after mining", card["privacy"]["pse"]))
    out.append(("Accuracy", card["accuracy"]["text"] if card["accuracy"] else card["accuracy_missing"]))
    out.append(("Warnings", str(len(card["warnings"]))))
    out.append(("Standard errors", card["interval_sentence"]))
    out.append(("Columns", "question, question_text: the question; parameter: P(c) (class prior), P(a | c) (share of "
                           "answer a among people of class c), or mean / sd (Gaussian models, in the question's "
                           "units); answer, class; estimate: the value the model uses; standard_error and "
                           "standard_error_kind: delta (delta method), bound (a conservative upper bound), raw (SE "
                           "of the unbiased estimate before post-processing); empty: none."))
    return out


# -- model card -------------------------------------------------------------------------------------------------
#: What each interval method (``SurveyProtocol.conditional_standard_errors``) means, for people.
INTERVAL_SENTENCES = {
    "delta": "The standard errors are delta-method standard errors of the published estimates; estimate ± 1.96 "
             "standard errors is a 95 % interval.",
    "bound": "The standard errors of P(a | c) are conservative upper bounds (the engine does not publish the "
             "covariance the exact figure needs): estimate ± 1.96 of them covers the true value at least 95 % of the "
             "time.",
    "none": "This model has no standard errors.",
}


def _pct(x) -> str:
    return f"{100.0 * float(x):.1f}"


def _figure(x, spec: str) -> str:
    """A stored privacy figure for people: "—" when absent, "∞" for +∞, else ``format(spec)``."""
    if x is None:
        return "—"
    try:
        return format_epsilon(x, spec)
    except (TypeError, ValueError):
        return "—"


def _setting(survey, name: str) -> tuple[str, str]:
    """(symbol or label, value as people read it) of one of the survey's privacy settings."""
    field = survey._meta.get_field(name)
    value = getattr(survey, f"get_{name}_display")() if field.choices else getattr(survey, name)
    if isinstance(value, float):
        value = f"{value:g}"
    return SETTING_SYMBOLS.get(name, str(field.verbose_name)), "—" if value is None else str(value)


def _oracle(name: str):
    """The oracle class registered as ``name``, or ``None`` (an oracle since unregistered)."""
    try:
        return oracles.lookup(name)
    except ValueError:
        return None


def _oracle_title(name: str) -> str:
    return getattr(_oracle(name), "title", "") or name


def _mechanism(survey, protocol, privacy: dict, model: NaiveBayesModel, questions: Sequence,
               order: Sequence[str] = ()) -> dict:
    """The mechanism in plain words, from what the protocol says of itself (``privacy_settings``,
    ``grouped_privacy``, ``accuracy_at_publication``) and the privacy figures stored with the version."""
    sentences = ["Each respondent's browser randomizes the answers before anything is sent: the server only ever "
                 "receives the randomized report, and the model is estimated from those reports alone."]
    if protocol.grouped_privacy:
        groups = privacy.get("groups") or []
        sentences.append(f"Questions are randomized in {len(groups) or 'their'} group{'' if len(groups) == 1 else 's'}"
                         " of questions sent together: each group has its own ε and PSE, and a respondent's ε adds "
                         "up the groups' ε.")
    else:
        sentences.append("One ε covers everything a respondent sends, however many questions there are.")
    strategy = privacy.get("strategy")
    if strategy:
        sentences.append(f"Reports: {dict(survey.Strategy.choices).get(strategy, strategy)}.")
    encodings = privacy.get("encodings") or {}
    mixed = (any(isinstance(a, Categorical) for a in model.attributes)
             and any(isinstance(a, Numeric) for a in model.attributes))
    if encodings:
        titles = {name: _oracle_title(oracle) for name, oracle in encodings.items()}
        if len(set(titles.values())) == 1:
            which = "the class and every question with choices" if mixed else "every question"
            sentences.append(f"Frequency oracle for {which}: {next(iter(titles.values()))}.")
        else:
            sentences.append("Frequency oracle per question: "
                             + "; ".join(f"{name}: {titles[name]}" for name in _in_order(titles, order)) + ".")
        for name in dict.fromkeys(encodings[q] for q in _in_order(encodings, order)):  # each oracle once, in order
            description = getattr(_oracle(name), "description", None)
            if description is not None:
                sentences.append(f"{description.term}: {description.summary}")
    approach = privacy.get("approach")
    if approach is not None:
        approach_type = APPROACH_CLASSES.get(int(approach))
        label = approach_type.title if approach_type else f"approach {approach}"
        if mixed:
            sentences.append(f"Numeric answers: {label}; the model holds a mean and a standard deviation per class "
                             "for each numeric question (Gaussian Naive Bayes) and the share of each answer per class "
                             "for the questions with choices. Each respondent sends one report, drawn at random: the "
                             "class, one question with choices (jointly with the class), or one numeric answer (or "
                             "its square) with Laplace noise.")
        else:
            sentences.append(f"Numeric answers: {label}; the model holds a mean and a standard deviation per class "
                             "(Gaussian Naive Bayes).")
    attributes = {a.name: a for a in model.attributes}
    binned = [q for q in questions if q.kind == q.Kind.NUMERIC and isinstance(attributes.get(q.name), Categorical)]
    if binned:
        sentences.append("Numeric questions are cut into equal-width bins over their public bounds before they are "
                         "randomized: " + "; ".join(f"{q.name} ({', '.join(attributes[q.name].values)})"
                                                    for q in binned) + ".")
    projected = [q for q in questions if q.kind == q.Kind.NUMERIC and not q.is_class and q.name not in attributes]
    if projected:
        sentences.append(f"The numeric answers ({', '.join(q.name for q in projected)}) are projected onto "
                         f"{len(model.attributes)} model inputs ({survey.get_projection_display()}) before they are "
                         "randomized.")
    if survey.validation_share:
        how = ("each version is measured when it is published, on the randomized validation records received until "
               "then" if protocol.accuracy_at_publication else
               "validation respondents say, through randomized response, whether a published version classified "
               "their true answers correctly")
        sentences.append(f"About {100 * survey.validation_share:g} % of respondents validate instead of training: "
                         f"{how}.")
    if privacy.get("epsilon_note"):
        sentences.append(str(privacy["epsilon_note"]).rstrip(".") + ".")
    return {"name": survey.get_mode_display(), "settings": [_setting(survey, s) for s in protocol.privacy_settings],
            "sentences": sentences}


def _in_order(names: Iterable[str], order: Sequence[str]) -> list[str]:
    """``names`` in the survey's question order (PostgreSQL's jsonb keeps no key order); unknown names last."""
    rank = {name: i for i, name in enumerate(order)}
    return sorted(names, key=lambda name: rank.get(name, len(rank)))


def _privacy(privacy: dict, grouped: bool, order: Sequence[str] = ()) -> dict:
    """ε and PSE as stored with the version, formatted (``charts.privacy_summary`` / ``privacy_per_attribute``),
    per question in ``order``."""
    summary = charts.privacy_summary(privacy)
    per = charts.privacy_per_attribute(privacy)
    epsilon = _figure(summary["epsilon_per_respondent"], ".2f")
    if summary["epsilon_per_respondent_known_personal"] is not None:
        epsilon += (f" ({_figure(summary['epsilon_per_respondent_known_personal'], '.2f')} against someone who knows "
                    "the real personal answers)")
    pse = None
    if grouped and summary["pse_before"] is not None:
        before, after = summary["pse_before_group"], summary["pse_after_group"]
        where = (f"the group of {', '.join(before)}" if before == after
                 else f"before: the group of {', '.join(before)}; after: the group of {', '.join(after)}")
        pse = (f"{_figure(summary['pse_before'], '.3f')} / {_figure(summary['pse_after'], '.3f')} (lowest over the "
               f"question groups: {where})")
    rows = []
    index = {name: i for i, name in enumerate(per["labels"])}
    for name in _in_order(per["labels"], order):
        i = index[name]
        def cell(key, spec=".3f", i=i):
            values = per.get(key)
            return None if values is None else _figure(values[i], spec)
        rows.append({"name": name,
                     "epsilon": "∞" if per["epsilon_infinite"][i] else _figure(per["epsilon"][i], ".2f"),
                     "pse_uniform": cell("pse_uniform"), "pse_before": cell("pse_before"),
                     "pse_after": cell("pse_after")})
    return {"epsilon": epsilon, "epsilon_exact": privacy.get("epsilon_exact"),
            "epsilon_note": privacy.get("epsilon_note"), "pse": pse, "per_question": rows,
            "has_pse": any(r["pse_before"] is not None or r["pse_uniform"] is not None for r in rows)}


def _with_texts(privacy: dict, questions: Sequence) -> dict:
    """``privacy`` with each per-question row's label (``text``): its name, and for a select-all question's choice
    “question — choice” (``survey_app.models.feature_labels``), not its feature name."""
    from survey_app.models import feature_labels

    texts = feature_labels(questions)
    for row in privacy["per_question"]:
        row["text"] = texts.get(row["name"], row["name"])
    return privacy


def _accuracy(accuracy: dict | None) -> dict | None:
    if not accuracy:
        return None
    confidence = f"{100 * float(accuracy.get('confidence', 0.95)):g}"
    estimate, low, high = _pct(accuracy["estimate"]), _pct(accuracy["low"]), _pct(accuracy["high"])
    return {"estimate_pct": estimate, "low_pct": low, "high_pct": high, "confidence_pct": confidence,
            "reports": int(accuracy.get("reports") or 0), "method": accuracy.get("method"),
            "text": f"{estimate} % ({confidence} % interval {low}–{high} %, from {int(accuracy.get('reports') or 0)} "
                    "validation reports)"}


def _warning(f: dict) -> dict:
    kind = {"jump": f"jumped since v{f['version'] - 1}", "report_check": "reports unlike honest ones"}.get(
        f["kind"], "outside [0, 1]")
    if f["kind"] == "jump":
        detail = f"largest move from {_figure(f.get('from'), '.4f')} to {_figure(f.get('to'), '.4f')}"
    elif f["kind"] == "report_check":
        detail = f"per-report check “{f.get('check')}”"
    else:
        detail = f"raw estimates from {_figure(f.get('min'), '.4f')} to {_figure(f.get('max'), '.4f')}"
    z = "∞" if f["worst_z"] is None else f"{f['worst_z']:.1f}"
    return {"what": kind, "parameter": f["parameter"], "entries": f["entries"], "standard_errors": z, "detail": detail}


@translation.override("en")  # the card is written in English: the settings' labels too, whatever the page's language
def model_card(version, protocol, questions: Sequence, accuracy: dict | None) -> dict:
    """Everything a model card says about ``version`` (a ``ModelVersion``), as display strings: the data, the
    mechanism in plain words, ε and PSE (``version.privacy``), the accuracy estimate ``accuracy`` (an
    ``AccuracyEstimate.to_dict()``, or ``None``), the warnings of ``version.metrics``, intended use and limitations.
    ``protocol`` is the survey's, ``questions`` its ``Question`` rows. No database access."""
    survey = version.survey
    model = NaiveBayesModel.from_dict(version.model)
    privacy = version.privacy or {}
    method, standard_errors = protocol.conditional_standard_errors(model)
    method = method if standard_errors is not None else "none"
    class_question = next((q for q in questions if q.is_class), None)
    features = [q for q in questions if not q.is_class]
    metrics = version.metrics or {}
    findings = charts.findings([(version.version, metrics)])
    warnings = [_warning(f) for f in findings if f["warning"]]
    published = version.created_at.strftime("%Y-%m-%d %H:%M UTC") if version.created_at else "—"
    class_name = model.class_attribute.name
    order = [q.name for q in features] + [a.name for a in model.attributes] + [class_name]
    class_text = class_question.text if class_question else class_name
    from survey_app.models import feature_labels

    choices = feature_labels(questions)  # a select-all question's choices: "sports — swimming", not sports__1
    data = [
        ("Survey", f"{survey.title} ({survey.slug}), {survey.get_status_display().lower()}"),
        ("Questions", f"{len(questions)}: {len(features)} asked as features ("
                      + ", ".join(q.name for q in features) + f") and the class question {class_name} "
                      f"(“{class_text}”)"),
        ("Model inputs", f"{len(model.attributes)}: "
                         + ", ".join(choices.get(a.name, a.name) for a in model.attributes)),
        ("Classes", ", ".join(model.classes)),
        ("Training reports", str(version.report_count)),
        ("Validation reports", str(int(metrics.get("validation_count") or 0))),
        ("Published", published),
    ]
    through = getattr(version, "through_day", None)  # the last UTC day whose reports the version includes
    if through is not None:
        data.append(("Reports received through", f"{through.isoformat()} (UTC)"))
    if not survey.validation_share:
        missing = "No accuracy estimate: the survey has no validation share, so nobody measures the model."
    elif protocol.accuracy_at_publication:
        missing = "No accuracy estimate: no validation report had been received when this version was published."
    else:
        missing = ("No accuracy estimate yet: validation respondents can test a version only after it is published, "
                   "so the estimate appears as they answer.")
    accuracy_card = _accuracy(accuracy)
    intended = [
        f"Describing, in aggregate, how the answers of this survey's respondents relate to {class_name} "
        f"({', '.join(model.classes)}): the frequency tables (CSV, Excel) give every estimate with its standard error.",
        f"Predicting {class_name} from a record of answers in the survey's answer format, as a screening or "
        "exploration aid, with the accuracy estimate and its interval in mind.",
    ]
    limitations = [
        "The model was estimated from randomized reports only: every parameter is an estimate with noise from the "
        "randomization and from sampling; few reports or strong privacy make the intervals wide.",
        "The data are the people who chose to answer this survey, not necessarily the population you care about; "
        "the model says nothing reliable about people unlike them.",
        "Naive Bayes assumes the answers are independent given the class; its class probabilities are often "
        "over-confident, even where its predictions are right.",
        "Not for decisions about an individual: the accuracy is an average over validation respondents, and a "
        "prediction can be wrong for anyone.",
        "ε and PSE describe what one respondent's randomized report reveals about them; they say nothing about what "
        "a prediction from someone's true answers reveals.",
    ]
    if method == "bound":
        limitations.append("The intervals of P(a | c) are conservative (upper bounds on the standard errors): the "
                           "true uncertainty is smaller than they suggest.")
    if accuracy_card is None:
        limitations.append("Without an accuracy estimate, treat the predictions as untested.")
    if warnings:
        limitations.append(f"This version has {len(warnings)} warning{'' if len(warnings) == 1 else 's'} (below): "
                           "check them before relying on it.")
    return {
        "title": f"Model card: {survey.title}, version {version.version}",
        "survey_title": survey.title, "slug": survey.slug, "version": version.version, "published": published,
        "data": data,
        "mechanism": _mechanism(survey, protocol, privacy, model, questions, order),
        "privacy": _with_texts(_privacy(privacy, protocol.grouped_privacy, order), questions),
        "accuracy": accuracy_card, "accuracy_missing": missing,
        "interval_method": method, "interval_sentence": INTERVAL_SENTENCES.get(method, INTERVAL_SENTENCES["none"]),
        "warnings": warnings,
        "notes": sum(not f["warning"] and f["kind"] != "report_check" for f in findings),
        "intended_use": intended, "limitations": limitations,
    }


def card_for(version, protocol=None) -> dict:
    """``model_card`` of a stored ``ModelVersion``: reads its survey's questions, protocol (unless given) and accuracy
    estimate."""
    from aggregator import services
    from survey_app.protocol import get_protocol

    survey = version.survey
    questions = list(survey.questions.order_by("position", "id").prefetch_related("choices"))
    accuracy = services.accuracy_by_version(survey).get(version.version)
    return model_card(version, protocol if protocol is not None else get_protocol(survey), questions, accuracy)


def question_texts(survey) -> dict[str, str]:
    """{engine feature or class name: its wording} of the survey's questions; a select-all question's yes/no
    features read “question — choice” (``survey_app.models.feature_texts``)."""
    from survey_app.models import feature_texts

    return feature_texts(survey.questions.prefetch_related("choices"))


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")


def _md(text) -> str:
    """Text from the survey (titles, names, labels) inside Markdown: special characters escaped, one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def model_card_markdown(card: dict) -> str:
    """The model card as Markdown (the same content as the HTML page)."""
    out = [f"# Model card: {_md(card['survey_title'])}, version {card['version']}", "",
           f"Published {card['published']}. Generated by Coinflip from the stored model version; every figure below is "
           "what the pipeline stored when it published this version.", "", "## Data", ""]
    out += [f"- **{label}:** {_md(value)}" for label, value in card["data"]]
    mechanism = card["mechanism"]
    settings = ", ".join(f"{symbol} = {_md(value)}" for symbol, value in mechanism["settings"])
    out += ["", "## Mechanism", "", f"**{_md(mechanism['name'])}** — {settings}", ""]
    out += [f"- {_md(sentence)}" for sentence in mechanism["sentences"]]
    privacy = card["privacy"]
    out += ["", "## Privacy", "", f"- **ε per respondent:** {privacy['epsilon']}"]
    if privacy["pse"]:
        out.append(f"- **PSE before / after mining:** {privacy['pse']}")
    if privacy["per_question"]:
        if privacy["has_pse"]:
            out += ["", "| Question | ε | PSE (uniform prior) | PSE before mining | PSE after mining |",
                    "|---|---|---|---|---|"]
            out += [f"| {_md(r.get('text', r['name']))} | {r['epsilon']} | {r['pse_uniform'] or '—'} | "
                    f"{r['pse_before'] or '—'} | {r['pse_after'] or '—'} |" for r in privacy["per_question"]]
        else:
            out += ["", "| Question | ε |", "|---|---|"]
            out += [f"| {_md(r.get('text', r['name']))} | {r['epsilon']} |" for r in privacy["per_question"]]
    out += ["", "## Accuracy", "",
            f"Estimated accuracy: {card['accuracy']['text']}." if card["accuracy"] else card["accuracy_missing"],
            "", card["interval_sentence"], "", "## Warnings", ""]
    if card["warnings"]:
        out += ["| What | Parameter | Entries | Standard errors | Detail |", "|---|---|---|---|---|"]
        out += [f"| {w['what']} | {_md(w['parameter'])} | {w['entries']} | {w['standard_errors']} | "
                f"{_md(w['detail'])} |" for w in card["warnings"]]
    else:
        out.append("No warnings.")
    if card["notes"]:
        out += ["", f"{card['notes']} finding(s) within noise (not warnings)."]
    out += ["", "## Intended use", ""] + [f"- {_md(x)}" for x in card["intended_use"]]
    out += ["", "## Limitations", ""] + [f"- {_md(x)}" for x in card["limitations"]]
    return "\n".join(out) + "\n"
