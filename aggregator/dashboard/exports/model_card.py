"""A published version's model card as data (``model_card``, ``card_for``), which the HTML page
(``templates/dashboard/model_card.html``), the Markdown file and the workbook's summary show.

**Model card** (``model_card``, ``model_card_markdown``; the HTML page is ``templates/dashboard/model_card.html``):
the data, the mechanism in plain words (from the protocol's capabilities and the privacy figures stored with the
version, never from comparing mode strings), ε and PSE as stored in ``ModelVersion.privacy``, the accuracy estimate
with its interval (``services.accuracy_by_version``), the warnings stored in ``ModelVersion.metrics``, intended use
and limitations.
"""
from __future__ import annotations

from typing import Iterable, Sequence, cast

from django.utils import translation

from aggregator.privacy import oracles
from aggregator.privacy.continuous.approaches import APPROACH_CLASSES
from aggregator.privacy.jsonable import format_epsilon
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol import SETTING_SYMBOLS
from aggregator.privacy.public_prior import prior_sentence
from aggregator.privacy.schema import Categorical, Numeric
from aggregator.privacy.shrinkage import guard_sentence

from .. import charts

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
                         "randomized: " + "; ".join(
                             f"{q.name} ({', '.join(cast(Categorical, attributes[q.name]).values)})" for q in binned)
                         + ".")
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
    for sentence in (guard_sentence(model.metadata), prior_sentence(model.metadata)):
        if sentence is not None:
            sentences.append(sentence)
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
