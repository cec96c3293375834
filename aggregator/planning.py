"""The planner in the web app: run ``lab.planner.plan`` as a ``Job`` and apply a planned setting to a draft survey.

A planner job's ``params`` hold the reference data — a bundled data set's name (``dataset``) or the text of an
uploaded public CSV (``csv``) — and the plan's choices (``methods``, ``epsilons``, ``thetas``, ``reps``, ``target``,
``class_column``, optionally the planned number of ``respondents``); its ``result`` is ``Plan.to_dict()`` (JSON-safe:
NaN as null). ``tasks.planner_job`` calls ``run_job``; the dashboard's planner pages (aggregator/dashboard/planner.py)
start it and show the result, with ``usefulness_warning`` when the recommended setting is not expected to beat always
guessing the most frequent class.
"""
from __future__ import annotations

import io
from decimal import Decimal

from django.utils import formats
from django.utils.translation import gettext

from aggregator.lab.datasets import DATASETS_DIR
from aggregator.lab.planner import plan
from aggregator.privacy.jsonable import json_safe
from survey_app.models import Survey
from survey_app.tables import load_table, read_csv

from . import jobs
from .models import Job

__all__ = ["bundled_datasets", "reference_table", "run_job", "apply_setting", "NotADraft", "usefulness_warning",
           "percent", "usefulness_reason"]


def bundled_datasets() -> list[str]:
    """Names of the bundled public data sets (data/datasets/*.csv)."""
    return sorted(p.stem for p in DATASETS_DIR.glob("*.csv"))


def reference_table(params: dict):
    """The reference table a job's parameters name: a bundled data set or the uploaded CSV text."""
    if params.get("dataset"):
        if params["dataset"] not in bundled_datasets():
            raise ValueError(f"no bundled data set named {params['dataset']!r}")
        frame = read_csv(DATASETS_DIR / f"{params['dataset']}.csv")
    else:
        frame = read_csv(io.StringIO(params["csv"]))
    return load_table(frame, class_column=params.get("class_column") or None)


def run_job(job_id: int) -> None:
    """Compute the plan of planner job ``job_id`` with progress (``jobs.run``); the job ends done (result: the plan)
    or failed."""
    def work(reporter: jobs.Reporter) -> None:
        params = Job.objects.get(pk=job_id).params
        reporter.update(0.0, "Reading the reference data")
        try:
            table = reference_table(params)
            result = plan(table, params["methods"], params.get("epsilons", []), params.get("thetas", []),
                          reps=params["reps"], seed=params.get("seed", 0), target=params["target"],
                          respondents=params.get("respondents") or None,
                          progress=lambda done, total: reporter.update(done / total,
                                                                       f"{done} of {total} evaluations done"))
        except ValueError as exc:  # data or settings the lab refuses: say why
            reporter.failed(f"The planner cannot run: {exc}")
            return
        reporter.done(json_safe(result.to_dict()),
                      f"Evaluated {len(result.settings)} settings on {result.n_rows} rows.")

    jobs.run(job_id, work, "The planner failed")


def percent(fraction: float) -> str:
    """0.6138 → "61.4 %" in the active language's digits ("61,4 %" in German; one decimal: a model 0.6 points above
    the majority rule must not read as equal to it)."""
    return f"{formats.number_format(round(100 * fraction, 1), 1)} %"  # number_format cuts, so round first


def whole(count: int) -> str:
    """3000 → "3,000" in the active language's digits ("3.000" in German)."""
    return formats.number_format(int(count), force_grouping=True)


def setting_value(value: float) -> str:
    """A privacy setting's value as the planner shows it: 2.0 → "2", 0.1 → "0.1" ("0,1" in German)."""
    return formats.number_format(Decimal(f"{value:g}"))


def usefulness_warning(result: dict) -> str | None:
    """The warning the planner's result shows when the recommended setting, at the planned number of respondents, is
    not expected to beat always guessing the most frequent class (``Plan.expected["beats_majority"]``, the rule of
    ``lab.planner.beats_majority``), with its reason (``usefulness_reason``); ``None`` when it is, or for a plan
    without these figures (older runs)."""
    expected, rec = result.get("expected"), result.get("recommendation")
    majority = result.get("majority_accuracy")
    if not expected or not rec or majority is None or expected.get("beats_majority", True):
        return None
    symbol = "θ" if rec["parameter"] == "theta" else "ε"
    planned, simulated = expected["respondents"], expected["n_train"]
    close = abs(simulated - planned) <= max(2, 0.02 * planned)
    sizes = {"simulated": whole(simulated), "planned": whole(planned)}
    if not expected["simulated"]:
        at = gettext("At %(simulated)s respondents (the most this reference data can simulate; you plan "
                     "%(planned)s)") % sizes
    elif close:
        at = gettext("At %(planned)s respondents") % sizes
    else:
        at = gettext("At %(simulated)s respondents (the simulated size nearest the %(planned)s you plan)") % sizes
    low, high = expected.get("low"), expected.get("high")
    worse = high is not None and high < expected.get("majority", majority)  # the rule on the same test rows
    if low is None or high is None or percent(low) == percent(high):
        spread = percent(expected["accuracy"])
    else:
        spread = f"{percent(low).removesuffix(' %')}–{percent(high)}"  # one unit: "28.7–76.1 %"
    figures = {"at": at, "method": rec["method"], "symbol": symbol, "value": setting_value(rec["value"]),
               "class": result.get("majority_class") or gettext("the most frequent class"),
               "majority": percent(majority), "spread": spread}
    if worse:
        verdict = gettext("%(at)s, %(method)s at %(symbol)s = %(value)s is expected to do worse than always guessing "
                          "“%(class)s” (%(majority)s): the expected accuracy is %(spread)s.") % figures
    else:
        verdict = gettext("%(at)s, %(method)s at %(symbol)s = %(value)s is not expected to beat always guessing "
                          "“%(class)s” (%(majority)s): the expected accuracy is %(spread)s.") % figures
    needed = result.get("respondents_to_beat_majority")
    largest = max((p["n_train"] for p in result.get("learning_curve") or []), default=simulated)
    if needed is not None:
        advice = gettext("Plan on at least %(needed)s respondents or a larger %(symbol)s.") % {
            "needed": whole(needed), "symbol": symbol}
    elif not expected["simulated"]:
        advice = gettext("The reference data cannot tell whether %(planned)s would: plan on a larger %(symbol)s or "
                         "another mechanism, or plan again with a larger reference data set.") % {
            "planned": whole(planned), "symbol": symbol}
    else:
        advice = gettext("No size this reference data can simulate (up to %(largest)s) beats it: plan on more than "
                         "%(largest)s respondents or a larger %(symbol)s.") % {"largest": whole(largest),
                                                                                "symbol": symbol}
    reason = usefulness_reason(result)
    return " ".join(part for part in (verdict, reason, advice) if part)


