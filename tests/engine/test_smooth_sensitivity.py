"""Smooth sensitivity of the mean and the standard deviation (SPEC §6 smooth variant, seed 002 §3–§4) against brute
force on tiny domains, the smooth-bound property, trimming, and the admissible noise (KS tests).

Two brute forces for the standard deviation's A⁽ᵏ⁾ (replacement neighbours in [l, u]):
* ``grid_A`` — every dataset within distance k whose replaced values lie on a grid containing l and u, each with its
  exact local sensitivity (one value moved to l, u or the others' mean: the extremes of a quadratic). Fully
  independent of the module's reductions; a lower bound of the continuous A⁽ᵏ⁾, within a Lipschitz margin of it.
* ``exhaustive_A`` — every pivot and every set of replaced records (not only windows), the replaced values sharing
  one w (reduction 1 of the module: for a fixed mean, equal values minimise the spread), w maximised numerically
  (dense grid, then bounded Brent around the best local maxima). Checks reductions 2–4 and the quartic solver.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from aggregator.privacy.central import smooth_sensitivity as ss

L, U = 0.0, 1.0
GRID5 = np.linspace(L, U, 5)


# -- brute-force references ---------------------------------------------------------------------------------------

def mean_ls(Y, grid):
    """Local sensitivity of the mean of each row of Y, replacement values from ``grid`` (l, u included: exact)."""
    n = Y.shape[1]
    return np.max(np.abs(grid[None, None, :] - Y[:, :, None]), axis=(1, 2)) / n


def sd_ls(Y):
    """Exact local sensitivity of the standard deviation (ddof 0) of each row of Y over [L, U]."""
    n = Y.shape[1]
    base = Y.std(axis=1)
    best = np.zeros(Y.shape[0])
    for i in range(n):
        others_mean = np.delete(Y, i, axis=1).mean(axis=1)
        for z in (np.full(Y.shape[0], L), np.full(Y.shape[0], U), others_mean):
            moved = Y.copy()
            moved[:, i] = z
            best = np.maximum(best, np.abs(moved.std(axis=1) - base))
    return best


def within_distance(t, k, grid):
    """Every dataset differing from t in at most k records, the new values taken from ``grid``."""
    t = np.asarray(t, dtype=np.float64)
    n = t.size
    rows = [t[None, :]]
    for size in range(1, min(k, n) + 1):
        for S in itertools.combinations(range(n), size):
            vals = np.array(list(itertools.product(grid, repeat=size)))
            Y = np.tile(t, (len(vals), 1))
            Y[:, list(S)] = vals
            rows.append(Y)
    return np.concatenate(rows)


def grid_A(t, k, grid, ls):
    return float(ls(within_distance(t, k, grid)).max())


def _pair_value(others, pivot_value):
    """For others O (rows) and the pivot's current value (None = free): the largest |sd(y) − sd(y')| over the
    pivot's two values."""
    m = others.mean(axis=1)
    sds = {}
    for name, z in (("l", np.full(len(others), L)), ("u", np.full(len(others), U)), ("m", m)):
        sds[name] = np.column_stack([others, z]).std(axis=1)
    far = np.maximum(sds["l"], sds["u"])
    if pivot_value is None:
        return far - sds["m"]
    here = np.column_stack([others, np.broadcast_to(pivot_value, (len(others),))]).std(axis=1)
    return np.maximum(far - here, here - sds["m"])


def _max_over_w(f):
    ws = np.linspace(L, U, 401)
    values = f(ws)
    peaks = [j for j in range(len(ws)) if values[j] >= values[max(j - 1, 0)] and values[j] >= values[min(j + 1, 400)]]
    best = values.max()
    for j in sorted(peaks, key=lambda j: -values[j])[:3]:
        lo, hi = ws[max(j - 1, 0)], ws[min(j + 1, 400)]
        res = optimize.minimize_scalar(lambda w: -f(np.array([w]))[0], bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-12})
        best = max(best, -res.fun)
    return float(best)


