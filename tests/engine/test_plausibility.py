"""privacy.plausibility: additive per-report statistics and their checks on honest data (issue 5).

Tolerances come from the theory: means within 5 standard errors, variances within 5 standard errors of a sample
variance (√((κ₄ + 2σ⁴)/n)). The false-alarm rate of every check is stated by the module (2Φ(−4) ≈ 6.3·10⁻⁵ per
two-sided check, Bonferroni for the pairs); honest data must raise no warning at the sizes used in
tests/lab/test_poisoning.py, over fixed seeds.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from aggregator.privacy import noise, oracles
from aggregator.privacy import plausibility as pl
from aggregator.privacy.monitoring import Z_WARN
from aggregator.privacy.protocol import build

ORACLES = [("oue", 6, 1.0), ("oue", 24, 2.0), ("sue", 12, 1.0), ("the", 8, 1.0), ("she", 8, 1.0), ("olh", 8, 1.0),
           ("olh", 24, 3.0), ("de", 6, 1.0)]


def skewed(d, rng, zeros=0):
    """A skewed distribution over d values, the last ``zeros`` of them never taken."""
    f = rng.dirichlet(np.full(d, 0.5))
    if zeros:
        f[-zeros:] = 0
        f /= f.sum()
    return f


@pytest.mark.parametrize("name, d, eps", ORACLES)
def test_sums_are_additive_and_round_trip(name, d, eps):
    rng = np.random.default_rng(1)
    fo = oracles.get(name, epsilon=eps, domain=d)
    values = rng.integers(0, d, 900)
    a, b = fo.perturb(values[:400], rng), fo.perturb(values[400:], rng)
    both = (tuple(np.concatenate(x) for x in zip(a, b, strict=True)) if name == "olh" else np.concatenate([a, b]))
    s = pl.sums(fo, a) + pl.sums(fo, b)
    assert s == pl.sums(fo, both)
    assert s == pl.ReportSums.from_dict(s.to_dict())
    assert pl.ReportSums.zero(fo) + s == s
    assert s.counts == fo.aggregate(both)


@pytest.mark.parametrize("name, d, eps", [o for o in ORACLES if o[0] not in ("she",)])
def test_support_matrix_agrees_with_the_oracle(name, d, eps):
    """Column sums of the support matrix are the oracle's support counts; DE rows are one-hot."""
    rng = np.random.default_rng(2)
    fo = oracles.get(name, epsilon=eps, domain=d)
    reports = fo.perturb(rng.integers(0, d, 3000), rng)
    B = pl.support_matrix(fo, reports)
    np.testing.assert_array_equal(B.sum(axis=0), fo.aggregate(reports).support)
    if name == "de":
        assert (B.sum(axis=1) == 1).all()


@pytest.mark.parametrize("name, d, eps", [o for o in ORACLES if o[0] not in ("de",)])
def test_honest_totals_have_the_stated_moments(name, d, eps):
    """Mean of S within 5 standard errors of μ for every protocol; variance within 5 standard errors of σ² for the
    protocols whose components are independent (not OLH, whose hash family is only pairwise independent: there the
    measured variance is larger, as the module docstring says)."""
    rng = np.random.default_rng(3)
    fo = oracles.get(name, epsilon=eps, domain=d)
    n = 40_000
    reports = fo.perturb(rng.choice(d, size=n, p=skewed(d, rng)), rng)
    if name == "she":
        S = reports.sum(axis=1)
    else:
        S = pl.support_matrix(fo, reports).sum(axis=1).astype(float)
    mu, var, k4 = pl.honest_moments(fo)
    assert abs(S.mean() - mu) < 5 * np.sqrt(S.var() / n)
    if name == "olh":
        assert S.var() > var  # collisions of three values are positively correlated
    else:
        assert abs(S.var(ddof=1) - var) < 5 * np.sqrt((k4 + 2 * var**2) / n)


def test_discrete_laplace_fourth_cumulant():
    """κ₄ of the grid noise: the fourth moment μ₄ = κ₄ + 3κ₂² of 4·10⁶ draws (mean 0) within 5 standard errors, and
    the continuous limit 12b⁴."""
    scale = 0.7
    x = noise.discrete_laplace(np.random.default_rng(4), scale, 4_000_000)
    k2 = noise.discrete_laplace_variance(scale)
    k4 = pl._laplace_fourth_cumulant(scale)
    fourth = x**4
    assert abs(fourth.mean() - (k4 + 3 * k2**2)) < 5 * fourth.std() / np.sqrt(x.size)
    assert k4 == pytest.approx(12 * scale**4, rel=1e-3)


