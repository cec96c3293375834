"""aggregator/dashboard/charts.py: chart JSON from stored versions, without a database.

Includes one statistical check: the MRR intervals (the Cauchy–Schwarz bound on the delta method, charts docstring)
cover the true P(a | c) at least 95 % of the time, over simulated surveys with a fixed seed."""
import json
import math
from datetime import date, timedelta
from itertools import pairwise

import numpy as np
import pytest

from aggregator.dashboard import charts
from aggregator.privacy import survey_protocol as sp
from aggregator.privacy.mrr import conditional_standard_error_bound
from aggregator.privacy.naive_bayes.fit import fit_nonprivate
from aggregator.privacy.schema import Categorical, Numeric

SMOKER = Categorical("smoker", ("never", "sometimes", "daily"))
REGION = Categorical("region", ("north", "south"))
SICK = Categorical("sick", ("no", "yes"))
AGE, WEIGHT = Numeric("age", 18, 98), Numeric("weight", 40, 160)
#: A known population: P(c) and P(a | c) per feature (columns are classes).
PRIOR = np.array([0.6, 0.4])
TRUE = [np.array([[0.5, 0.2], [0.3, 0.3], [0.2, 0.5]]), np.array([[0.7, 0.35], [0.3, 0.65]])]


def population(n, rng):
    """n rows drawn from PRIOR and TRUE (inverse CDF of each row's P(a | c))."""
    y = rng.choice(2, size=n, p=PRIOR)
    X = np.column_stack([(rng.random(n)[:, None] > np.cumsum(t, axis=0)[:, y].T).sum(axis=1) for t in TRUE])
    return X, y


def config(mode, features=(SMOKER, REGION), **extra):
    out = {"mode": mode, "class": SICK.to_dict(), "features": [a.to_dict() for a in features],
           "ldp": {"epsilon": 2.0, "encoding": "oue"}, "mrr": {"theta": 0.7}}
    out.update(extra)
    return out


def estimated(protocol, X, y, rng):
    return protocol.estimate(protocol.fold(protocol.encode(X, y, rng))).to_dict()


# -- reports over time ------------------------------------------------------------------------------------------
def test_reports_per_day_fill_the_empty_days_and_add_up_duplicates():
    d = date(2026, 3, 30)
    out = charts.reports_over_time([(d, 3, 1), (d + timedelta(days=2), 2, 0), (d, 1, 1)])
    assert out == {"bucket": "day", "labels": ["2026-03-30", "2026-03-31", "2026-04-01"],
                   "training": [4, 0, 2], "validation": [2, 0, 0]}


def test_long_surveys_are_counted_per_week_from_monday():
    start = date(2026, 1, 7)  # a Wednesday
    rows = [(start + timedelta(days=i), 1, i % 2) for i in range(0, 200, 3)]
    out = charts.reports_over_time(rows, max_daily_points=120)
    assert out["bucket"] == "week"
    assert out["labels"][0] == "2026-01-05"  # the Monday of the first report's week
    mondays = [date.fromisoformat(label) for label in out["labels"]]
    assert all(m.weekday() == 0 for m in mondays) and all((b - a).days == 7 for a, b in pairwise(mondays))
    assert sum(out["training"]) == len(rows) and sum(out["validation"]) == sum(r[2] for r in rows)


def test_no_reports_no_points():
    assert charts.reports_over_time([]) == {"bucket": "day", "labels": [], "training": [], "validation": []}


# -- accuracy ---------------------------------------------------------------------------------------------------
def test_accuracy_series_leaves_a_gap_for_versions_without_an_estimate():
    acc = {"estimate": 0.8, "standard_error": 0.05, "low": 0.702, "high": 0.898, "reports": 120,
           "method": "ldp-binary-rr"}
    out = charts.accuracy_series([3, 1, 2], {1: acc, 3: {**acc, "estimate": 1.02, "high": 1.0}})
    assert out["labels"] == ["v1", "v2", "v3"] and out["versions"] == [1, 2, 3]
    assert out["estimate"] == [0.8, None, 1.02]  # unbiased estimates may leave [0, 1]; intervals are clipped
    assert out["low"] == [0.702, None, 0.702] and out["high"] == [0.898, None, 1.0]
    assert out["reports"] == [120, 0, 120] and out["method"] == "ldp-binary-rr"


# -- distributions ----------------------------------------------------------------------------------------------
def test_z_is_the_95_percent_normal_quantile():
    assert charts.Z == pytest.approx(1.959964, abs=1e-6)