def exhaustive_A(t, k):
    t = np.asarray(t, dtype=np.float64)
    n = t.size
    if k == 0:
        return float(sd_ls(t[None, :])[0])
    best = 0.0
    for i in range(n):
        rest = [j for j in range(n) if j != i]
        for pivot_replaced in (True, False):
            budget = k - 1 if pivot_replaced else k
            for size in range(0, min(budget, n - 1) + 1):
                for S in itertools.combinations(rest, size):
                    keep = [j for j in rest if j not in S]

                    def value(ws, keep=keep, size=size, pivot_replaced=pivot_replaced, i=i):
                        others = np.column_stack([np.tile(t[keep], (len(ws), 1))] + [ws] * size)
                        return _pair_value(others, None if pivot_replaced else t[i])

                    best = max(best, _max_over_w(value) if size else float(value(np.zeros(1))[0]))
    return best


def brute_S(As, beta):
    return max(math.exp(-k * beta) * a for k, a in enumerate(As))


def small_samples(rng, count, sizes, grid):
    out = [np.array([0.5, 0.5, 0.5]), np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.25, 0.25, 0.25, 0.75])]
    while len(out) < count:
        out.append(rng.choice(grid, size=int(rng.choice(sizes))))
    return out


# -- the mean ------------------------------------------------------------------------------------------------------

def test_mean_matches_brute_force_on_a_grid():
    rng = np.random.default_rng(20)
    for t in small_samples(rng, 40, (1, 2, 3, 4, 5), GRID5):
        As = [grid_A(t, k, GRID5, lambda Y: mean_ls(Y, GRID5)) for k in range(t.size + 1)]
        for k, a in enumerate(As):
            assert ss.mean_sensitivity_at_distance(t, L, U, k) == pytest.approx(a, abs=1e-15)
        for beta in (0.01, 0.3, 2.0):
            assert ss.smooth_sensitivity_mean(t, L, U, beta) == pytest.approx(brute_S(As, beta), abs=1e-15)


def test_mean_values_in_original_units():
    t = np.array([10.0, 12.0, 15.0, 11.0])
    assert ss.mean_sensitivity_at_distance(t, 0.0, 20.0, 0) == pytest.approx(max(20 - 10, 15 - 0) / 4)
    assert ss.mean_sensitivity_at_distance(t, 0.0, 20.0, 3) == pytest.approx(20 / 4)
    assert ss.smooth_sensitivity_mean(t, 0.0, 20.0, 0.1) == pytest.approx(max(15 / 4, math.exp(-0.1) * 5))


# -- the standard deviation ----------------------------------------------------------------------------------------

def test_sd_is_never_below_the_grid_brute_force():
    """The privacy-critical direction: no dataset on the grid has a larger A⁽ᵏ⁾ or S*_β than the fast algorithm."""
    rng = np.random.default_rng(21)
    for t in small_samples(rng, 30, (2, 3, 4), GRID5):
        As = [grid_A(t, k, GRID5, sd_ls) for k in range(t.size + 1)]
        fast = [ss.sd_sensitivity_at_distance(t, L, U, k) for k in range(t.size + 1)]
        assert np.all(np.array(fast) >= np.array(As) - 1e-12), (t, fast, As)
        for beta in (0.05, 0.5):
            assert ss.smooth_sensitivity_sd(t, L, U, beta) >= brute_S(As, beta) - 1e-12


def test_sd_is_within_the_lipschitz_margin_of_a_fine_grid():
    """A finer grid approaches the continuous A⁽ᵏ⁾ from below: the standard deviation is (1/√n)-Lipschitz (ℓ₂), so
    each of LS's candidates |sd(y^{i→z}) − sd(y)| with z ∈ {l, u, others' mean} is Lipschitz with constant
    c = (2 + 1/√(n−1))/√n, and a grid of step h reaches within √k·h/2 of any dataset at distance k."""
    rng = np.random.default_rng(22)
    grid = np.linspace(L, U, 21)
    for _ in range(4):
        t = ss.quantised(rng.uniform(L, U, 4), L, U)
        n = t.size
        c = (2 + 1 / math.sqrt(n - 1)) / math.sqrt(n)
        for k in (1, 2):
            brute = grid_A(t, k, grid, sd_ls)
            fast = ss.sd_sensitivity_at_distance(t, L, U, k)
            assert brute - 1e-12 <= fast <= brute + c * math.sqrt(k) * (grid[1] - grid[0]) / 2


