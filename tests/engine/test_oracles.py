"""Frequency oracles (SPEC §3): DE, SUE, OUE, SHE, THE, OLH and the adaptive choice.

Statistical tolerances (fixed seeds):
* unbiasedness: for every value v, |mean of R estimates − c_v| < 5·σ_v/√R with σ_v² = exact_variance
  (a 5-SE two-sided miss has probability 5.7e-7 per value under the CLT);
* variance: (R−1)·s_v²/σ_v² ~ χ²_{R−1} for near-normal estimates (sums of n i.i.d. terms); we require it inside
  the two-sided interval of total level 1e-4 per configuration, Bonferroni-split over the d values.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from aggregator.privacy import bits, oracles
from aggregator.privacy.oracles.histogram import optimal_threshold, the_probabilities
from aggregator.privacy.oracles.olh import PRIME, olh_buckets, olh_hash
from aggregator.privacy.stats import Counts

ALL = ["de", "sue", "oue", "she", "the", "olh"]

# (name, d, ε, params): d = 10 and 20 exercise unary padding bits; the THE at t = 0.25 reproduces seed 000.
CONFIGS = [
    ("de", 4, 1.0, {}), ("de", 16, 3.0, {}),
    ("sue", 8, 1.0, {}), ("sue", 10, 2.0, {}),
    ("oue", 10, 1.0, {}), ("oue", 16, 3.0, {}),
    ("she", 8, 1.0, {}), ("she", 12, 2.0, {}),
    ("the", 8, 1.0, {}), ("the", 8, 1.0, {"threshold": 0.25}),
    ("olh", 16, 1.0, {}), ("olh", 20, 3.0, {}),
]
N, REPS = 400, 300


def skewed_values(d: int, n: int) -> np.ndarray:
    """n fixed true values with geometric counts (value d−1 gets none): frequency terms matter."""
    w = 0.6 ** np.arange(d)
    w[-1] = 0.0
    counts = np.floor(w / w.sum() * n).astype(int)
    counts[0] += n - counts.sum()
    return np.repeat(np.arange(d), counts)


def take(reports, idx):
    return tuple(r[idx] for r in reports) if isinstance(reports, tuple) else reports[idx]


def concat(a, b):
    if isinstance(a, tuple):
        return tuple(np.concatenate([x, y]) for x, y in zip(a, b))
    return np.concatenate([a, b])


@pytest.mark.parametrize("name,d,eps,params", CONFIGS, ids=lambda x: str(x))
def test_unbiased_with_exact_variance(name, d, eps, params):
    fo = oracles.get(name, epsilon=eps, domain=d, **params)
    values = skewed_values(d, N)
    truth = np.bincount(values, minlength=d)
    rng = np.random.default_rng(20240 + d)
    est = np.array([fo.estimate(fo.aggregate(fo.perturb(values, rng))) for _ in range(REPS)])
    sigma2 = fo.exact_variance(N, truth)
    se_mean = np.sqrt(sigma2 / REPS)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 5 * se_mean), (est.mean(axis=0) - truth) / se_mean
    ratio = (REPS - 1) * est.var(axis=0, ddof=1) / sigma2
    alpha = 1e-4 / d
    lo, hi = sps.chi2.ppf([alpha / 2, 1 - alpha / 2], REPS - 1)
    assert np.all((ratio > lo) & (ratio < hi)), (ratio / (REPS - 1), lo / (REPS - 1), hi / (REPS - 1))


@pytest.mark.parametrize("name", ALL)
def test_count_variance_and_exact_variance(name):
    d, eps, n = 12, 1.3, 1000
    fo = oracles.get(name, epsilon=eps, domain=d)
    counts = np.arange(d) * 7.0
    exact = fo.exact_variance(n, counts)
    assert exact.shape == (d,)
    if name == "she":
        assert np.allclose(exact, 8 * n / eps ** 2) and fo.count_variance(n) == pytest.approx(8 * n / eps ** 2)
        return
    p, q = fo.p, fo.q
    # exact = table approximation + the frequency term c_v(1−p−q)/(p−q) (SPEC §3)
    assert np.allclose(exact, fo.count_variance(n) + counts * (1 - p - q) / (p - q))
    assert fo.count_variance(n) == pytest.approx(n * q * (1 - q) / (p - q) ** 2)
    e = math.exp(eps)
    table = {
        "de": n * (d - 2 + e) / (e - 1) ** 2,
        "sue": n * math.exp(eps / 2) / (math.exp(eps / 2) - 1) ** 2,
        "oue": n * 4 * e / (e - 1) ** 2,
    }
    if name in table:
        assert fo.count_variance(n) == pytest.approx(table[name], rel=1e-12)


def test_olh_variance_matches_table_when_g_is_exact():
    # ε = ln 3 ⇒ g = e^ε + 1 = 4 exactly, where Var = n·4e^ε/(e^ε−1)² = 3n (SPEC §3 table)
    fo = oracles.get("olh", epsilon=math.log(3), domain=50)
    assert fo.g == 4
    assert fo.count_variance(100) == pytest.approx(300.0, rel=1e-12)
    assert olh_buckets(math.log(1.5)) == 3  # e^ε + 1 = 2.5: halves round up
    assert olh_buckets(0.01) == 2


def test_the_optimal_threshold():
    for eps in (0.5, 1.0, 3.0):
        t = optimal_threshold(eps)
        assert 0.5 < t < 1
        grid = np.linspace(0.5, 1, 2001)[1:-1]
        var = [the_probabilities(eps, s)[1] * (1 - the_probabilities(eps, s)[1])
               / (the_probabilities(eps, s)[0] - the_probabilities(eps, s)[1]) ** 2 for s in grid]
        fo = oracles.get("the", epsilon=eps, domain=4)
        assert fo.threshold == t
        assert fo.count_variance(1) <= min(var) * (1 + 1e-9)
        seed = oracles.get("the", epsilon=eps, domain=4, threshold=0.25)
        assert seed.count_variance(1) > fo.count_variance(1)


@pytest.mark.parametrize("name", ALL)
def test_privacy_ratio(name):
    for eps in (0.3, 1.0, 4.0):
        fo = oracles.get(name, epsilon=eps, domain=9)
        if name == "she":
            assert fo.params()["laplace_scale"] == pytest.approx(2 / eps)  # L1 sensitivity 2 of a one-hot vector
            continue
        p, q = fo.p, fo.q
        if name == "de":
            ratio = p / q
        elif name == "olh":
            ratio = p / ((1 - p) / (fo.g - 1))  # DE over [g]
        else:  # unary: two reports' likelihoods differ in two bits
            ratio = p * (1 - q) / ((1 - p) * q)
        if name == "the":
            for t in np.linspace(0, 1, 21):
                pt, qt = the_probabilities(eps, t)
                assert pt * (1 - qt) / ((1 - pt) * qt) <= math.exp(eps) * (1 + 1e-12)
                assert pt > qt
        else:
            assert ratio == pytest.approx(math.exp(eps), rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(ALL), values=st.lists(st.integers(0, 10), min_size=0, max_size=60),
       cut=st.integers(0, 60), seed=st.integers(0, 2 ** 32 - 1))
def test_additivity(name, values, cut, seed):
    fo = oracles.get(name, epsilon=1.0, domain=11)
    reports = fo.perturb(np.array(values, dtype=np.int64), np.random.default_rng(seed))
    cut = min(cut, len(values))
    a, b = take(reports, slice(0, cut)), take(reports, slice(cut, None))
    whole = fo.aggregate(concat(a, b))
    parts = fo.aggregate(a) + fo.aggregate(b)
    assert parts.n == whole.n == len(values)
    if name == "she":  # float sums: equal up to rounding
        assert np.allclose(parts.support, whole.support, rtol=1e-12, atol=1e-9)
    else:
        assert parts == whole
    assert sum([fo.aggregate(a), fo.aggregate(b)]) == parts
    assert Counts.from_dict(json.loads(json.dumps(whole.to_dict()))) == whole


def test_zero_stats_dtype():
    assert oracles.get("she", epsilon=1, domain=3).zero_stats().support.dtype == np.float64
    assert oracles.get("oue", epsilon=1, domain=3).zero_stats().support.dtype == np.int64


def _bad_reports(name, d):
    if name == "de":
        return [np.array([0, d]), np.array([-1]), np.array([[0, 1]]), np.array([0.5])]
    if name in ("sue", "oue"):
        w = bits.packed_width(d)
        pad = np.zeros((2, w), np.uint8)
        pad[1, -1] = 0x80  # bit 8w−1 ≥ d
        return [np.zeros((2, w + 1), np.uint8), np.zeros(w, np.uint8), pad, np.full((1, w), 256),
                np.zeros((1, w), np.float64)]
    if name in ("she", "the"):
        nan = np.zeros((2, d))
        nan[1, 3] = np.nan
        inf = np.zeros((2, d))
        inf[0, 0] = np.inf
        return [nan, inf, np.zeros((2, d + 1)), np.zeros(d), np.array([["x"] * d])]
    ok = (np.array([1, 2]), np.array([0, 5]), np.array([0, 1]))
    return [
        (np.array([0, 2]), ok[1], ok[2]),          # a = 0
        (np.array([PRIME, 2]), ok[1], ok[2]),      # a ≥ P
        (ok[0], np.array([0, PRIME]), ok[2]),      # b ≥ P
        (ok[0], ok[1], np.array([0, 99])),         # y ≥ g
        (ok[0], ok[1], np.array([0])),             # lengths differ
        (ok[0], ok[1]),                            # not a triple
        np.zeros((3, 2), dtype=float),             # floats
    ]


@pytest.mark.parametrize("name", ALL)
def test_validation_rejects_malformed(name):
    d = 12  # not a multiple of 8: unary reports have 4 padding bits
    fo = oracles.get(name, epsilon=1.0, domain=d)
    for bad in _bad_reports(name, d):
        with pytest.raises(ValueError):
            fo.aggregate(bad)
    good = fo.perturb(np.arange(d), np.random.default_rng(0))
    fo.validate(good)
    assert fo.aggregate(good).n == d
    with pytest.raises(ValueError):
        fo.perturb(np.array([d]), np.random.default_rng(0))


def test_bad_parameters():
    for kwargs in ({"epsilon": 0, "domain": 4}, {"epsilon": float("inf"), "domain": 4}, {"epsilon": 1, "domain": 1}):
        for name in ALL + ["adaptive"]:
            with pytest.raises(ValueError):
                oracles.get(name, **kwargs)
    for t in (-0.1, 1.5, "x"):
        with pytest.raises(ValueError, match="threshold"):
            oracles.get("the", epsilon=1, domain=4, threshold=t)
    with pytest.raises(ValueError):
        oracles.get("de", epsilon=1, domain=4, threshold=0.5)
    with pytest.raises(ValueError):
        oracles.get("nope", epsilon=1, domain=4)


def test_packed_format_huge_epsilon():
    d = 13
    values = np.arange(d)
    sue = oracles.get("sue", epsilon=120.0, domain=d)  # p = 1 − e^{−60}, q = e^{−60}
    packed = sue.perturb(values, np.random.default_rng(1))
    assert packed.dtype == np.uint8 and packed.shape == (d, 2)
    assert np.array_equal(bits.unpack(packed, d), np.eye(d, dtype=np.uint8))
    assert packed[9, 1] == 1 << 1  # bit v lives in byte v // 8 at position v % 8
    oue = oracles.get("oue", epsilon=120.0, domain=d)  # own bit is a fair coin, other bits ≈ never
    unpacked = bits.unpack(oue.perturb(np.repeat(values, 20), np.random.default_rng(2)), d)
    own = unpacked[np.arange(d * 20), np.repeat(values, 20)]
    unpacked[np.arange(d * 20), np.repeat(values, 20)] = 0
    assert not unpacked.any()
    assert 0 < own.sum() < d * 20


def test_olh_fold_matches_hash_function():
    rng = np.random.default_rng(5)
    for eps, d in ((1.0, 37), (4.0, 9)):
        fo = oracles.get("olh", epsilon=eps, domain=d)
        n = 3000
        a = rng.integers(1, PRIME, n)
        b = rng.integers(0, PRIME, n)
        a[:3], b[:3] = PRIME - 1, PRIME - 1   # extremes of the hash family
        y = rng.integers(0, fo.g, n)
        brute = (olh_hash(a[:, None], b[:, None], np.arange(d)[None, :], fo.g) == y[:, None]).sum(axis=0)
        assert np.array_equal(fo.aggregate((a, b, y)).support, brute)
        # the client hashes with the same function: at ε = 15 (g ≈ 3.3e6, p ≈ 1/2) y = h(v) for about half the
        # reports and, with probability ≈ 1/g each, for none of the others (another hash would give ≈ 0 matches)
        big = oracles.get("olh", epsilon=15.0, domain=d)
        values = rng.integers(0, d, 200)
        ra, rb, ry = big.perturb(values, rng)
        assert 60 < np.count_nonzero(ry == olh_hash(ra, rb, values, big.g)) < 140


def test_standard_errors_and_params_are_json():
    rng = np.random.default_rng(3)
    for name in ALL:
        fo = oracles.get(name, epsilon=1.0, domain=6)
        stats = fo.aggregate(fo.perturb(rng.integers(0, 6, 200), rng))
        se = fo.standard_errors(stats)
        assert se.shape == (6,) and np.all(se > 0)
        params = json.loads(json.dumps(fo.params()))
        assert params["name"] == name and params["domain"] == 6


def test_adaptive_choice():
    for d in (2, 3, 8, 16, 50, 256, 1024):
        for eps in (0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0):
            expected = "de" if d - 2 < 3 * math.exp(eps) else "oue"
            assert oracles.choose(eps, d) == expected, (eps, d)
            fo = oracles.get("adaptive", epsilon=eps, domain=d)
            assert fo.name == expected and fo.epsilon == eps and fo.domain == d
    # ties: d − 2 = 3e^ε (d = 8, ε = ln 2) → DE; OLH equals OUE when g = e^ε + 1 is an integer → OLH
    assert oracles.choose(math.log(2), 8) == "de"
    assert oracles.choose(math.log(3), 16) == "olh"
    assert oracles.choose(math.log(3), 11) == "de"