def test_pair_statistic_has_mean_zero_for_any_data():
    """D_uv = Σ (b_u − q)(b_v − q) of honest OUE reports, with a very skewed distribution (two values take 90 %):
    the pair z-scores of 100 independent samples average 0 and have spread 1 within their sampling error."""
    fo = oracles.get("oue", epsilon=1.0, domain=6)
    rng = np.random.default_rng(5)
    f = np.array([0.45, 0.45, 0.05, 0.05, 0.0, 0.0])
    zs = []
    for _ in range(100):
        s = pl.sums(fo, fo.perturb(rng.choice(6, size=2000, p=f), rng))
        u, v = np.triu_indices(6, k=1)
        c = s.counts.support.astype(float)
        D = s.pairs - fo.q * (c[u] + c[v]) + s.n * fo.q**2
        c_t = np.clip(fo.estimate(s.counts), 0, s.n)
        var = s.n * (fo.q * (1 - fo.q)) ** 2 + (c_t[u] + c_t[v]) * fo.q * (1 - fo.q) * (
            fo.p * (1 - fo.p) + (fo.p - fo.q) ** 2 - fo.q * (1 - fo.q))
        zs.append(D / np.sqrt(var))
    zs = np.asarray(zs)  # (100, 15)
    assert abs(zs.mean()) < 5 / np.sqrt(zs.size)
    assert abs(zs.std() - 1) < 5 / np.sqrt(2 * zs.size)


