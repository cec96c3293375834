"""LDP Gaussian Naive Bayes (SPEC §5b): unbiased class-conditional sums m_ic with the derived variances for all three
approaches, exact ε calibration (grid Laplace pmf, one-bit probabilities), additivity and round trips, the estimate's
parameters and standard errors, the variance floor, shares and validation."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, chi2

from aggregator.privacy import noise
from aggregator.privacy.continuous.gaussian import (
    MEAN,
    PRIOR,
    SIGMA_FLOOR,
    SQUARE,
    GaussianReports,
    GaussianStats,
    LDPGaussianNB,
    MomentSums,
)
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.schema import Categorical, Numeric

CLS = Categorical("class", ("a", "b", "c"))
ATTRS = (Numeric("height", 140.0, 200.0), Numeric("score", -5.0, 5.0))
P_C = np.array([0.4, 0.35, 0.25])
# x̃_i | c ~ Uniform(LO[i, c], HI[i, c]) in normalised units: E = (LO + HI)/2, Var = (HI − LO)²/12.
LO = np.array([[-0.9, -0.5, -0.2], [-0.8, -0.6, -1.0]])
HI = np.array([[0.3, 0.7, 1.0], [0.6, 0.8, 0.2]])
MU = (LO + HI) / 2
VAR = (HI - LO) ** 2 / 12
GAMMA = noise.GRID


def draw(n: int, rng: np.random.Generator):
    """n respondents from the population: class codes and X in original units."""
    y = rng.choice(3, size=n, p=P_C)
    xt = LO[:, y].T + (HI - LO)[:, y].T * rng.random((n, 2))
    X = np.column_stack([a.denormalise(xt[:, i]) for i, a in enumerate(ATTRS)])
    return X, y


def hiding(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, m, k) class-hiding vectors of the entries z (n, m)."""
    V = np.zeros((z.shape[0], z.shape[1], 3))
    V[np.arange(z.shape[0]), :, y] = z
    return V


def rounding_variance(v: np.ndarray) -> np.ndarray:
    """Variance of the randomized rounding of v to the grid: γ²f(1 − f), f the fractional grid position."""
    f = v / GAMMA - np.floor(v / GAMMA)
    return GAMMA**2 * f * (1 - f)