def test_ldp_intervals_are_the_published_conditionals_plus_minus_z_standard_errors(rng):
    X, y = population(4000, rng)
    protocol = sp.build(config("ldp"))
    model = estimated(protocol, X, y, rng)
    out = charts.attribute_distributions(model, protocol)
    assert [a["name"] for a in out] == ["smoker", "region"]
    for i, attr in enumerate(out):
        assert attr["kind"] == "categorical" and attr["interval_method"] == "delta"
        assert attr["classes"] == ["no", "yes"] and attr["values"] == list(model["attributes"][i]["values"])
        table = np.array(model["conditionals"][i])
        se = np.array(model["metadata"]["conditional_standard_errors"][i])
        for c, series in enumerate(attr["series"]):
            assert series["class"] == SICK.values[c]
            np.testing.assert_allclose(series["estimate"], table[:, c])
            np.testing.assert_allclose(series["low"], np.clip(table[:, c] - charts.Z * se[:, c], 0, 1))
            np.testing.assert_allclose(series["high"], np.clip(table[:, c] + charts.Z * se[:, c], 0, 1))


def test_mrr_intervals_use_the_conservative_bound(rng):
    X, y = population(3000, rng)
    protocol = sp.build(config("mrr"))
    model = estimated(protocol, X, y, rng)
    attr = charts.attribute_distributions(model, protocol)[0]
    assert attr["interval_method"] == "bound"
    meta = model["metadata"]
    r = np.array(model["conditionals"][0])
    se = ((np.array(meta["joint_standard_errors"][0]) + r * np.array(meta["prior_standard_errors"]))
          / np.array(model["prior"]))
    np.testing.assert_allclose(attr["series"][1]["high"], np.clip(r[:, 1] + charts.Z * se[:, 1], 0, 1))
    np.testing.assert_allclose(conditional_standard_error_bound(r, meta["joint_standard_errors"][0], model["prior"],
                                                                meta["prior_standard_errors"]), se)


def test_a_class_with_no_prior_mass_gets_the_whole_range():
    se = conditional_standard_error_bound([[0.5, 0.5], [0.5, 0.5]], [[0.01, 0.01]] * 2, [1.0, 0.0], [0.01, 0.01])
    assert np.isfinite(se[:, 0]).all() and np.isinf(se[:, 1]).all()


@pytest.mark.parametrize("groups", [None, [["smoker", "sick"], ["region"]]], ids=["one group", "two groups"])
def test_mrr_intervals_cover_the_true_conditionals_at_least_95_percent(groups):
    """Over R simulated surveys (n = 3000, θ = 0.7), the share of intervals holding the true P(a | c), pooled over
    the 10 entries, must not fall below 95 % by more than 4 binomial standard errors of R draws (entries of one
    survey are dependent, so R — not 10·R — is the honest count). Being a bound, it should cover more."""
    reps, n = 300, 3000
    rng = np.random.default_rng(20261123)
    mrr = {"theta": 0.7, **({"groups": groups} if groups else {})}
    protocol = sp.build(config("mrr", mrr=mrr))
    covered = []
    for _ in range(reps):
        X, y = population(n, rng)
        stats = protocol.scheme.aggregate(protocol.scheme.perturb(np.column_stack([X, y]), rng))
        distributions = charts.attribute_distributions(protocol.estimate(stats).to_dict(), protocol)
        for attr, truth in zip(distributions, TRUE, strict=True):
            for c, series in enumerate(attr["series"]):
                covered.extend((np.array(series["low"]) <= truth[:, c]) & (truth[:, c] <= np.array(series["high"])))
    coverage = float(np.mean(covered))
    print(f"coverage {coverage:.4f} over {reps} surveys")
    assert coverage >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / reps), coverage


def test_gaussian_intervals_are_means_plus_minus_z_standard_errors(rng):
    n = 6000
    y = rng.choice(2, size=n, p=PRIOR)
    X = np.column_stack([np.where(y == 1, 60, 40) + 8 * rng.standard_normal(n),
                         np.where(y == 1, 90, 75) + 10 * rng.standard_normal(n)])
    protocol = sp.build(config("ldp", features=(AGE, WEIGHT), numeric={"handling": "gaussian", "approach": 3}))
    model = estimated(protocol, X, y, rng)
    out = charts.attribute_distributions(model, protocol)
    for i, (attr, bounds) in enumerate(zip(out, (AGE, WEIGHT), strict=True)):
        assert attr["kind"] == "numeric" and attr["interval_method"] == "delta"
        assert (attr["low_bound"], attr["high_bound"]) == (bounds.low, bounds.high)
        mu, sigma = np.array(model["conditionals"][i])
        se = np.array(model["metadata"]["mean_standard_errors"][i])
        np.testing.assert_allclose(attr["estimate"], mu)
        np.testing.assert_allclose(attr["sigma"], sigma)
        np.testing.assert_allclose(attr["low"], np.clip(mu - charts.Z * se, bounds.low, bounds.high))
        np.testing.assert_allclose(attr["high"], np.clip(mu + charts.Z * se, bounds.low, bounds.high))


