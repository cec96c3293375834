"""Norm-Sub projection onto the probability simplex (``postprocess.project_simplex``)."""
import numpy as np
import pytest

from aggregator.privacy import oracles as _oracles
from aggregator.privacy.ibu import channel_matrix, ibu
from aggregator.privacy.postprocess import mle_krr, project_simplex


@pytest.mark.parametrize("estimates, expected", [
    ([0.5, 0.3, 0.2], [0.5, 0.3, 0.2]),          # already a distribution
    ([1.2, -0.2], [1.0, 0.0]),                    # total 1: shifted by −0.2, clipped at 0 … then renormalised
    ([3.0, 1.0], [0.75, 0.25]),                   # counts: scaled by their total
    ([0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]),     # nothing known: uniform
])
def test_projection_of_simple_cases(estimates, expected):
    assert project_simplex(estimates) == pytest.approx(expected, abs=1e-12)


def test_estimates_cancelling_to_a_zero_total_still_give_a_distribution():
    """Noisy OLH estimates on vote (ε = 0.5) whose total is 0 up to rounding: scaling by that total would give values
    of ~10¹⁶ and no valid projection; they are treated as a non-positive total (scaled by their count)."""
    x = np.array([25.31017011, 0.0, 0.0, 0.0, -16.87344674, -8.43672337])
    f = project_simplex(x)
    assert np.all(f >= 0) and f.sum() == pytest.approx(1.0, abs=1e-12)
    assert f.argmax() == 0  # the only positive estimate keeps the mass


# -- the closed-form MLE of k-RR (SPEC §3; Pinzón et al., AAAI 2026) ------------------------------------------------


@pytest.mark.parametrize("d, epsilon, n", [(2, 0.5, 50), (5, 1.0, 200), (12, 0.5, 300), (30, 2.0, 1000)])
def test_mle_krr_equals_ibu_at_convergence(d, epsilon, n):
    """IBU (EM through the exact channel) converges to the MLE; the closed form must land on the same point,
    including its exact zeros."""
    fo = _oracles.get("de", epsilon=epsilon, domain=d)
    rng = np.random.default_rng(d)
    true = rng.dirichlet(np.full(d, 0.3))
    counts = fo.aggregate(fo.perturb(rng.choice(d, n, p=true), rng))
    closed = mle_krr(fo.estimate(counts), counts.n, fo.p, fo.q)
    em = ibu(channel_matrix(fo), counts.support, max_iter=200000, tol=1e-13)
    assert closed.sum() == pytest.approx(1.0) and np.all(closed >= 0)
    assert np.allclose(closed, em, atol=1e-6)
    # A better likelihood than Norm-Sub's point (it is the maximum).
    def loglik(theta):
        return float(counts.support @ np.log(fo.q + (fo.p - fo.q) * theta))
    assert loglik(closed) >= loglik(project_simplex(fo.estimate(counts))) - 1e-9


def test_mle_krr_positive_estimates_are_kept_and_degenerate_input():
    fo = _oracles.get("de", epsilon=2.0, domain=3)
    est = np.array([50.0, 30.0, 20.0])
    assert np.allclose(mle_krr(est, 100, fo.p, fo.q), est / 100)
    with pytest.raises(ValueError):
        mle_krr(est, 0, fo.p, fo.q)


def test_mle_is_selectable_for_naive_bayes():
    from aggregator.privacy.naive_bayes.ldp import LDPNaiveBayes
    from aggregator.privacy.schema import Categorical

    klass = Categorical("c", ("a", "b"))
    feature = Categorical("f", ("x", "y", "z"))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    X = np.where(rng.random(3000) < 0.7, y, rng.integers(0, 3, 3000))[:, None]
    nb = LDPNaiveBayes(klass, [feature], 1.0, oracle="de", postprocess="mle")
    stats = nb.aggregate(nb.perturb(X, y, rng))
    model = nb.estimate(stats)
    fo, counts = nb.oracles[1], stats.per_input[1]
    joint = mle_krr(fo.estimate(counts), counts.n, fo.p, fo.q).reshape(3, 2)
    assert np.allclose(model.conditionals[0], joint / joint.sum(axis=0))
