"""The default Naive Bayes estimator under noise (issue 13; ``privacy.shrinkage``): posterior means of P(a | c) under
the flat Dirichlet prior, from each raw estimate's own perturbation standard error.

(a) As the noise vanishes the estimate tends to the old default (Norm-Sub) — Tweedie's formula gives the rate:
    E[θ | r] = r + s²·(log π)'(r) + O(s⁴), (log π)'(θ) = −(n_i − 2)/(1 − θ) for π = Beta(1, n_i − 1).
(b) As the noise grows the likelihood goes flat on [0, 1]: with Δ = (|r| + 1)/s² the posterior mean lies in
    [e^{−Δ}, e^{Δ}]·(1/n_i), so every column tends to uniform, each log P(a | c) differs across classes by at most
    4·max Δ after normalising, and once Σ_i 4·max Δ_i < the prior's log-odds every record is given argmax P̂(c).
Every tolerance below is one of these bounds, evaluated on the test's own noise levels.
"""
from __future__ import annotations

import numpy as np
import pytest

from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.mrr import MRRScheme
from aggregator.privacy.naive_bayes.ldp import LDPNaiveBayes, count_covariance
from aggregator.privacy.naive_bayes.model import PROB_FLOOR
from aggregator.privacy.postprocess import DEFAULT, METHODS
from aggregator.privacy.schema import Categorical
from aggregator.privacy.shrinkage import NAME, posterior_conditionals, posterior_mean

CLS = Categorical("class", ("no", "yes"))
ATTRS = (Categorical("colour", ("red", "green", "blue")), Categorical("size", ("S", "L")))
P_C = np.array([0.8, 0.2])  # the majority class is 0
P_A = (np.array([[0.6, 0.2], [0.3, 0.3], [0.1, 0.5]]), np.array([[0.35, 0.7], [0.65, 0.3]]))


def draw(n: int, rng: np.random.Generator):
    y = (rng.random(n) >= P_C[0]).astype(np.int64)
    X = np.column_stack([(rng.random(n)[:, None] > np.cumsum(t[:, y].T, axis=1)).sum(axis=1) for t in P_A])
    return X.astype(np.int64), y


def tweedie_slope(r, size):
    return -(size - 2) / (1 - r)


# -- the posterior mean itself -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [2, 3, 10, 42])
def test_posterior_mean_small_noise_follows_tweedie(size):
    r = np.linspace(0.05, 0.9, 18)
    for s in (1e-3, 1e-4):
        e = posterior_mean(r, np.full_like(r, s), size)
        # Tweedie to second order; the next term is s⁴·(l1·l2 + l3/2) with l_k the k-th derivative of log π,
        # |·| ≤ s⁴·(n_i² + n_i)/(1 − r)³
        tolerance = 2 * s**4 * (size**2 + size) / (1 - r) ** 3 + 1e-12
        assert np.all(np.abs(e - (r + s**2 * tweedie_slope(r, size))) <= tolerance)
        assert np.all(tolerance < 0.1 * s**2 * np.maximum(np.abs(tweedie_slope(r, size)), 1))  # the slope is tested
    assert np.array_equal(posterior_mean(r, np.zeros_like(r), size), r)  # no noise: the raw value itself


@pytest.mark.parametrize("size", [2, 3, 10])
def test_posterior_mean_large_noise_tends_to_prior_mean(size):
    rng = np.random.default_rng(5)
    for s in (1e2, 1e4):
        r = rng.normal(0.3, s, 50)
        e = posterior_mean(r, np.full_like(r, s), size)
        delta = (np.abs(r) + 1) / s**2
        assert np.all(e >= np.exp(-delta) / size - 1e-12) and np.all(e <= np.exp(delta) / size + 1e-12)


def test_posterior_mean_far_outside_the_unit_interval():
    s = np.full(4, 0.01)
    e = posterior_mean(np.array([-1.0, -0.2, 1.2, 2.0]), s, 3)
    # the posterior decays like exp(−θ|r|/s²) from the nearer end: mean ≈ s²/|r − end|
    assert np.all(e[:2] > 0) and np.all(e[:2] < 2 * s[:2] ** 2 / np.array([1.0, 0.2]))
    assert np.all(e[2:] < 1) and np.all(1 - e[2:] < 2 * s[2:] ** 2 / np.array([0.2, 1.0]))