def test_a_model_without_standard_errors_shows_estimates_only(rng):
    X, y = population(500, rng)
    model = fit_nonprivate(SICK, [SMOKER, REGION], X, y).to_dict()
    attr = charts.attribute_distributions(model)[0]
    assert attr["interval_method"] == "none"
    assert attr["series"][0]["low"] == [None] * 3 and attr["series"][0]["high"] == [None] * 3
    assert attr["series"][0]["estimate"] == pytest.approx(np.array(model["conditionals"][0])[:, 0].tolist())


# -- privacy ----------------------------------------------------------------------------------------------------
MRR_PRIVACY = {
    "mode": "mrr", "epsilon_per_question": {"smoker": 2.1, "region": 1.7, "sick": 1.7}, "epsilon_per_respondent": 4.2,
    "pse_per_question": {"smoker": 0.4, "region": 0.25, "sick": 0.25},
    "pse_before_mining": {"smoker": 0.35, "region": 0.2, "sick": 0.22},
    "pse_after_mining": {"smoker": 0.1, "region": 0.0, "sick": 0.05},
    "groups": [{"attributes": ["smoker", "sick"], "pse": 0.25, "pse_before_mining": 0.22, "pse_after_mining": 0.05},
               {"attributes": ["region"], "pse": 0.25, "pse_before_mining": 0.2, "pse_after_mining": 0.0}],
}
LDP_PRIVACY = {"mode": "ldp", "epsilon_per_question": {"sick": 1.0, "smoker": 1.0}, "epsilon_per_respondent": 1.0}


def test_privacy_per_attribute_in_question_order():
    out = charts.privacy_per_attribute(MRR_PRIVACY)
    assert out["labels"] == ["smoker", "region", "sick"] and out["epsilon"] == [2.1, 1.7, 1.7]
    assert out["pse_before"] == [0.35, 0.2, 0.22] and out["pse_after"] == [0.1, 0.0, 0.05]
    assert out["pse_uniform"] == [0.4, 0.25, 0.25] and out["epsilon_per_respondent"] == 4.2
    ldp = charts.privacy_per_attribute(LDP_PRIVACY)
    assert ldp["labels"] == ["sick", "smoker"] and ldp["pse_before"] is None and ldp["pse_after"] is None


def test_privacy_summary_takes_the_lowest_pse_over_the_groups():
    assert charts.privacy_summary(MRR_PRIVACY) == {"mode": "mrr", "epsilon_per_respondent": 4.2, "pse_before": 0.2,
                                                   "pse_after": 0.0, "pse_uniform": 0.25,
                                                   "pse_before_group": ["region"], "pse_after_group": ["region"],
                                                   "epsilon_per_respondent_known_personal": None, "epsilon_note": None}
    # the headline names the group each lowest figure comes from, which may differ before and after mining
    other = {**MRR_PRIVACY, "groups": [{**MRR_PRIVACY["groups"][0], "pse_before_mining": 0.1},
                                       MRR_PRIVACY["groups"][1]]}
    summary = charts.privacy_summary(other)
    assert (summary["pse_before"], summary["pse_before_group"]) == (0.1, ["smoker", "sick"])
    assert (summary["pse_after"], summary["pse_after_group"]) == (0.0, ["region"])
    assert charts.privacy_summary(LDP_PRIVACY)["pse_before"] is None
    assert charts.privacy_summary(None)["epsilon_per_respondent"] is None