def theoretical_variance(nb: LDPGaussianNB, z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Exact Var(m_ic) of one group of n fixed respondents (entries z (n, m), classes y), as derived in the module:
    A1  (Σ_r ρ_r + n σ²_N)/n²;  A2  (n C²/D − Σ_r z²_r)/n²;
    A3  (S² + ρ̄ + σ²_N)·E[1/N_i] − S²/n  (SRSWOR of N_i ~ Bin(n, 1/m) respondents; S² ddof 1 over all n)."""
    n = z.shape[0]
    V = hiding(z, y)
    if nb.approach == 1:
        return (rounding_variance(V).sum(axis=0) + n * nb.noise_variance) / n**2
    if nb.approach == 2:
        D = nb.m * nb.k
        return (n * nb.onebit_magnitude**2 / D - (V**2).sum(axis=0)) / n**2
    support = np.arange(2, n + 1)
    pmf = binom.pmf(support, n, 1 / nb.m)
    inv_n = np.sum(pmf / support) / pmf.sum()  # E[1/N | N ≥ 2]; P(N < 2) is ~1e-600 here
    s2 = V.var(axis=0, ddof=1)
    return (s2 + rounding_variance(V).mean(axis=0) + nb.noise_variance) * inv_n - s2 / n


@pytest.mark.parametrize("epsilon", [0.5, 4.0])
@pytest.mark.parametrize("approach", [1, 2, 3])
def test_class_conditional_sums_are_unbiased_with_derived_variance(approach, epsilon):
    """Fixed data (n = 2000, m = 2, k = 3, ε = 0.5 and 4): over R = 300 reps the mean of every m_ic (mean group: x̃,
    square group: x̃²) is within 5 SE of the data's own mean of z_ic, SE = √(Var/R) with the derived variance above;
    and the empirical variance over the reps lies in the chi-square band (R − 1 df, two-sided 1e-4 per entry, 12
    entries per approach)."""
    X, y = draw(2000, np.random.default_rng(1))
    nb = LDPGaussianNB(CLS, ATTRS, epsilon, approach=approach)
    xt = nb.normalise(X)
    rng = np.random.default_rng(100 + approach + int(10 * epsilon))
    reps = 300
    lo, hi = chi2.ppf([5e-5, 1 - 5e-5], reps - 1) / (reps - 1)
    for z in (xt, xt**2):
        truth = hiding(z, y).mean(axis=0)
        var = theoretical_variance(nb, z, y)
        est = np.array([nb.fold_vectors(nb.randomize(z, y, rng)).means()[0] for _ in range(reps)])
        zscore = (est.mean(axis=0) - truth) / np.sqrt(var / reps)
        assert np.all(np.abs(zscore) < 5), np.round(zscore, 2)
        ratio = est.var(axis=0, ddof=1) / var
        assert np.all((ratio > lo) & (ratio < hi)), f"variance ratio {np.round(ratio, 3)} not in [{lo:.3f}, {hi:.3f}]"


def test_laplace_scales():
    """Δ/ε with Δ = 2m (Approach 1, all m vectors) or 2 (Approach 3, one vector); Approach 2 adds no noise."""
    for eps in (0.5, 1.0, 4.0):
        assert LDPGaussianNB(CLS, ATTRS, eps, approach=1).laplace_scale == pytest.approx(2 * 2 / eps, rel=1e-15)
        assert LDPGaussianNB(CLS, ATTRS, eps, approach=3).laplace_scale == pytest.approx(2 / eps, rel=1e-15)
    with pytest.raises(ValueError, match="Approach 2"):
        _ = LDPGaussianNB(CLS, ATTRS, 1.0, approach=2).laplace_scale


@pytest.mark.parametrize("approach", [1, 3])
def test_client_noise_has_the_stated_scale(approach):
    """Components at the other classes carry pure noise (their input is exactly 0, which rounding keeps): their
    empirical variance over N ≈ 80,000 (A1) / 40,000 (A3) draws is within 5 SE of the discrete Laplace variance, the SE
    of a sample variance being σ²√((κ − 1)/N) with Laplace kurtosis κ = 6. (Δ = 2 instead of 2m would be 4× off.)"""
    nb = LDPGaussianNB(CLS, ATTRS, 2.0, approach=approach)
    X, y = draw(20000, np.random.default_rng(2))
    reports = nb.randomize(nb.normalise(X), y, np.random.default_rng(3))
    V = reports if approach == 1 else reports[1][:, None, :]
    other = np.ones(V.shape, dtype=bool)
    other[np.arange(V.shape[0]), :, y] = False
    values = V[other]
    assert np.all(np.round(values / GAMMA) == values / GAMMA), "noise must lie on the grid"
    var = nb.noise_variance
    assert var == pytest.approx(2 * nb.laplace_scale**2, rel=1e-3)
    assert abs(values.var() - var) < 5 * var * math.sqrt(5 / values.size), (values.var(), var)


def _log_pmf_component(x: float, outputs: np.ndarray, scale: float) -> np.ndarray:
    """log P(output | input x) of one component: randomized rounding of x, then discrete Laplace on the grid."""
    alpha = math.exp(-GAMMA / scale)
    lo = math.floor(x / GAMMA)
    f = x / GAMMA - lo
    k = np.round(outputs / GAMMA).astype(np.int64)
    base = math.log((1 - alpha) / (1 + alpha))
    p = (1 - f) * np.exp(np.abs(k - lo) * math.log(alpha)) + f * np.exp(np.abs(k - lo - 1) * math.log(alpha))
    return base + np.log(p)


@pytest.mark.parametrize("approach", [1, 3])
def test_grid_laplace_is_exactly_epsilon_ldp(approach):
    """The exact output pmf of the client's mechanism (rounding + discrete Laplace of scale ``laplace_scale``): the
    privacy loss between two class-hiding inputs is the sum over components of the per-component maximum log ratio
    (components are independent, the output space a product), evaluated over every grid output in [−2, 2] (beyond it
    the ratio is constant). For random pairs (entries on and off the grid, same or different classes) it is ≤ ε, and
    the worst case (x̃ = +1 at one class vs −1 at another) attains ε: rounding does not widen the sensitivity."""
    eps = 1.0
    nb = LDPGaussianNB(CLS, ATTRS, eps, approach=approach)
    outputs = np.arange(-2 / GAMMA, 2 / GAMMA + 1) * GAMMA
    rows = nb.m if approach == 1 else 1
    cache: dict[float, np.ndarray] = {}

    def lp(x):
        if x not in cache:
            cache[x] = _log_pmf_component(x, outputs, nb.laplace_scale)
        return cache[x]

    def loss(V, W):
        return sum(np.max(lp(float(a)) - lp(float(b))) for a, b in zip(V.ravel(), W.ravel(), strict=True))

    def vector(values, c):
        V = np.zeros((rows, nb.k))
        V[:, c] = values
        return V

    rng = np.random.default_rng(4)
    for _ in range(15):
        c1, c2 = rng.integers(0, nb.k, 2)
        x1 = np.round(rng.uniform(-1, 1, rows), rng.choice([3, 9]))
        x2 = np.round(rng.uniform(-1, 1, rows), rng.choice([3, 9]))
        assert loss(vector(x1, c1), vector(x2, c2)) <= eps + 1e-9
    worst = loss(vector(np.ones(rows), 0), vector(-np.ones(rows), 1))
    assert worst == pytest.approx(eps, abs=1e-9)


def test_onebit_probabilities_and_privacy_ratio():
    """Approach 2: P(j, +1 | V) = p(V_j)/D with p(v) = (v(e^ε−1) + e^ε + 1)/(2e^ε + 2) ∈ [1/(e^ε+1), e^ε/(e^ε+1)];
    enumerating all 2D outputs for class-hiding inputs (extremes ±1 at two classes, random values), the ratio of
    output probabilities is ≤ e^ε, with equality for V_j = 1 vs −1 (same class); E[V'] = V entrywise."""
    for eps in (0.5, 1.0, 3.0):
        nb = LDPGaussianNB(CLS, ATTRS, eps, approach=2)
        e = math.exp(eps)
        D = nb.m * nb.k
        assert nb.onebit_probability(-1.0) == pytest.approx(1 / (e + 1), rel=1e-14)
        assert nb.onebit_probability(1.0) == pytest.approx(e / (e + 1), rel=1e-14)
        C = nb.onebit_magnitude
        assert C == pytest.approx(D * (e + 1) / (e - 1), rel=1e-14)
        rng = np.random.default_rng(5)
        inputs = [hiding(np.array([[x, x]]), np.array([c]))[0] for x in (1.0, -1.0) for c in (0, 1)]
        inputs += [hiding(rng.uniform(-1, 1, (1, 2)), rng.integers(0, 3, 1))[0] for _ in range(20)]

        def dist(V, nb=nb, D=D):
            p = nb.onebit_probability(V.ravel())
            return np.concatenate([p, 1 - p]) / D

        worst = 0.0
        for V in inputs:
            P = dist(V)
            assert P.sum() == pytest.approx(1.0)
            # E[V'] = Σ_j P(j, ±1)·(±C) e_j = V
            assert np.allclose(C * (P[:D] - P[D:]), V.ravel())
            for W in inputs:
                worst = max(worst, np.max(P / dist(W)))
        assert worst <= e * (1 + 1e-12) and worst == pytest.approx(e, rel=1e-12)


def test_onebit_client_frequencies():
    """Every respondent holds the same vector; the client's frequency of (j, +1) per entry j is within 5 binomial SE of
    p(V_j)/D."""
    nb = LDPGaussianNB(CLS, ATTRS, 1.0, approach=2)
    n = 60000
    z = np.tile([0.7, -0.4], (n, 1))
    y = np.full(n, 1)
    j, s = nb.randomize(z, y, np.random.default_rng(6))
    D = nb.m * nb.k
    V = hiding(z[:1], y[:1])[0].ravel()
    for sign, prob in ((1, nb.onebit_probability(V) / D), (-1, (1 - nb.onebit_probability(V)) / D)):
        freq = np.bincount(j[s == sign], minlength=D) / n
        assert np.all(np.abs(freq - prob) < 5 * np.sqrt(prob * (1 - prob) / n)), (freq, prob)


def _concat(a, b, approach):
    if approach == 1:
        return np.concatenate([a, b])
    return tuple(np.concatenate([u, v]) for u, v in zip(a, b, strict=True))


def _union(ra: GaussianReports, rb: GaussianReports, approach: int) -> GaussianReports:
    return GaussianReports(
        np.concatenate([ra.group, rb.group]), np.concatenate([ra.prior, rb.prior]),
        _concat(ra.mean, rb.mean, approach), _concat(ra.square, rb.square, approach),
    )


@settings(max_examples=25, deadline=None)
@given(approach=st.sampled_from([1, 2, 3]), n1=st.integers(0, 30), n2=st.integers(0, 30),
       seed=st.integers(0, 2**32 - 1))
def test_statistics_are_additive(approach, n1, n2, seed):
    """aggregate(A) + aggregate(B) == aggregate(A ∪ B); sum() and zero_stats(); to_dict/from_dict through JSON."""
    nb = LDPGaussianNB(CLS, ATTRS, 1.0, approach=approach, prior_oracle="de")
    rng = np.random.default_rng(seed)
    X, y = draw(n1 + n2, rng)
    ra, rb = nb.perturb(X[:n1], y[:n1], rng), nb.perturb(X[n1:], y[n1:], rng)
    sa, sb = nb.aggregate(ra), nb.aggregate(rb)
    total = nb.aggregate(_union(ra, rb, approach))
    assert sa + sb == total
    assert sum([sa, sb]) == total and nb.zero_stats() + sa == sa
    assert total.n == n1 + n2
    assert GaussianStats.from_dict(json.loads(json.dumps(total.to_dict()))) == total
    assert total.mean.counts.sum() == (total.mean.n if approach == 3 else nb.m * total.mean.n)


def test_stats_equality_detects_differences():
    a = MomentSums(3, np.ones((2, 3)), np.ones((2, 3)), np.array([3, 3]))
    assert a == MomentSums.from_dict(a.to_dict())
    assert a != MomentSums(3, np.ones((2, 3)) * 1.001, np.ones((2, 3)), np.array([3, 3]))
    assert a != MomentSums(4, np.ones((2, 3)), np.ones((2, 3)), np.array([3, 3]))
    with pytest.raises(ValueError):
        a + MomentSums.zero(3, 3)
    with pytest.raises(ValueError, match="counts"):
        MomentSums.from_dict({"n": 1, "sums": [[0.0]], "sumsq": [[0.0]], "counts": [1, 2]})


@pytest.mark.parametrize("approach", [1, 2, 3])
def test_estimate_recovers_the_population_and_standard_errors_are_calibrated(approach):
    """Fresh data from the population each rep (n = 15,000, ε = 4, R = 100). μ: the mean of every μ̂_ic (original
    units) is within 5 empirical SE of the population mean; its empirical variance divided by the mean delta-method
    SE² lies in the chi-square band (R − 1 df, two-sided 1e-3 per entry, 6 entries). σ²: the plug-in
    s̃ − μ̃² = m^sq/P̂ − (m/P̂)² before floor and clipping (recomputed from the metadata) has mean within 5 empirical SE
    of the population variance minus Var(μ̂) (E[μ̂²] = μ² + Var μ̂; the ratio bias, O(Var P̂/P²) ≈ 0.2 %, is ignored);
    the model's σ equals it wherever the floor is not active."""
    nb = LDPGaussianNB(CLS, ATTRS, 4.0, approach=approach)
    rng = np.random.default_rng(200 + approach)
    reps = 100
    mus, ses, raws, sigma2, floors = [], [], [], [], []
    half = np.array([(a.high - a.low) / 2 for a in ATTRS])[:, None]
    for _ in range(reps):
        X, y = draw(15000, rng)
        model = nb.estimate(nb.aggregate(nb.perturb(X, y, rng)))
        assert isinstance(model, NaiveBayesModel)
        md = model.metadata
        mus.append([t[0] for t in model.conditionals])
        ses.append(md["mean_standard_errors"])
        p = np.maximum(model.prior, 1e-6)
        mu_raw = np.array(md["mean_moments"]) / p
        raws.append((mu_raw, np.array(md["square_moments"]) / p - mu_raw**2))
        sigma2.append([(t[1] / h) ** 2 for t, h in zip(model.conditionals, half[:, 0], strict=True)])
        floors.append(np.array(md["variance_floor"]) / half**2)
    mus, ses, sigma2, floors = np.array(mus), np.array(ses), np.array(sigma2), np.array(floors)
    mu_units = np.array([a.denormalise(MU[i]) for i, a in enumerate(ATTRS)])
    assert np.all(np.abs(mus.mean(axis=0) - mu_units) < 5 * mus.std(axis=0, ddof=1) / np.sqrt(reps))
    ratio = mus.var(axis=0, ddof=1) / (ses**2).mean(axis=0)
    lo, hi = chi2.ppf([5e-4, 1 - 5e-4], reps - 1) / (reps - 1)
    assert np.all((ratio > lo) & (ratio < hi)), f"variance ratio {np.round(ratio, 3)} not in [{lo:.3f}, {hi:.3f}]"
    mu_raw = np.array([r[0] for r in raws])
    var_raw = np.array([r[1] for r in raws])
    target = VAR - mu_raw.var(axis=0, ddof=1)
    zscore = (var_raw.mean(axis=0) - target) / (var_raw.std(axis=0, ddof=1) / np.sqrt(reps))
    assert np.all(np.abs(zscore) < 5), np.round(zscore, 2)
    free = (var_raw > floors) & (np.abs(mu_raw) < 1) & (var_raw + mu_raw**2 < 1)
    assert free.mean() > 0.5
    assert np.allclose(sigma2[free], var_raw[free])
    assert np.all(sigma2 >= floors * (1 - 1e-12))


def test_estimate_maps_back_to_original_units_exactly():
    """Noise-free statistics (hand-built): μ = l + (μ̃+1)(u−l)/2, σ = σ̃(u−l)/2 from m_ic = P(c)μ̃,
    s_ic = P(c)(σ̃² + μ̃²)."""
    nb = LDPGaussianNB(CLS, ATTRS, 1.0, approach=1, prior_oracle="she", floor_se=0.0)
    n = 1000
    support = P_C * n  # SHE: the estimate is the component sum itself
    prior = nb.prior_oracle.zero_stats()
    prior = type(prior)(n, support.astype(prior.support.dtype))
    counts = np.full(2, n)
    mean = MomentSums(n, P_C * MU * n, np.full((2, 3), 2.0 * n), counts)
    square = MomentSums(n, P_C * (VAR + MU**2) * n, np.full((2, 3), 2.0 * n), counts)
    model = nb.estimate(GaussianStats(prior, mean, square))
    assert np.allclose(model.prior, P_C)
    for i, a in enumerate(ATTRS):
        assert np.allclose(model.conditionals[i][0], a.denormalise(MU[i]))
        assert np.allclose(model.conditionals[i][1], np.sqrt(VAR[i]) * (a.high - a.low) / 2)


def test_variance_floor():
    """Tiny n, small ε: σ̃² is floored at max(SIGMA_FLOOR², floor_se·SE(σ̃²)) (reported in metadata, original units),
    the model stays finite; with floor_se = 0 the fixed SIGMA_FLOOR is the only floor."""
    X, y = draw(400, np.random.default_rng(8))
    for floor_se in (0.0, 1.0, 3.0):
        nb = LDPGaussianNB(CLS, ATTRS, 0.5, approach=1, floor_se=floor_se)
        model = nb.estimate(nb.aggregate(nb.perturb(X, y, np.random.default_rng(9))))
        floor = np.array(model.metadata["variance_floor"])
        sigma2 = np.array([t[1] ** 2 for t in model.conditionals])
        assert np.all(sigma2 >= floor * (1 - 1e-12))
        assert np.all(np.isfinite(model.log_joint(X)))
        ranges = np.array([(a.high - a.low) / 2 for a in ATTRS])[:, None]
        if floor_se == 0.0:
            assert np.allclose(floor, (SIGMA_FLOOR * ranges) ** 2)
        else:
            assert np.all(floor > (SIGMA_FLOOR * ranges) ** 2)  # SE(σ̃²) ≫ 1e-4 at n = 400, ε = 0.5


def test_shares_and_group_assignment():
    """Defaults: Approach 3 uniform over its 2m + 1 inputs, Approaches 1/2 prior 0.1 and an even split; the group
    sizes are multinomial (within 5 SD); only the prior group reports a class; params are JSON-able."""
    nb3 = LDPGaussianNB(CLS, ATTRS, 1.0)
    assert nb3.approach == 3 and np.allclose(nb3.shares, [1 / 5, 2 / 5, 2 / 5])
    nb1 = LDPGaussianNB(CLS, ATTRS, 1.0, approach=1)
    assert np.allclose(nb1.shares, [0.1, 0.45, 0.45])
    nb = LDPGaussianNB(CLS, ATTRS, 1.0, approach=2, prior_share=0.2, group_split=0.25)
    assert np.allclose(nb.shares, [0.2, 0.2, 0.6])
    n = 20000
    X, y = draw(n, np.random.default_rng(10))
    reports = nb.perturb(X, y, np.random.default_rng(11))
    counts = np.bincount(reports.group, minlength=3)
    assert np.all(np.abs(counts - n * nb.shares) < 5 * np.sqrt(n * nb.shares * (1 - nb.shares)))
    assert len(reports.prior) == counts[PRIOR] and len(reports.mean[0]) == counts[MEAN]
    assert len(reports.square[0]) == counts[SQUARE]
    stats = nb.aggregate(reports)
    assert (stats.prior.n, stats.mean.n, stats.square.n) == tuple(counts)
    params = json.loads(json.dumps(nb.params()))
    assert params["shares"] == pytest.approx([0.2, 0.2, 0.6]) and params["onebit_magnitude"] == nb.onebit_magnitude
    assert json.loads(json.dumps(nb1.params()))["laplace_scale"] == nb1.laplace_scale


def test_validation():
    with pytest.raises(ValueError, match="approach"):
        LDPGaussianNB(CLS, ATTRS, 1.0, approach=4)
    with pytest.raises(ValueError, match="numeric"):
        LDPGaussianNB(CLS, (Categorical("x", ("p", "q")),), 1.0)
    with pytest.raises(ValueError, match="class_attribute"):
        LDPGaussianNB(ATTRS[0], ATTRS, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        LDPGaussianNB(CLS, ATTRS, 0.0)
    for bad in (0.0, 1.0, -0.1, float("nan"), "x"):
        with pytest.raises(ValueError, match="prior_share"):
            LDPGaussianNB(CLS, ATTRS, 1.0, prior_share=bad)
        with pytest.raises(ValueError, match="group_split"):
            LDPGaussianNB(CLS, ATTRS, 1.0, group_split=bad)
    with pytest.raises(ValueError, match="floor_se"):
        LDPGaussianNB(CLS, ATTRS, 1.0, floor_se=-1)
    with pytest.raises(ValueError, match="post-processing"):
        LDPGaussianNB(CLS, ATTRS, 1.0, postprocess="bogus")
    nb = LDPGaussianNB(CLS, ATTRS, 1.0, approach=3)
    rng = np.random.default_rng(0)
    X, y = draw(10, rng)
    with pytest.raises(ValueError, match="shape"):
        nb.perturb(X[:, :1], y, rng)
    with pytest.raises(ValueError, match="finite"):
        nb.perturb(np.where(X == X[0, 0], np.nan, X), y, rng)
    with pytest.raises(ValueError):
        nb.perturb(X, np.full(10, 3), rng)
    with pytest.raises(ValueError):
        nb.perturb(X, y[:5], rng)
    with pytest.raises(ValueError, match="normalised"):
        nb.randomize(np.full((2, 2), 1.5), np.zeros(2, dtype=int), rng)
    with pytest.raises(ValueError, match="attribute indices"):
        nb.validate_vectors((np.array([2]), np.zeros((1, 3))))
    with pytest.raises(ValueError, match="finite"):
        nb.validate_vectors((np.array([0]), np.full((1, 3), np.inf)))
    with pytest.raises(ValueError, match="pair"):
        nb.validate_vectors(np.zeros(3))
    nb2 = LDPGaussianNB(CLS, ATTRS, 1.0, approach=2)
    with pytest.raises(ValueError, match="±1"):
        nb2.validate_vectors((np.array([0]), np.array([0])))
    with pytest.raises(ValueError, match="entry indices"):
        nb2.validate_vectors((np.array([6]), np.array([1])))
    nb1 = LDPGaussianNB(CLS, ATTRS, 1.0, approach=1)
    with pytest.raises(ValueError, match="shape"):
        nb1.validate_vectors(np.zeros((2, 3, 2)))
    with pytest.raises(ValueError, match="no class reports"):
        nb.estimate(nb.zero_stats())
    other = LDPGaussianNB(CLS, ATTRS[:1], 1.0)
    with pytest.raises(ValueError, match="expected"):
        nb.estimate(other.aggregate(other.perturb(X[:, :1], y, rng)))
    prior_only = GaussianStats(nb.aggregate(nb.perturb(X, y, rng)).prior, MomentSums.zero(2, 3), MomentSums.zero(2, 3))
    with pytest.raises(ValueError, match="at least two reports"):
        nb.estimate(prior_only)