def usefulness_reason(result: dict) -> str | None:
    """Why the expected model does not beat guessing (``usefulness_warning``), from the plan's figures: the data
    carries no class signal even without privacy; or, at the planned size, the model predicted the private majority
    rule's class for every record in at least half the repetitions (``Setting.matches_private_majority``; that rule
    can itself miss the most frequent class); or the model uses the answers but their noise leaves it no better.
    ``None`` for a plan without these figures (older runs)."""
    expected, rec = result.get("expected") or {}, result.get("recommendation") or {}
    symbol = "θ" if rec.get("parameter") == "theta" else "ε"
    nonprivate, test_majority = result.get("nonprivate_accuracy"), result.get("majority_test_accuracy")
    if nonprivate is not None and test_majority is not None and nonprivate <= test_majority:
        return gettext("Why: even without privacy, Naive Bayes on this reference data is right %(nonprivate)s of the "
                       "time, no better than guessing; its answers say too little about the class for any privacy "
                       "setting to help.") % {"nonprivate": percent(nonprivate)}
    private, reps = expected.get("private_majority"), expected.get("reps")
    if private is None or not reps:
        return None
    matches = int(expected.get("matches_private_majority") or 0)
    figures = {"symbol": symbol, "matches": matches, "reps": reps, "private": percent(private)}
    if 2 * matches >= reps:
        reason = gettext("Why: at this size and %(symbol)s, the randomization hides the answers' link to the class. In "
                         "%(matches)s of %(reps)s repetitions the model predicted, for every record, the class the "
                         "randomized reports rank most frequent (the private majority rule, which it falls back on "
                         "when the reports show no link).") % figures
    elif expected.get("accuracy", 0.0) > expected.get("majority", 1.0):
        reason = gettext("Why: the model uses the answers, but at this size and %(symbol)s the noise in its estimates "
                         "leaves its accuracy too uncertain to be sure it beats guessing.") % figures
    else:
        reason = gettext("Why: the model uses the answers, but at this size and %(symbol)s the noise in its estimates "
                         "costs more than the answers tell.") % figures
    top = expected.get("majority", private)  # the true majority rule on the same test rows
    if private < top and percent(private) != percent(top):
        reason += " " + gettext("The randomized reports do not always rank the most frequent class first either: the "
                                "private majority rule is right %(private)s of the time.") % figures
    return reason


class NotADraft(ValueError):
    """Only a draft survey's privacy settings may change (respondents of an open survey were promised them)."""


def apply_setting(survey: Survey, setting: dict) -> Survey:
    """Give draft ``survey`` a planned setting (a ``Plan.settings`` entry): its mode and ε or θ, the LDP encoding or
    Gaussian approach of the setting's protocol configuration (``Method.survey``)."""
    if survey.status != Survey.Status.DRAFT:
        raise NotADraft(gettext("“%(title)s” is %(status)s: only a draft's privacy settings can change.")
                        % {"title": survey.title, "status": survey.get_status_display().lower()})
    config = setting["config"]
    survey.mode = config["mode"]
    fields = ["mode"]
    if config["mode"] == Survey.Mode.MRR:
        survey.theta = config["mrr"]["theta"]
        fields.append("theta")
    else:
        survey.epsilon = config["ldp"]["epsilon"]
        fields.append("epsilon")
        # The encoding the plan ran (a Gaussian configuration names none: the engine's default, "adaptive"; it picks
        # the class oracle, and a mixed survey's categorical ones).
        survey.encoding = config["ldp"].get("encoding", "adaptive")
        fields.append("encoding")
        numeric = config.get("numeric")
        if numeric and numeric["handling"] == Survey.NumericHandling.GAUSSIAN:
            survey.numeric_handling, survey.gaussian_approach = Survey.NumericHandling.GAUSSIAN, numeric["approach"]
            fields += ["numeric_handling", "gaussian_approach"]
        else:
            survey.numeric_handling = Survey.NumericHandling.DISCRETIZE
            fields.append("numeric_handling")
    survey.full_clean()
    survey.save(update_fields=fields + ["updated_at"])
    return survey