def test_infinite_and_known_personal_epsilon_reach_the_chart_flagged():
    """Issue 11 item 4: ∞ is stored as "Infinity" (``json_safe``); the chart JSON gets a gap and a flag (JSON has no
    ∞), the page's summary the float ∞; the known-personal figures stand beside the others with the note."""
    protocol = sp.build({**config("mrr"), "mrr": {"theta": 0.7, "groups": [["smoker"], ["region", "sick"]],
                                                  "personal_mode": {"smoker": "real"}}})
    privacy = protocol.privacy()
    out = charts.privacy_per_attribute(privacy)
    json.dumps(out, allow_nan=False)
    assert out["labels"] == ["smoker", "region", "sick"]
    assert out["epsilon_infinite"] == [False] * 3 and all(v > 0 for v in out["epsilon"])
    assert out["epsilon_known_personal"][0] is None and out["epsilon_known_personal_infinite"] == [True, False, False]
    assert out["epsilon_known_personal"][1:] == out["epsilon"][1:]
    assert out["epsilon_per_respondent_known_personal_infinite"] is True and "knows" in out["epsilon_note"]
    summary = charts.privacy_summary(privacy)
    assert summary["epsilon_per_respondent_known_personal"] == math.inf
    assert summary["epsilon_per_respondent"] == pytest.approx(float(privacy["epsilon_per_respondent"]))
    assert summary["epsilon_note"] == privacy["epsilon_note"]
    whole = charts.privacy_per_attribute({**LDP_PRIVACY, "epsilon_per_question": {"sick": "Infinity", "smoker": 1.0},
                                          "epsilon_per_respondent": "Infinity"})
    assert whole["epsilon"] == [None, 1.0] and whole["epsilon_infinite"] == [True, False]
    assert whole["epsilon_per_respondent"] is None and whole["epsilon_per_respondent_infinite"] is True
    assert whole["epsilon_known_personal"] is None
    assert charts.privacy_summary({"epsilon_per_respondent": "Infinity"})["epsilon_per_respondent"] == math.inf


def test_real_mrr_privacy_figures_summarise(rng):
    X, y = population(2000, rng)
    protocol = sp.build(config("mrr"))
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    privacy = protocol.model_privacy(model)
    out = charts.privacy_summary(privacy)
    assert out["pse_before"] == min(privacy["pse_before_mining"].values())  # one group: all questions
    assert out["pse_after"] == min(privacy["pse_after_mining"].values()) <= out["pse_before"]
    per = charts.privacy_per_attribute(privacy)
    assert per["labels"] == ["smoker", "region", "sick"]
    # issue 11 item 5: the informative PSE after mining (exact: 12 records), the paper-literal one beside it
    assert per["pse_after_method"] == "exact" and per["pse_after_se"] == [0.0, 0.0, 0.0]
    assert per["pse_after_paper"] == [privacy["pse_after_mining_paper"][n] for n in per["labels"]]


# -- findings ---------------------------------------------------------------------------------------------------
METRICS = {
    "out_of_range": [
        {"parameter": "P(a ∧ c) smoker", "entries": 2, "worst_z": 5.5, "min": -0.2, "max": 0.6, "warning": True},
        {"parameter": "P(c)", "entries": 1, "worst_z": 0.4, "min": -0.01, "max": 1.0, "warning": False},
    ],
    "jumps": [
        {"parameter": "P(a ∧ c) region", "entries": 1, "worst_z": "Infinity", "from": 0.1, "to": 0.5, "warning": True},
    ],
}


def test_findings_list_every_version_newest_first_with_their_kind():
    out = charts.findings([(1, {"out_of_range": [], "jumps": []}), (2, METRICS)])
    assert [(f["version"], f["kind"], f["warning"]) for f in out] == [
        (2, "out_of_range", True), (2, "out_of_range", False), (2, "jump", True)]
    assert out[0]["worst_z"] == 5.5 and out[0]["min"] == -0.2 and out[0]["max"] == 0.6
    assert out[2]["worst_z"] is None and (out[2]["from"], out[2]["to"]) == (0.1, 0.5)  # infinite: a zero SE


def test_warning_count_counts_warnings_only():
    assert charts.warning_count(METRICS) == 2
    assert charts.warning_count({}) == 0 and charts.warning_count(None) == 0


def test_monitoring_findings_of_a_poisoned_version_become_warnings(rng):
    """A second version whose reports were flooded with one fake answer jumps: the finding reaches the chart JSON."""
    from aggregator.privacy import monitoring

    protocol = sp.build(config("mrr"))
    X, y = population(3000, rng)
    first = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    fake = np.tile([2, 1], (1500, 1)), np.ones(1500, dtype=np.int64)
    both = protocol.encode(np.vstack([X, fake[0]]), np.concatenate([y, fake[1]]), rng)
    second = protocol.estimate(protocol.fold(both))
    metrics = {"out_of_range": monitoring.out_of_range(second), "jumps": monitoring.jumps(first, second)}
    rows = charts.findings([(2, metrics)])
    assert any(f["kind"] == "jump" and f["warning"] for f in rows)
    assert charts.warning_count(metrics) >= 1
