"""The validation share's accuracy estimates and their statistics (aggregator/privacy/validation.py).

Tolerances: means within 5 standard errors of the mean (SE/√reps) of the truth; the spread of the estimates within
a 5-sigma band of the reported standard error (the sample standard deviation of R normal draws has relative
standard deviation ≈ 1/√(2(R−1))). Fixed seeds throughout.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.privacy import monitoring
from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.naive_bayes.fit import fit_nonprivate
from aggregator.privacy.protocol import ReportError
from aggregator.privacy.stats import Counts
from aggregator.privacy.validation import RecordHistogram, VersionCounts, correct_oracle, ldp_accuracy

CLASS = {"kind": "categorical", "name": "c", "values": ["a", "b"]}
FEATURES = [{"kind": "categorical", "name": "x", "values": ["0", "1", "2"]},
            {"kind": "categorical", "name": "z", "values": ["0", "1"]}]


def synthetic(rng, n):
    """y ~ Bernoulli(0.4); x and z noisy copies of y, so a model can be right about 80 % of the time."""
    y = (rng.random(n) < 0.4).astype(np.int64)
    x = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    z = np.where(rng.random(n) < 0.7, y, 1 - y)
    return np.column_stack([x, z]).astype(np.float64), y


def build(mode, share=0.2, **kw):
    config = {"mode": mode, "class": CLASS, "features": FEATURES, "validation": {"share": share}}
    config.update({"ldp": {"epsilon": kw.get("epsilon", 1.0), "encoding": "oue"}} if mode == "ldp"
                  else {"mrr": {"theta": kw.get("theta", 0.6)}})
    return survey_protocol.build(config)


def check_unbiased(estimates, ses, truth):
    estimates, ses = np.asarray(estimates), np.asarray(ses)
    reps = len(estimates)
    assert abs(estimates.mean() - truth) <= 5 * ses.mean() / np.sqrt(reps)
    ratio = estimates.std(ddof=1) / ses.mean()
    assert abs(ratio - 1) <= 5 / np.sqrt(2 * (reps - 1))


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_ldp_accuracy_is_unbiased_with_calibrated_standard_error(epsilon):
    rng = np.random.default_rng(11)
    fo = correct_oracle(epsilon)
    truth, n = 0.8, 2000
    estimates, ses = [], []
    for _ in range(400):
        right = (rng.random(n) < truth).astype(np.int64)  # respondents sampled from a population with accuracy 0.8
        est = ldp_accuracy(fo.aggregate(fo.perturb(right, rng)), epsilon)
        estimates.append(est.estimate)
        ses.append(est.standard_error)
    check_unbiased(estimates, ses, truth)


def test_ldp_accuracy_formula_and_interval():
    fo = correct_oracle(1.0)
    counts = Counts(1000, np.array([300, 700]))
    est = ldp_accuracy(counts, 1.0)
    assert est.estimate == pytest.approx((700 - 1000 * fo.q) / (1000 * (fo.p - fo.q)))
    assert est.standard_error == pytest.approx(np.sqrt(0.7 * 0.3 / 1000) / (fo.p - fo.q))
    low, high = est.interval
    assert low == pytest.approx(est.estimate - 1.959964 * est.standard_error, abs=1e-6)
    assert high == pytest.approx(min(1.0, est.estimate + 1.959964 * est.standard_error), abs=1e-6)
    with pytest.raises(ValueError):
        ldp_accuracy(Counts(0, np.zeros(2, dtype=np.int64)), 1.0)


@pytest.mark.parametrize("mode", ["ldp", "mrr"])
def test_protocol_accuracy_estimates_cover_the_true_accuracy(mode):
    """Whole client + server halves: validation respondents drawn from a population, against the model's accuracy on
    that population (computed on 200,000 true rows)."""
    rng = np.random.default_rng(5)
    protocol = build(mode, theta=0.6, epsilon=1.0)
    X, y = synthetic(rng, 20_000)
    model = fit_nonprivate(protocol.class_attribute, protocol.features, X, y)
    Xp, yp = synthetic(rng, 200_000)
    truth = model.accuracy(Xp, yp)
    estimates, ses = [], []
    for _ in range(120):
        Xv, yv = synthetic(rng, 1500)
        _, inner = protocol.split(protocol.encode_validation(Xv, yv, rng, (1, model)))
        stats = protocol.validation_from_dict(protocol.validation_to_dict(protocol.fold_validation(inner)))
        est = protocol.accuracy(model, stats, 1)
        estimates.append(est.estimate)
        ses.append(est.standard_error)
    check_unbiased(estimates, ses, truth)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 1)), max_size=30), st.integers(0, 30))
def test_version_counts_add_up_over_shards(reports, cut):
    versions = [v for v, _ in reports]
    bits = [b for _, b in reports]
    whole = VersionCounts.fold(versions, bits)
    parts = VersionCounts.fold(versions[:cut], bits[:cut]) + VersionCounts.fold(versions[cut:], bits[cut:])
    assert parts == whole
    assert VersionCounts.from_dict(whole.to_dict()) == whole
    assert whole.n == len(reports)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1)), max_size=30), st.integers(0, 30))
def test_record_histograms_add_up_over_shards(records, cut):
    R = np.asarray(records, dtype=np.int64).reshape(len(records), 3)
    whole = RecordHistogram.fold(R)
    assert RecordHistogram.fold(R[:cut]) + RecordHistogram.fold(R[cut:]) == whole
    assert RecordHistogram.from_dict(whole.to_dict()) == whole
    assert sorted(map(tuple, whole.records().tolist())) == sorted(map(tuple, R.tolist()))


def test_respond_routes_the_share_and_ldp_needs_a_published_model():
    rng = np.random.default_rng(3)
    X, y = synthetic(rng, 2000)
    ldp = build("ldp", share=0.3)
    model = fit_nonprivate(ldp.class_attribute, ldp.features, X, y)
    without = [ldp.respond(X[i], y[i], rng) for i in range(300)]
    assert not any(ldp.is_validation(p) for p in without)
    with_model = [ldp.respond(X[i], y[i], rng, (2, model)) for i in range(2000)]
    share = np.mean([ldp.is_validation(p) for p in with_model])
    assert abs(share - 0.3) <= 5 * np.sqrt(0.3 * 0.7 / 2000)
    assert all(p["validation"]["version"] == 2 for p in with_model if ldp.is_validation(p))
    assert ldp.public()["validation"]["oracle"]["domain"] == 2
    mrr = build("mrr", share=0.3)
    share = np.mean([mrr.is_validation(mrr.respond(X[i], y[i], rng)) for i in range(2000)])
    assert abs(share - 0.3) <= 5 * np.sqrt(0.3 * 0.7 / 2000)


def test_validation_reports_are_checked():
    ldp = build("ldp")
    ldp.parse_one({"validation": {"version": 1, "report": 1}})
    for bad, field in [({"validation": {"version": 0, "report": 1}}, "validation.version"),
                       ({"validation": {"version": True, "report": 1}}, "validation.version"),
                       ({"validation": {"version": 1}}, "validation.report"),
                       ({"validation": {"version": 1, "report": 2}}, "validation.report"),
                       ({"validation": {"version": 1, "report": 0.5}}, "validation.report"),
                       ({"validation": "yes"}, "validation.version")]:
        with pytest.raises(ReportError) as info:
            ldp.parse_one(bad)
        assert info.value.field == field
    with pytest.raises(ReportError, match="no validation share"):
        build("ldp", share=0.0).parse_one({"validation": {"version": 1, "report": 1}})
    mrr = build("mrr")
    mrr.parse_one({"validation": {"answers": [0, 1, 1]}})
    with pytest.raises(ReportError):
        mrr.parse_one({"validation": {"answers": [0, 1]}})


def test_validation_share_configuration_is_checked():
    with pytest.raises(ValueError, match="validation share"):
        build("ldp", share=0.7)
    config = {"mode": "mrr", "class": CLASS, "features": FEATURES, "validation": {"share": 0.1},
              "mrr": {"theta": 0.6, "groups": [["x"], ["z", "c"]]}}
    with pytest.raises(ValueError, match="one group"):
        survey_protocol.build(config)
    survey_protocol.build({**config, "validation": {"share": 0}})


def test_monitoring_flags_raw_estimates_far_outside_the_unit_interval_and_jumps():
    rng = np.random.default_rng(8)
    protocol = build("ldp", epsilon=2.0)
    X, y = synthetic(rng, 20_000)
    honest = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    assert not any(f["warning"] for f in monitoring.out_of_range(honest))
    more = protocol.estimate(protocol.fold(protocol.encode(*synthetic(rng, 20_000), rng)))
    assert monitoring.jumps(honest, more) == []
    # Fake users who all claim (x = 2, class b): the joint estimate of that cell is pushed far above its truth.
    fake = protocol.encode(np.tile([2.0, 1.0], (8000, 1)), np.ones(8000, dtype=np.int64), rng)
    poisoned = protocol.estimate(protocol.fold(protocol.encode(X, y, rng) + fake))
    found = monitoring.jumps(honest, poisoned)
    assert any(f["parameter"] == "P(a ∧ c) x" for f in found)
    # A raw estimate 10 standard errors below zero is a warning; one slightly below is only reported.
    poisoned.metadata["prior_raw"] = [-0.5, 1.5]
    poisoned.metadata["prior_standard_errors"] = [0.05, 0.05]
    [finding] = [f for f in monitoring.out_of_range(poisoned) if f["parameter"] == "P(c)"]
    assert finding["warning"] and finding["entries"] == 2 and finding["worst_z"] == pytest.approx(10)
    poisoned.metadata["prior_raw"] = [-0.01, 1.01]
    [finding] = [f for f in monitoring.out_of_range(poisoned) if f["parameter"] == "P(c)"]
    assert not finding["warning"]


# -- choosing among candidates (validation.choose) ------------------------------------------------------------------
def _estimates(accuracies, n, epsilon, rng):
    """Each candidate's estimate from n validation respondents whose predictions are right with the given
    probability, through the binary randomized response a validation respondent uses."""
    from aggregator.privacy.validation import AccuracyEstimate

    oracle = correct_oracle(epsilon)
    out: dict[str, AccuracyEstimate | None] = {}
    for name, accuracy in accuracies.items():
        right = (rng.random(n) < accuracy).astype(np.int64)
        reports = np.asarray(oracle.perturb(right, rng), dtype=np.int64)
        out[name] = ldp_accuracy(Counts(n, np.bincount(reports, minlength=2)), epsilon)
    return out


@pytest.mark.parametrize("candidates", [2, 3])
def test_equal_candidates_switch_at_most_at_the_stated_error_rate(candidates):
    """All candidates equally accurate: ``choose`` keeps the incumbent with probability ≥ 97.5 % (a two-sided 95 %
    interval, Bonferroni over the challengers, can switch only through its lower side). 4,000 trials: the switch rate
    is ≤ 2.5 % + 4 SE (√(0.025·0.975/4000)), and above 0 (the test can fail: it does switch now and then)."""
    from aggregator.privacy.validation import choose

    rng = np.random.default_rng(21)
    names = ["default", "majority", "neg1"][:candidates]
    switched = sum(choose(_estimates(dict.fromkeys(names, 0.7), 300, 1.0, rng), "default").switched
                   for _ in range(4000))
    assert switched / 4000 <= 0.025 + 4 * np.sqrt(0.025 * 0.975 / 4000)
    assert switched > 0


@pytest.mark.parametrize("epsilon, gap", [(1.0, 0.1), (4.0, 0.05)])
def test_the_respondents_it_takes_give_the_stated_power(epsilon, gap):
    """At ``respondents_to_separate``'s size, a challenger ahead by ``gap`` is published with probability ≈ 80 %:
    1,000 trials, within 4 SE (√(0.8·0.2/1000)) of it, the normal approximation's error being far smaller at these
    sizes; at a quarter of that size (half the gap's z-score) the power is clearly lower."""
    from aggregator.privacy.validation import choose, respondents_to_separate

    n = respondents_to_separate(gap, epsilon, accuracy=0.6, candidates=2)
    rng = np.random.default_rng(5)
    won = np.mean([choose(_estimates({"default": 0.6, "neg1": 0.6 + gap}, n, epsilon, rng), "default").published
                   == "neg1" for _ in range(1000)])
    assert abs(won - 0.8) <= 4 * np.sqrt(0.8 * 0.2 / 1000)
    fewer = np.mean([choose(_estimates({"default": 0.6, "neg1": 0.6 + gap}, n // 4, epsilon, rng), "default").switched
                     for _ in range(1000)])
    assert fewer < 0.5
    assert respondents_to_separate(gap, epsilon, accuracy=0.6, candidates=3) > n  # Bonferroni over two challengers


def test_the_choice_says_why_and_never_picks_a_candidate_without_reports():
    from aggregator.privacy.validation import AccuracyEstimate, choose

    def est(a, se):
        return AccuracyEstimate(a, se, 100, "ldp-binary-rr")

    clear = choose({"default": est(0.60, 0.01), "majority": est(0.70, 0.01), "neg1": est(0.75, 0.04)}, "default")
    # majority: +10 ± 2.24·1.41 points, lower end 6.8; neg1: +15 ± 2.24·4.1, lower end 5.8 → the higher lower end
    assert clear.published == "majority" and clear.switched
    assert clear.differences["majority"][1] > clear.differences["neg1"][1] > 0
    assert clear.to_dict()["differences"]["majority"]["estimate"] == pytest.approx(0.10)
    kept = choose({"default": est(0.60, 0.01), "neg1": None}, "default")
    assert kept.published == "default" and not kept.switched and kept.differences == {}
    assert choose({"default": None, "neg1": est(0.9, 0.001)}, "default").published == "default"
    with pytest.raises(ValueError, match="incumbent"):
        choose({"neg1": est(0.9, 0.01)}, "default")