def test_posterior_conditionals_columns_and_empty_class():
    joint = np.array([[0.3, -0.1], [0.5, 0.05], [-0.02, 0.02]])
    out = posterior_conditionals(joint, np.full(joint.shape, 1e-3), np.array([0.8, 0.0]))
    np.testing.assert_allclose(out.sum(axis=0), 1.0)
    assert np.all(out > 0)
    np.testing.assert_allclose(out[:, 1], 1 / 3)  # a class with P̂(c) = 0 carries no information
    with pytest.raises(ValueError):
        posterior_conditionals(joint, -np.ones(joint.shape), np.array([0.5, 0.5]))


def test_bayes_is_the_default_everywhere():
    assert DEFAULT == NAME == "bayes" and {"bayes", "norm-sub", "neg-to-one"} <= set(METHODS)
    assert LDPNaiveBayes(CLS, ATTRS, 1.0).postprocess == "bayes"
    proto = survey_protocol.build({"class": CLS.to_dict(), "features": [a.to_dict() for a in ATTRS], "mode": "ldp",
                                   "ldp": {"epsilon": 1.0, "encoding": "oue"}})
    X, y = draw(2000, np.random.default_rng(0))
    assert proto.estimate(proto.fold(proto.encode(X, y, np.random.default_rng(1)))).metadata["postprocess"] == "bayes"
    mrr = survey_protocol.build({"class": CLS.to_dict(), "features": [a.to_dict() for a in ATTRS], "mode": "mrr",
                                 "mrr": {"theta": 0.7}})
    assert mrr.postprocess == "bayes"


# -- (a): no noise → the old default ---------------------------------------------------------------------------
def _both(nb_kwargs, X, y, seed, shrinking="bayes"):
    models = {}
    for method in (shrinking, "norm-sub"):
        nb = LDPNaiveBayes(CLS, ATTRS, postprocess=method, **nb_kwargs)
        stats = nb.aggregate(nb.perturb(X, y, np.random.default_rng(seed)))
        models[method] = nb.estimate(stats)
    return nb, stats, models


