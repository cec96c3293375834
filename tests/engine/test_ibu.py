"""Iterative Bayesian update (aggregator/privacy/ibu.py) on DE's channel (SPEC §3)."""
from __future__ import annotations

import numpy as np
import pytest

from aggregator.privacy import oracles
from aggregator.privacy.ibu import channel_matrix, ibu
from aggregator.privacy.postprocess import project_simplex


def test_channel_matrix_of_de():
    fo = oracles.get("de", epsilon=1.0, domain=5)
    c = channel_matrix(fo)
    assert np.allclose(c.sum(axis=0), 1.0)
    assert np.allclose(np.diag(c), fo.p) and c[0, 1] == pytest.approx(fo.q)
    with pytest.raises(ValueError):
        channel_matrix(oracles.get("oue", epsilon=1.0, domain=5))


def test_exact_expected_counts_recover_the_distribution():
    fo = oracles.get("de", epsilon=1.0, domain=8)
    pi = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.08, 0.05, 0.02])
    c = channel_matrix(fo)
    est = ibu(c, 1e6 * (c @ pi))
    assert est.sum() == pytest.approx(1.0, abs=1e-12) and np.all(est >= 0)
    assert np.allclose(est, pi, atol=1e-6)  # EM's fixed point for noiseless frequencies is π itself


def test_consistency_huge_n():
    # Consistency: at n = 10⁴ … 10⁷ the IBU estimate is within 5 standard errors (exact variance, SPEC §3; the SE
    # shrinks as 1/√n) of the truth. With π in the interior, the unbiased estimate Ê/n lies in the simplex for
    # large n and is then the maximum-likelihood estimate (the channel is square and invertible), which IBU
    # must reproduce.
    d = 6
    fo = oracles.get("de", epsilon=1.0, domain=d)
    c = channel_matrix(fo)
    pi = np.array([0.35, 0.25, 0.15, 0.12, 0.08, 0.05])
    rng = np.random.default_rng(11)
    for n in (10_000, 100_000, 1_000_000, 10_000_000):
        values = np.repeat(np.arange(d), (pi * n).astype(int))
        stats = fo.aggregate(fo.perturb(values, rng))
        est = ibu(c, stats.support)
        se = np.sqrt(fo.exact_variance(n, pi * n)) / n
        assert np.all(np.abs(est - pi) < 5 * se), (n, (est - pi) / se)
        unbiased = fo.estimate(stats) / n
        if n >= 1_000_000:
            assert np.all(unbiased > 0)
            assert np.allclose(est, unbiased, atol=1e-7)


@pytest.mark.slow  # ≈ 15 s: 200 runs of up to 10⁴ EM steps
def test_ibu_beats_norm_sub_at_small_epsilon():
    # A measured comparison: ε = 0.5, d = 16, geometric π (ratio 0.6: most values are rare), n = 2000, R = 200
    # reps with a fixed seed. The per-rep difference D = MSE(Norm-Sub) − MSE(IBU) (squared L2 error of the
    # distribution) has mean estimated with standard error s_D/√R; require mean − 3·SE > 0. Measured:
    # D = 0.0021 ± 0.0003 on MSE(IBU) = 0.106 — a small (≈ 2 %) but clear gain; at larger n or ε the two
    # are within ≈ 1 % of each other (e.g. n = 20000: 0.0155 vs 0.0156).
    d, eps, n, reps = 16, 0.5, 2000, 200
    fo = oracles.get("de", epsilon=eps, domain=d)
    c = channel_matrix(fo)
    w = 0.6 ** np.arange(d)
    values = np.repeat(np.arange(d), np.round(w / w.sum() * n).astype(int))
    truth = np.bincount(values, minlength=d) / values.size
    rng = np.random.default_rng(2024)
    diffs, mse_ibu = [], 0.0
    for _ in range(reps):
        stats = fo.aggregate(fo.perturb(values, rng))
        norm_sub = project_simplex(fo.estimate(stats))
        em = ibu(c, stats.support)
        assert em.sum() == pytest.approx(1.0, abs=1e-9) and np.all(em >= 0)
        diffs.append(np.sum((norm_sub - truth) ** 2) - np.sum((em - truth) ** 2))
        mse_ibu += np.sum((em - truth) ** 2)
    diffs = np.array(diffs)
    se = diffs.std(ddof=1) / np.sqrt(reps)
    print(f"MSE(Norm-Sub) − MSE(IBU) = {diffs.mean():.5f} ± {se:.5f} (SE); MSE(IBU) = {mse_ibu / reps:.5f}")
    assert diffs.mean() - 3 * se > 0


def test_ibu_rejects_bad_input():
    c = channel_matrix(oracles.get("de", epsilon=1.0, domain=3))
    for bad in (np.ones(4), -np.ones(3), np.zeros(3), np.array([1.0, np.nan, 1.0])):
        with pytest.raises(ValueError):
            ibu(c, bad)
    with pytest.raises(ValueError):
        ibu(c * 2, np.ones(3))
    with pytest.raises(ValueError):
        ibu(c, np.ones(3), max_iter=0)


def test_zero_counts_and_general_channel():
    # A non-square channel with zeros (2 outputs, 3 inputs) and an unobserved report value: stays on the simplex.
    c = np.array([[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]])
    est = ibu(c, np.array([10.0, 0.0]))
    assert est.sum() == pytest.approx(1.0) and np.all(est >= 0)
    assert est[2] == pytest.approx(0.0, abs=1e-9)