def test_sd_matches_the_exhaustive_search():
    rng = np.random.default_rng(23)
    samples = small_samples(rng, 5, (3, 4), GRID5) + [ss.quantised(rng.beta(4, 6, n), L, U) for n in (3, 4, 4)]
    for t in samples:
        for k in range(t.size):
            assert ss.sd_sensitivity_at_distance(t, L, U, k) == pytest.approx(exhaustive_A(t, k), abs=1e-9), (t, k)


def test_sd_closed_forms():
    n = 6
    t = np.full(n, 0.5)  # every record equal: moving one to an end gives the largest change
    assert ss.sd_local_sensitivity(t, L, U) == pytest.approx(np.std(np.r_[np.full(n - 1, 0.5), 1.0]), abs=1e-15)
    assert ss.sd_sensitivity_at_distance(t, L, U, n) == pytest.approx(math.sqrt(n - 1) / n, abs=1e-15)
    assert ss.sd_global_sensitivity(n, 2.0, 5.0) == pytest.approx(3 * math.sqrt(n - 1) / n)
    assert ss.sd_global_sensitivity(n, 2.0, 5.0) < 3 / math.sqrt(n)  # below SPEC §6's (u − l)/√n
    assert ss.smooth_sensitivity_sd([0.3], L, U, 0.1) == 0.0  # one value: its sd is always 0


def test_sd_grows_with_distance_and_reaches_the_global_sensitivity():
    rng = np.random.default_rng(24)
    for _ in range(5):
        t = rng.beta(3, 5, 25)
        As = [ss.sd_sensitivity_at_distance(t, L, U, k) for k in range(t.size + 1)]
        assert np.all(np.diff(As) >= -1e-12)
        assert As[0] == pytest.approx(ss.sd_local_sensitivity(t, L, U))
        assert As[-1] == pytest.approx(ss.sd_global_sensitivity(t.size, L, U))


def test_branch_and_bound_equals_the_maximum_over_every_distance():
    rng = np.random.default_rng(25)
    for trial in range(12):
        t = [rng.uniform, rng.beta][trial % 2](*((0, 1) if trial % 2 == 0 else (5, 5)), size=int(rng.integers(2, 30)))
        As = [ss.sd_sensitivity_at_distance(t, L, U, k) for k in range(t.size + 1)]
        for beta in (0.001, 0.05, 1.0):
            assert ss.smooth_sensitivity_sd(t, L, U, beta) == pytest.approx(brute_S(As, beta), rel=1e-12)


def test_smooth_bound_property_on_random_neighbours():
    """S*_β ≥ LS and S*_β(x) ≤ e^β·S*_β(x') for neighbours (NRS Definition 2.1) — for both statistics."""
    rng = np.random.default_rng(26)
    for _ in range(30):
        n = int(rng.integers(3, 40))
        x = np.round(rng.beta(2, 5, n), 3)
        x2 = x.copy()
        x2[rng.integers(n)] = rng.choice([rng.uniform(), 0.0, 1.0, x.mean()])
        beta = float(rng.choice([0.01, 0.1, 0.5]))
        mean_local = lambda v, lo, hi: ss.mean_sensitivity_at_distance(v, lo, hi, 0)  # noqa: E731
        for smooth, local in ((ss.smooth_sensitivity_sd, ss.sd_local_sensitivity),
                              (ss.smooth_sensitivity_mean, mean_local)):
            s1, s2 = smooth(x, L, U, beta), smooth(x2, L, U, beta)
            assert s1 >= local(x, L, U) - 1e-15
            assert s1 <= math.exp(beta) * s2 * (1 + 1e-12) and s2 <= math.exp(beta) * s1 * (1 + 1e-12)


def test_original_units_scale_linearly():
    rng = np.random.default_rng(27)
    x = rng.beta(2, 3, 40)
    s01 = ss.smooth_sensitivity_sd(x, 0.0, 1.0, 0.1)
    assert ss.smooth_sensitivity_sd(5 + 40 * x, 5.0, 45.0, 0.1) == pytest.approx(40 * s01, rel=1e-9)
    sd, s = ss.smooth_sd(5 + 40 * x, 5.0, 45.0, 0.1)
    assert sd == pytest.approx(40 * np.std(x), rel=1e-6) and s == pytest.approx(40 * s01, rel=1e-9)