@pytest.mark.parametrize("name, d, eps", ORACLES)
def test_honest_data_raises_no_warning(name, d, eps):
    """20 fixed seeds × skewed data with values of frequency 0, n = 20,000: no check warns. At 6.3·10⁻⁵ per check
    (a few checks per sample) the chance of any warning here is below 1 %."""
    fo = oracles.get(name, epsilon=eps, domain=d)
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        values = rng.choice(d, size=20_000, p=skewed(d, rng, zeros=d // 4))
        found = pl.check(pl.sums(fo, fo.perturb(values, rng)), fo, label="x: ")
        assert not [f for f in found if f["warning"]], (seed, found)
        checks = {f["check"] for f in found}
        expected = {"de": set(), "olh": {"mass"}, "she": {"mass", "spread"}}.get(name, {"mass", "spread", "pairs"})
        assert expected <= checks


def test_checks_flag_crafted_reports():
    """Reports that support every value (all OUE bits set) break mass, spread and pairs at once; DE reports of a
    single value push the others' estimates below 0."""
    fo = oracles.get("oue", epsilon=1.0, domain=8)
    rng = np.random.default_rng(6)
    honest = fo.perturb(rng.integers(0, 8, 5000), rng)
    crafted = np.concatenate([honest, np.full((500, 1), 0xFF, dtype=np.uint8)])
    warned = {f["check"] for f in pl.check(pl.sums(fo, crafted), fo) if f["warning"]}
    assert {"mass", "spread", "pairs"} <= warned
    de = oracles.get("de", epsilon=1.0, domain=4)
    reports = np.concatenate([de.perturb(rng.integers(0, 4, 5000), rng), np.zeros(3000, dtype=np.int64)])
    found = pl.check(pl.sums(de, reports), de)
    assert [f["check"] for f in found if f["warning"]] == ["range"]


def test_small_inputs_are_not_checked():
    fo = oracles.get("oue", epsilon=1.0, domain=8)
    rng = np.random.default_rng(7)
    s = pl.sums(fo, fo.perturb(rng.integers(0, 8, pl.MIN_REPORTS - 1), rng))
    assert {f["check"] for f in pl.check(s, fo)} <= {"range"}


def test_pair_threshold_is_bonferroni():
    fo = oracles.get("oue", epsilon=1.0, domain=24)
    rng = np.random.default_rng(8)
    reports = fo.perturb(rng.integers(0, 24, 2000), rng)
    (pairs,) = [f for f in pl.check(pl.sums(fo, reports), fo) if f["check"] == "pairs"]
    assert pairs["threshold"] == pytest.approx(norm.isf(2 * norm.sf(Z_WARN) / (24 * 23 / 2)))


def test_domains_beyond_the_pair_limit_keep_no_pairs():
    fo = oracles.get("oue", epsilon=1.0, domain=pl.MAX_PAIR_DOMAIN + 1)
    s = pl.sums(fo, fo.perturb(np.zeros(10, dtype=np.int64), np.random.default_rng(9)))
    assert s.pairs is None and pl.ReportSums.zero(fo).pairs is None


# -- whole surveys --------------------------------------------------------------------------------------------------

BASE = {"class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
        "features": [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
                     {"kind": "numeric", "name": "age", "low": 18, "high": 98}]}


def survey(encoding="oue", strategy="one-report", mode="ldp"):
    if mode == "mrr":
        return build({**BASE, "mode": "mrr", "mrr": {"theta": 0.7}})
    return build({**BASE, "mode": "ldp", "ldp": {"epsilon": 1.0, "encoding": encoding, "strategy": strategy}})


def respondents(protocol, n, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.uniform(18, 98, n)])
    y = (X[:, 0] == 2).astype(np.int64)
    return protocol.encode(X, y, rng)


@pytest.mark.parametrize("encoding, strategy", [("oue", "one-report"), ("olh", "one-report"), ("de", "split"),
                                                ("the", "one-report"), ("adaptive", "split")])
def test_protocol_checks_fold_additively(encoding, strategy):
    protocol = survey(encoding, strategy)
    payloads = respondents(protocol, 3000)
    whole = pl.protocol_checks(protocol, payloads)
    parts = pl.protocol_checks(protocol, payloads[:1000]) + pl.protocol_checks(protocol, payloads[1000:])
    assert whole == parts == pl.zero_stats(protocol) + whole
    assert whole == pl.PlausibilityStats.from_dict(whole.to_dict())
    assert whole == pl.report_checks(protocol, protocol.parse(payloads))
    assert pl.protocol_checks(protocol, []) == pl.zero_stats(protocol)
    found = pl.findings(protocol, whole)
    assert not [f for f in found if f["warning"]]
    assert {f["parameter"].split(":")[0] for f in found if f["check"] == "range"} <= {"class sick", "smoker × sick",
                                                                                     "age × sick"}
    assert ("assignment" in {f["check"] for f in found}) == (strategy == "one-report")


def test_assignment_check_sees_users_who_all_pick_one_input():
    protocol = survey("oue")
    payloads = respondents(protocol, 6000)
    fake = [p for p in respondents(protocol, 6000, seed=1) if p["input"] == 1][:400]
    (honest,) = [f for f in pl.findings(protocol, pl.protocol_checks(protocol, payloads)) if f["check"] == "assignment"]
    (skewed_,) = [f for f in pl.findings(protocol, pl.protocol_checks(protocol, payloads + fake))
                  if f["check"] == "assignment"]
    assert not honest["warning"]
    assert skewed_["warning"] and skewed_["input"] == "smoker × sick"


def test_mrr_has_no_report_checks_and_gaussian_checks_its_class_oracle():
    mrr = survey(mode="mrr")
    assert pl.protocol_checks(mrr, respondents(mrr, 50)) is None and pl.findings(mrr, None) == []
    gauss = build({"mode": "ldp", "class": BASE["class"], "ldp": {"epsilon": 1.0, "encoding": "oue"},
                   "features": [BASE["features"][1]], "numeric": {"handling": "gaussian", "approach": 3}})
    rng = np.random.default_rng(0)
    payloads = gauss.encode(rng.uniform(18, 98, (4000, 1)), rng.integers(0, 2, 4000), rng)
    stats = pl.protocol_checks(gauss, payloads)
    assert len(stats.per_input) == 1 and stats.per_input[0].n == sum(p["group"] == 0 for p in payloads)
    found = pl.findings(gauss, stats, gauss.fold(payloads))
    assert all(f["parameter"].startswith("class sick: ") for f in found if f["check"] != "assignment")
    (assignment,) = [f for f in found if f["check"] == "assignment"]
    assert assignment["reports"] == 4000 and not assignment["warning"]
    with pytest.raises(ValueError, match="survey statistics"):
        pl.findings(gauss, stats)


NUMERIC_ONLY = {**BASE, "features": [BASE["features"][1]]}
MIXED = {**BASE, "features": [*BASE["features"], {"kind": "numeric", "name": "bmi", "low": 10, "high": 50}]}


@pytest.mark.parametrize("features, group", [(NUMERIC_ONLY, "mean"), (MIXED, "mean"), (MIXED, "square")])
def test_assignment_check_counts_the_number_groups(features, group):
    """Gaussian and mixed surveys: fake users who all send a number vector of one group (a share 400/6,400 above its
    published one) are flagged by the assignment check, which honest respondents pass (Z_WARN standard errors)."""
    protocol = build({**features, "mode": "ldp", "ldp": {"epsilon": 1.0, "encoding": "oue"},
                      "numeric": {"handling": "gaussian", "approach": 3}})
    width = len(features["features"])

    def payloads(n, seed):
        rng = np.random.default_rng(seed)
        columns = {"smoker": rng.integers(0, 3, n), "age": rng.uniform(18, 98, n), "bmi": rng.uniform(10, 50, n)}
        X = np.column_stack([columns[f["name"]] for f in features["features"]])
        return protocol.encode(X, (rng.random(n) < 0.4).astype(np.int64), rng)

    def assignment_finding(wire):
        (finding,) = [f for f in pl.findings(protocol, pl.protocol_checks(protocol, wire), protocol.fold(wire))
                      if f["check"] == "assignment"]
        return finding

    honest = payloads(6000, 0)
    index = len(protocol.assignment_probabilities()) - (2 if group == "mean" else 1)
    key = "group" if width == 1 else "input"
    fake = [p for p in payloads(20000, 1) if p[key] == index][:400]
    assert len(fake) == 400
    clean, flagged = assignment_finding(honest), assignment_finding(honest + fake)
    assert not clean["warning"] and clean["reports"] == 6000
    assert flagged["warning"] and flagged["input"] == f"numeric answers, {group} group" and flagged["reports"] == 6400
