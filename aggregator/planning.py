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

from django.utils.translation import gettext

from aggregator.lab.datasets import DATASETS_DIR
from aggregator.lab.planner import plan
from aggregator.privacy.jsonable import json_safe
from survey_app.models import Survey
from survey_app.tables import load_table, read_csv

from . import jobs
from .models import Job

__all__ = ["bundled_datasets", "reference_table", "run_job", "apply_setting", "NotADraft", "usefulness_warning",
           "percent"]


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
                                                                       f"Evaluated {done} of {total} settings"))
        except ValueError as exc:  # data or settings the lab refuses: say why
            reporter.failed(f"The planner cannot run: {exc}")
            return
        reporter.done(json_safe(result.to_dict()),
                      f"Evaluated {len(result.settings)} settings on {result.n_rows} rows.")

    jobs.run(job_id, work, "The planner failed")


def percent(fraction: float) -> str:
    """0.6138 → "61.4 %" (one decimal: a model 0.6 points above the majority rule must not read as equal to it)."""
    return f"{100 * fraction:.1f} %"


def usefulness_warning(result: dict) -> str | None:
    """The warning the planner's result shows when the recommended setting, at the planned number of respondents, is
    not expected to beat always guessing the most frequent class (``Plan.expected["beats_majority"]``, the rule of
    ``lab.planner.beats_majority``); ``None`` when it is, or for a plan without these figures (older runs)."""
    expected, rec = result.get("expected"), result.get("recommendation")
    majority = result.get("majority_accuracy")
    if not expected or not rec or majority is None or expected.get("beats_majority", True):
        return None
    symbol = "θ" if rec["parameter"] == "theta" else "ε"
    planned, simulated = expected["respondents"], expected["n_train"]
    close = abs(simulated - planned) <= max(2, 0.02 * planned)
    if not expected["simulated"]:
        at = (f"At {simulated:,} respondents (the most this reference data can simulate; you plan {planned:,})")
    elif close:
        at = f"At {planned:,} respondents"
    else:
        at = f"At {simulated:,} respondents (the simulated size nearest the {planned:,} you plan)"
    low, high = expected.get("low"), expected.get("high")
    worse = high is not None and high < expected.get("majority", majority)  # the rule on the same test rows
    verdict = "is expected to do worse than" if worse else "is not expected to beat"
    if low is None or high is None or percent(low) == percent(high):
        spread = percent(expected["accuracy"])
    else:
        spread = f"{percent(low).removesuffix(' %')}–{percent(high)}"
    needed = result.get("respondents_to_beat_majority")
    largest = max((p["n_train"] for p in result.get("learning_curve") or []), default=simulated)
    if needed is not None:
        advice = f"Plan on at least {needed:,} respondents or a larger {symbol}."
    elif not expected["simulated"]:
        advice = (f"The reference data cannot tell whether {planned:,} would: plan on a larger {symbol} or another "
                  "mechanism, or plan again with a larger reference data set.")
    else:
        advice = (f"No size this reference data can simulate (up to {largest:,}) beats it: plan on more than "
                  f"{largest:,} respondents or a larger {symbol}.")
    return (f"{at}, {rec['method']} at {symbol} = {rec['value']:g} {verdict} always guessing "
            f"“{result.get('majority_class', 'the most frequent class')}” ({percent(majority)}): the expected "
            f"accuracy is {spread}. {advice}")


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