def test_ties_and_large_samples_are_exact():
    """Integer sums on the grid: equal values have exactly zero spread; large n does not overflow."""
    t = np.r_[np.zeros(300), np.full(200, 0.3)]
    sd, _ = ss.smooth_sd(t, L, U, 0.05)
    assert sd == pytest.approx(np.std(ss.quantised(t, L, U)), rel=1e-12)
    big = np.random.default_rng(28).uniform(0, 1, 200_000)
    q = ss.quantised(big, L, U)
    assert np.max(np.abs(q - np.sort(big))) <= 2.0 ** -(ss._grid_bits(big.size) + 1) * (1 + 1e-9)
    assert ss.smooth_sd(big, L, U, 0.5)[0] == pytest.approx(np.std(q), rel=1e-12)


# -- trimming ------------------------------------------------------------------------------------------------------

def test_trimming_maps_neighbours_to_neighbours():
    """trim(x) and trim(x') differ in at most one value when x and x' differ in one record (module docstring)."""
    rng = np.random.default_rng(29)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        x = rng.choice(np.linspace(0, 1, 6), n)
        x2 = x.copy()
        x2[rng.integers(n)] = rng.choice(np.linspace(0, 1, 6))
        m = int(rng.integers(0, (n + 1) // 2))
        a, b = ss.trimmed(x, L, U, m), ss.trimmed(x2, L, U, m)
        assert a.size == b.size == n - 2 * m
        common = sum((Counter(a.tolist()) & Counter(b.tolist())).values())
        assert common >= a.size - 1


def test_trimmed_clips_and_drops_both_ends():
    # clipped to [0, 4]: 4, 0, 2, 4, 1, 0 → sorted 0, 0, 1, 2, 4, 4 → one dropped at each end
    np.testing.assert_array_equal(ss.trimmed([5, -3, 2, 9, 1, 0], 0, 4, 1), [0.0, 1.0, 2.0, 4.0])
    assert ss.trimmed([1, 2], 0, 4, 1).size == 0


# -- the noise -----------------------------------------------------------------------------------------------------

def _cdf(z, gamma):
    """P(Z ≤ z) by numerical integration of the density h(s) = h(0)/(1 + |s|^γ) (independent of the sampler's
    construction). The tail ∫_a^∞ h is mapped to [0, 1) by s = a/(1 − t): the integrand becomes
    (1 − t)^(γ−2) · a·h(0)/((1 − t)^γ + a^γ), whose first factor quad's algebraic weight absorbs."""
    a = abs(z)
    if a == 0:
        return 0.5
    h0 = float(ss.admissible_density(0.0, gamma))
    tail = integrate.quad(lambda t: a * h0 / ((1.0 - t) ** gamma + a**gamma), 0.0, 1.0,
                          weight="alg", wvar=(0.0, gamma - 2.0))[0]
    return 1.0 - tail if z > 0 else tail


@pytest.mark.parametrize("gamma", [1.5, 2.0, 3.0, 5.0])
def test_admissible_noise_ks(gamma):
    assert integrate.quad(lambda s: ss.admissible_density(s, gamma), -np.inf, np.inf)[0] == pytest.approx(1.0, 1e-8)
    z = ss.sample_admissible_noise(np.random.default_rng(int(gamma * 10)), gamma, 4000)
    assert stats.kstest(z, np.vectorize(lambda v: _cdf(v, gamma))).pvalue > 1e-3


def test_gamma_two_is_cauchy():
    z = ss.sample_admissible_noise(np.random.default_rng(7), 2.0, 20_000)
    assert stats.kstest(z, stats.cauchy.cdf).pvalue > 1e-3
    # scale: P(|Z| ≤ 1) = 1/2 for the standard Cauchy, within 5 binomial standard errors
    assert abs(np.mean(np.abs(z) <= 1.0) - 0.5) <= 5 * math.sqrt(0.25 / z.size)


def test_parameters_follow_spec():
    assert ss.smooth_beta(0.3, 2.0) == 0.3 / (2 * (2.0 + 1))
    assert ss.noise_multiplier(0.3, 2.0) == pytest.approx(2 * (2.0 + 1) / 0.3, rel=1e-15)
    assert ss.smooth_beta(0.3, 4.5) == 0.3 / (2 * (4.5 + 1))
    for bad in (1.0, 0.5, np.inf):
        with pytest.raises(ValueError):
            ss.smooth_beta(0.3, bad)
    with pytest.raises(ValueError):
        ss.smooth_beta(0.0)