def test_ldp_without_noise_equals_norm_sub():
    """DE at ε = 40: reports are the true answers (q ≈ e^{-40}), s ≈ 1e-9, so the two estimates agree to s²."""
    X, y = draw(5000, np.random.default_rng(1))
    _, _, models = _both({"epsilon": 40.0, "oracle": "de"}, X, y, 2)
    for a, b in zip(models["bayes"].conditionals, models["norm-sub"].conditionals, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_ldp_huge_n_tends_to_norm_sub_at_the_tweedie_rate():
    """OUE, ε = 3, 600,000 respondents: no raw joint is negative, so Norm-Sub is the raw conditional; the posterior mean
    under the flat Dirichlet ("posterior-mean") differs from it by the Tweedie term s²·(log π)'(r) per entry, at most
    twice that after normalising."""
    X, y = draw(600_000, np.random.default_rng(3))
    nb, stats, models = _both({"epsilon": 3.0, "oracle": "oue"}, X, y, 4, shrinking="posterior-mean")
    models["bayes"] = models["posterior-mean"]
    prior = models["bayes"].prior
    for i, attr in enumerate(ATTRS):
        fo, counts = nb.oracles[i + 1], stats.per_input[i + 1]
        est = fo.estimate(counts)
        assert np.all(est > 0)
        s2 = (np.diag(count_covariance(fo, counts.n, np.clip(est, 0, counts.n))) / counts.n**2).reshape(attr.size, 2)
        r = (est / counts.n).reshape(attr.size, 2) / prior
        bound = 2 * np.max(s2 / prior**2 * np.abs(tweedie_slope(r, attr.size))) + 1e-12
        diff = np.abs(models["bayes"].conditionals[i] - models["norm-sub"].conditionals[i]).max()
        assert diff <= bound
        assert bound < 1e-3  # and the bound itself is small: the estimates agree


def test_mrr_at_theta_one_equals_norm_sub():
    X, y = draw(3000, np.random.default_rng(6))
    scheme = MRRScheme(ATTRS + (CLS,), class_index=2, theta=1.0)
    stats = scheme.aggregate(scheme.perturb(np.column_stack([X, y]), np.random.default_rng(7)))
    new, old = scheme.estimate(stats), scheme.estimate(stats, postprocess="norm-sub")
    for a, b in zip(new.conditionals, old.conditionals, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


# -- (b): growing noise → the majority rule --------------------------------------------------------------------
def _flatness(model, r_s_pairs):
    """Σ_i 4·max Δ_i (module docstring) over the classes with P̂(c) > 0 (a class with P̂(c) = 0 has the uniform
    column by construction)."""
    live = model.prior > 0
    return sum(4 * np.max(((np.abs(r) + 1) / s**2)[:, live]) for r, s in r_s_pairs)


def _ldp_noise(nb, stats, prior):
    prior = np.where(prior > 0, prior, 1.0)
    pairs = []
    for i, attr in enumerate(ATTRS):
        fo, counts = nb.oracles[i + 1], stats.per_input[i + 1]
        est = fo.estimate(counts)
        var = np.diag(count_covariance(fo, counts.n, np.clip(est, 0, counts.n))) / counts.n**2
        pairs.append(((est / counts.n).reshape(attr.size, 2) / prior, np.sqrt(var).reshape(attr.size, 2) / prior))
    return pairs


def test_ldp_predictions_become_the_majority_rule_as_epsilon_shrinks():
    X, y = draw(40_000, np.random.default_rng(8))
    grid = np.array(np.meshgrid(*[np.arange(a.size) for a in ATTRS])).reshape(len(ATTRS), -1).T  # every record
    shares, old_shares = [], []
    for epsilon in (4.0, 0.5, 0.05, 2e-4):
        # the moment rule's κ (limit (b)); the default's guard is tested in tests/engine/test_dependence.py
        nb, stats, models = _both({"epsilon": epsilon, "oracle": "oue"}, X, y, 9, shrinking="moment-mean")
        model = models["moment-mean"]
        majority = int(np.argmax(model.prior))
        shares.append(float(np.mean(model.predict(grid) == majority)))
        old_shares.append(float(np.mean(models["norm-sub"].predict(grid) == majority)))
    assert shares[0] < 1  # with little noise the classifier uses the features
    # at ε = 2·10⁻⁴ the theory applies: the conditionals' log-ratios are bounded below the prior's log-odds …
    log_odds = abs(np.diff(np.log(np.maximum(model.prior, PROB_FLOOR)))[0])
    assert _flatness(model, _ldp_noise(nb, stats, model.prior)) < log_odds
    assert shares[-1] == 1.0  # … so every record gets the majority class
    assert old_shares[-1] < 1.0  # which Norm-Sub alone does not do


def test_mrr_predictions_become_the_majority_rule_as_theta_shrinks():
    X, y = draw(40_000, np.random.default_rng(10))
    grid = np.array(np.meshgrid(*[np.arange(a.size) for a in ATTRS])).reshape(len(ATTRS), -1).T
    scheme_shares = []
    for theta in (0.9, 0.3, 0.001):
        scheme = MRRScheme(ATTRS + (CLS,), class_index=2, theta=theta)
        stats = scheme.aggregate(scheme.perturb(np.column_stack([X, y]), np.random.default_rng(11)))
        est = scheme.estimate(stats)
        model = est.to_model()
        scheme_shares.append(float(np.mean(model.predict(grid) == int(np.argmax(model.prior)))))
    pairs = []
    for j in range(len(ATTRS)):
        p_ac = stats.joint[j] / stats.n
        var = np.maximum(p_ac * (1 - p_ac) / (stats.n * theta**2) - np.clip(est.joint_raw[j], 0, 1)
                         * (1 - np.clip(est.joint_raw[j], 0, 1)) / stats.n, 0.0)
        safe = np.where(model.prior > 0, model.prior, 1.0)
        pairs.append((est.joint_raw[j] / safe, np.sqrt(var) / safe))
    log_odds = abs(np.diff(np.log(np.maximum(model.prior, PROB_FLOOR)))[0])
    assert scheme_shares[0] < 1
    assert _flatness(model, pairs) < log_odds
    assert scheme_shares[-1] == 1.0
