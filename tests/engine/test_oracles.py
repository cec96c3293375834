"""Frequency oracles (SPEC §3): DE, SUE, OUE, SHE, THE, OLH and the adaptive choice.

Statistical tolerances (fixed seeds):
* unbiasedness: for every value v, |mean of R estimates − c_v| < 5·σ_v/√R with σ_v² = exact_variance
  (a 5-SE two-sided miss has probability 5.7e-7 per value under the CLT);
* variance: (R−1)·s_v²/σ_v² ~ χ²_{R−1} for near-normal estimates (sums of n i.i.d. terms); we require it inside
  the two-sided interval of total level 1e-4 per configuration, Bonferroni-split over the d values (28
  configurations: a false failure anywhere has probability < 3e-3).
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from aggregator.privacy import bits, noise, oracles
from aggregator.privacy.oracles.histogram import optimal_threshold, the_probabilities
from aggregator.privacy.oracles.olh import PRIME, olh_buckets, olh_hash
from aggregator.privacy.stats import Counts

ALL = ["de", "sue", "oue", "she", "the", "olh"]

# Every protocol at d ∈ {2, 16} × ε ∈ {0.5, 2}, plus: d = 10 exercises unary padding bits, THE at t = 0.25
# reproduces seed 000, OLH at ε = 3 has g = 21 > d = 20.
CONFIGS = [(name, d, eps, {}) for name in ALL for d in (2, 16) for eps in (0.5, 2.0)] + [
    ("sue", 10, 1.0, {}), ("oue", 10, 1.0, {}), ("the", 8, 1.0, {"threshold": 0.25}), ("olh", 20, 3.0, {}),
]
N, REPS = 400, 500


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
        return tuple(np.concatenate([x, y]) for x, y in zip(a, b, strict=True))
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
    d, eps, n = 12, 1.3, 1200
    fo = oracles.get(name, epsilon=eps, domain=d)
    uniform = np.full(d, n / d)
    skewed = np.arange(d) * (2 * n / (d * (d - 1)))  # sums to n
    if name == "she":  # the noise does not depend on the value: no frequency term; 8n/ε² up to the grid
        for counts in (uniform, skewed):
            assert np.array_equal(fo.exact_variance(n, counts), np.full(d, fo.count_variance(n)))
        assert fo.count_variance(n) == pytest.approx(8 * n / eps ** 2, rel=1e-6)
        return
    p, q = fo.p, fo.q
    for counts in (uniform, skewed):
        exact = fo.exact_variance(n, counts)
        assert exact.shape == (d,)
        # From first principles: c_v = Bin(n_v, p) + Bin(n − n_v, q) independent, Ê_v = (c_v − nq)/(p − q).
        direct = (counts * p * (1 - p) + (n - counts) * q * (1 - q)) / (p - q) ** 2
        assert np.allclose(exact, direct, rtol=1e-12)
        # = the table's approximation + the frequency term c_v(1−p−q)/(p−q) (SPEC §3)
        assert np.allclose(exact, fo.count_variance(n) + counts * (1 - p - q) / (p - q), rtol=1e-12)
    # On the uniform distribution the frequency term is the same n/d·(1−p−q)/(p−q) for every value.
    assert np.allclose(fo.exact_variance(n, uniform) - fo.count_variance(n), n / d * (1 - p - q) / (p - q))
    e = math.exp(eps)
    table = {
        "de": n * (d - 2 + e) / (e - 1) ** 2,
        "sue": n * math.exp(eps / 2) / (math.exp(eps / 2) - 1) ** 2,
        "oue": n * 4 * e / (e - 1) ** 2,
    }
    if name in table:
        assert fo.count_variance(n) == pytest.approx(table[name], rel=1e-12)
    if name == "the":
        # Grid probabilities vs SPEC's continuous p = 1 − ½e^{(ε/2)(t−1)}, q = ½e^{−(ε/2)t}: the grid shifts the
        # threshold by < γ and the tail's normaliser by ≈ γ/(2b) (b = 2/ε), so |ln(q/q_cont)| < 1.5γ/b < γε.
        t, tol = fo.threshold, noise.GRID * eps
        assert p == pytest.approx(1 - 0.5 * math.exp(eps / 2 * (t - 1)), rel=tol)
        assert q == pytest.approx(0.5 * math.exp(-eps / 2 * t), rel=tol)


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
        if name in ("she", "the"):
            # The report is the one-hot vector + γ·K per component, P(K = k) ∝ α^|k|, α = e^{−γ/b}, b = 2/ε: two
            # one-hot vectors differ by 1 = 1/γ grid steps in two components, so the likelihood ratio of any
            # report is at most α^{−2/γ} — which must be e^ε. Reports must lie on the grid for this to hold.
            b = fo.params()["laplace_scale"]
            assert b == pytest.approx(2 / eps)
            alpha = math.exp(-noise.GRID / b)
            assert alpha ** (-2 / noise.GRID) == pytest.approx(math.exp(eps), rel=1e-9)
            reports = fo.perturb(np.arange(9), np.random.default_rng(4))
            assert np.array_equal(reports / noise.GRID, np.round(reports / noise.GRID))
            if name == "she":
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
        return [np.array([0, d]), np.array([-1]), np.array([[0, 1]]), np.array([0.5]), np.array([np.nan]),
                np.array([np.inf]), np.array([1e30]), np.array(["1"]), np.array([1, None], dtype=object),
                np.array([2 ** 63], dtype=np.uint64), np.array([0, 2 ** 40]), np.array([3, -2], dtype=np.int32)]
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
        opposite = np.zeros((2, d))
        opposite[:, 5] = [np.inf, -np.inf]  # a column sum of NaN, a row sum of ±∞
        late = np.zeros((30000, d))        # more than one block of the fold (2¹⁸ components)
        late[29999, d - 1] = np.nan
        return [nan, inf, -inf, opposite, late, np.zeros((2, d + 1)), np.zeros(d), np.array([["x"] * d]),
                np.zeros((2, d), dtype=complex)]
    ok = (np.array([1, 2]), np.array([0, 5]), np.array([0, 1]))
    return [
        (np.array([0, 2]), ok[1], ok[2]),          # a = 0
        (np.array([PRIME, 2]), ok[1], ok[2]),      # a ≥ P
        (ok[0], np.array([0, PRIME]), ok[2]),      # b ≥ P
        (ok[0], ok[1], np.array([0, 99])),         # y ≥ g
        (ok[0], ok[1], np.array([0, -1])),         # y < 0
        (ok[0].astype(float), ok[1], ok[2]),       # float component
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
        with pytest.raises(ValueError):
            fo.validate(bad)
    good = fo.perturb(np.arange(d), np.random.default_rng(0))
    fo.validate(good)
    assert fo.aggregate(good).n == d
    with pytest.raises(ValueError):
        fo.perturb(np.array([d]), np.random.default_rng(0))


def test_histogram_fold_in_blocks(monkeypatch):
    # Force many blocks (and a partial last one): the fold must equal the plain column sum / threshold count.
    from aggregator.privacy.oracles import histogram

    monkeypatch.setattr(histogram, "_FOLD_CELLS", 50)
    rng = np.random.default_rng(8)
    for d in (3, 7, 64):
        values = rng.integers(0, d, 1001)
        she = oracles.get("she", epsilon=1.0, domain=d)
        reports = she.perturb(values, rng)
        # grid values: every partial sum is exact, so the order of additions cannot matter
        assert np.array_equal(she.aggregate(reports).support, reports.sum(axis=0))
        the = oracles.get("the", epsilon=1.0, domain=d)
        assert np.array_equal(the.aggregate(reports).support, (reports > the.threshold).sum(axis=0))
        assert she.aggregate(reports).n == the.aggregate(reports).n == 1001


def test_histogram_overflow():
    huge = np.zeros((3, 4))
    huge[:2, 1] = 1e308  # finite components whose sum overflows
    with pytest.raises(ValueError, match="too large"):
        oracles.get("she", epsilon=1.0, domain=4).aggregate(huge)
    the = oracles.get("the", epsilon=1.0, domain=4)
    assert list(the.aggregate(huge).support) == [0, 2, 0, 0]


def test_de_aggregate_accepts_integer_dtypes():
    fo = oracles.get("de", epsilon=1.0, domain=5)
    values = np.array([0, 4, 4, 2, 1, 4])
    expected = np.bincount(values, minlength=5)
    for arr in (values, values.astype(np.int32), values.astype(np.uint8), values.astype(np.uint64),
                values.astype(float), values.tolist()):
        stats = fo.aggregate(arr)
        assert stats.n == 6 and np.array_equal(stats.support, expected) and stats.support.dtype == np.int64
    assert fo.aggregate(np.array([], dtype=np.int64)) == Counts.zero(5)


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


def test_packed_format_in_perturb_blocks(monkeypatch):
    from aggregator.privacy.oracles import unary

    monkeypatch.setattr(unary, "_PERTURB_CELLS", 40)  # a few rows per block, and a partial last block
    for d in (8, 13, 16):
        values = np.random.default_rng(d).permutation(np.tile(np.arange(d), 3))
        packed = oracles.get("sue", epsilon=120.0, domain=d).perturb(values, np.random.default_rng(0))
        assert packed.shape == (3 * d, bits.packed_width(d))
        assert np.array_equal(bits.unpack(packed, d), np.eye(d, dtype=np.uint8)[values])


def test_olh_fold_matches_hash_function(monkeypatch):
    from aggregator.privacy.oracles import olh

    monkeypatch.setattr(olh, "_BLOCK", 700)  # several blocks and a partial last one
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
    """Least exact variance among DE, OLH, SS, OUE (issue 13 item 2; oracles/adaptive.py): SS with its optimal subset
    size is never worse than DE or OUE, and is DE when ω = 1 (the tie goes to DE's smaller report)."""
    for d in (2, 3, 8, 16, 50, 256, 1024):
        for eps in (0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0):
            expected = "de" if oracles.get("ss", epsilon=eps, domain=d).subset_size == 1 else "ss"
            assert oracles.choose(eps, d) == expected, (eps, d)
            fo = oracles.get("adaptive", epsilon=eps, domain=d)
            assert fo.name == expected and fo.epsilon == eps and fo.domain == d
    # ties: SS at ω = 1 is DE exactly → DE (d = 8, ε = 2); OLH equals OUE when g = e^ε + 1 is an integer, and SS
    # (ω = 4) beats both (d = 16, ε = ln 3); the old approximation's DE/OUE boundary d − 2 = 3e^ε (d = 8, ε = ln 2) → SS
    assert oracles.choose(2.0, 8) == "de"
    assert oracles.choose(math.log(3), 16) == "ss"
    assert oracles.choose(math.log(2), 8) == "ss"


@pytest.mark.parametrize("name", ["sue", "oue", "ss"])
@pytest.mark.parametrize("d", [8, 12, 20])
def test_unary_from_wire_checks_rows_as_validate_checks_arrays(name, d):
    """``from_wire`` checks each decoded row itself (``check_row``, the one-report POST's path); it must accept
    exactly the rows ``validate`` accepts and return the same array: random bytes (bad padding, any bit count), and
    the oracle's own reports."""
    import base64

    fo = oracles.get(name, epsilon=1.0, domain=d)
    rng = np.random.default_rng(d)
    width = -(-d // 8)
    rows = list(rng.integers(0, 256, (300, width), dtype=np.uint8)) + list(fo.perturb(np.arange(d), rng))
    accepted = 0
    for row in rows:
        wire = [base64.b64encode(bytes(row)).decode("ascii")]
        try:
            expected = fo.validate(row[None, :])
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                fo.from_wire(wire)
            continue
        got = fo.from_wire(wire)
        assert got.dtype == np.uint8 and got.flags.writeable and np.array_equal(got, expected)
        accepted += 1
    assert accepted >= d  # the oracle's own reports pass
    if d % 8 or name == "ss":  # padding bits or a bit count to refuse: random bytes do not all pass
        assert accepted < len(rows)
    assert fo.from_wire([]).shape == (0, width)
    batch = fo.perturb(np.arange(d), rng)
    assert np.array_equal(fo.from_wire(fo.to_wire(batch)), batch)
