"""Warner's related-question model and Du & Zhan's multi-attribute form (SPEC §2, seed 004 §6.1)."""
import numpy as np
import pytest
from scipy import stats as sps

from aggregator.privacy.schema import Categorical
from aggregator.privacy.warner import WarnerScheme, warner_estimate, warner_perturb

ATTRS = [Categorical("a", ("0", "1")), Categorical("b", ("0", "1")), Categorical("c", ("0", "1"))]
P_C1 = 0.3
P_A1 = np.array([0.2, 0.75])  # P(a=1 | c)
P_B1 = np.array([0.6, 0.1])


def sample(n, rng):
    c = (rng.random(n) < P_C1).astype(np.int64)
    a = (rng.random(n) < P_A1[c]).astype(np.int64)
    b = (rng.random(n) < P_B1[c]).astype(np.int64)
    return np.column_stack([a, b, c])


def true_joint(p1):
    pc = np.array([1 - P_C1, P_C1])
    return np.vstack([(1 - p1) * pc, p1 * pc])


@pytest.mark.parametrize("theta", [0.2, 0.8, 1.0])
def test_scheme_unbiased_with_matching_standard_errors(theta):
    # i.i.d. surveys from the population; |mean − truth| < 5 SE of the mean; variance ratio in the χ² 1e-5 band.
    reps, n = 300, 2000
    rng = np.random.default_rng(int(theta * 1000))
    scheme = WarnerScheme(ATTRS, 2, theta)
    vals, se2 = [], []
    for _ in range(reps):
        est = scheme.estimate(scheme.aggregate(scheme.perturb(sample(n, rng), rng)))
        vals.append(np.concatenate([est.prior_raw] + [j.ravel() for j in est.joint_raw]))
        se2.append(np.concatenate([est.prior_se] + [s.ravel() for s in est.joint_se]) ** 2)
    vals, se2 = np.array(vals), np.array(se2).mean(axis=0)
    truth = np.concatenate([[1 - P_C1, P_C1], true_joint(P_A1).ravel(), true_joint(P_B1).ravel()])
    z = (vals.mean(axis=0) - truth) / np.sqrt(se2 / reps)
    ratio = vals.var(axis=0, ddof=1) / se2
    lo = sps.chi2.ppf(1e-5, reps - 1) / (reps - 1)
    hi = sps.chi2.ppf(1 - 1e-5, reps - 1) / (reps - 1)
    print(f"warner theta={theta}: max |z| {np.abs(z).max():.2f}, var ratios [{ratio.min():.3f}, {ratio.max():.3f}]")
    assert np.all(np.abs(z) < 5), z
    assert np.all((ratio > lo) & (ratio < hi)), ratio


def test_single_attribute_estimate_unbiased():
    rng = np.random.default_rng(1)
    reps, n, theta, p = 400, 1000, 0.7, 0.25
    ests, ses = [], []
    for _ in range(reps):
        x = (rng.random(n) < p).astype(np.int64)
        r = warner_perturb(x, theta, rng)
        e, s = warner_estimate(r.sum(), n, theta)
        ests.append(float(e)), ses.append(float(s))
    se_mean = np.sqrt(np.mean(np.square(ses)) / reps)
    assert abs(np.mean(ests) - p) < 5 * se_mean


def test_record_negated_together_and_theta_one_exact():
    rng = np.random.default_rng(2)
    X = sample(500, rng)
    R = warner_perturb(X, 0.4, rng)
    flipped = R != X
    assert np.all(flipped.all(axis=1) | (~flipped).all(axis=1))
    scheme = WarnerScheme(ATTRS, 2, 1.0)
    est = scheme.estimate(scheme.aggregate(X))
    np.testing.assert_allclose(est.prior, np.bincount(X[:, 2], minlength=2) / 500, atol=1e-12)
    stats = scheme.aggregate(X)
    for method in ("norm-sub", "neg-to-one"):  # every cell count ≥ 1 here, so neg-to-one changes nothing
        est = scheme.estimate(stats, postprocess=method)
        np.testing.assert_allclose(est.prior, stats.class_counts / 500, atol=1e-12)
        for cond, joint in zip(est.conditionals, stats.joint, strict=True):
            assert np.all(joint >= 1)
            np.testing.assert_allclose(cond, joint / stats.class_counts[None, :], atol=1e-12)


def test_validation():
    with pytest.raises(ValueError, match="0.5"):
        warner_estimate(10, 100, 0.5)
    scheme = WarnerScheme(ATTRS, 2, 0.5)
    with pytest.raises(ValueError, match="0.5"):
        scheme.estimate(scheme.aggregate(np.zeros((4, 3), dtype=np.int64)))
    with pytest.raises(ValueError, match="binary"):
        WarnerScheme([Categorical("x", ("a", "b", "c")), ATTRS[2]], 1, 0.7)
    with pytest.raises(ValueError, match="theta"):
        warner_perturb(np.zeros(3, dtype=np.int64), 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError):
        warner_perturb(np.array([0, 2]), 0.7, np.random.default_rng(0))
