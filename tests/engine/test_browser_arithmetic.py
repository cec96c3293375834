"""The probabilities the browser realizes and the largest ε it honours (SPEC §2; ``browser_arithmetic``).

random() in static/js/random.mjs is U/2^53 — the same double in Python — so the comparisons the browser makes are
replayed here on the boundary values of U."""
import math
from fractions import Fraction

import numpy as np
import pytest

from aggregator.privacy import noise, oracles
from aggregator.privacy.assignment import cdf
from aggregator.privacy.browser_arithmetic import (
    MIN_PROBABILITY,
    check_supported_personal,
    grid_laplace_max_steps,
    grid_laplace_unmatched_mass,
    realized_bernoulli,
    realized_categorical,
    realized_duchi_epsilon,
)
from aggregator.privacy.browser_epsilon import check_supported_epsilon, max_supported_epsilon, realized_oracle_epsilon
from aggregator.privacy.oracles.olh import olh_buckets

TWO53 = 2**53


def published(name: str, epsilon: float, domain: int) -> dict:
    """The params the server publishes for an oracle (OLH's p and g written out from ``oracles.olh``)."""
    if name == "olh":
        g = olh_buckets(epsilon)
        return {"name": "olh", "epsilon": epsilon, "domain": domain, "g": g,
                "p": math.exp(epsilon) / (math.exp(epsilon) + g - 1)}
    return oracles.get(name, epsilon=epsilon, domain=domain).params()


def browser_random(U: int) -> float:
    """random.mjs: ((a >>> 5)·2^26 + (b >>> 6))/2^53 = U/2^53 for U = (a >>> 5)·2^26 + (b >>> 6)."""
    return U / TWO53


@pytest.mark.parametrize("p", [0.0, 1e-300, 2.0**-60, 1 / 3, 0.1, 0.5, 0.7, 1 - 2.0**-53, 1.0,
                               oracles.get("oue", epsilon=2.0, domain=8).params()["q"]])
def test_realized_bernoulli_counts_the_uniforms_below_p(p):
    """P = #{U : U/2^53 < p}/2^53: the count is the first U that fails the comparison."""
    P = realized_bernoulli(p)
    count = P * TWO53
    assert count.denominator == 1
    count = int(count)
    if count > 0:
        assert browser_random(count - 1) < p
    if count < TWO53:
        assert not browser_random(count) < p
    if p >= 0.5:
        assert P == Fraction(p)  # exact: p·2^53 is an integer


def test_realized_categorical_follows_assign():
    probs = [0.1, 0.2, 0.3, 0.4]
    c = cdf(probs)
    real = realized_categorical(c)
    assert sum(real) == 1
    edges = [int(sum(real[: i + 1]) * TWO53) for i in range(len(probs))]
    for i, e in enumerate(edges[:-1]):  # index i is drawn for U < edge i (and ≥ the previous edge)
        u_in, u_out = browser_random(e - 1), browser_random(e)
        assert u_in < c[i] and not u_out < c[i]
    assert [float(x) for x in real] == pytest.approx(probs, abs=2**-52)


def test_p_rounds_to_one_gives_infinite_epsilon_and_is_refused():
    """The issue: from ε ≈ 36.7 binary RR's p is the double 1 (or within 2^-53 of it): ε = ∞ in the browser."""
    de = oracles.get("de", epsilon=37.0, domain=2)
    assert de.p == 1.0 and realized_oracle_epsilon(de.params()) == math.inf
    with pytest.raises(ValueError, match=r"honour.*27\.7"):
        check_supported_epsilon("de", 37.0, domain=2)
    with pytest.raises(ValueError, match="honour"):
        check_supported_epsilon("oue", 30.0)
    with pytest.raises(ValueError, match="honour"):
        check_supported_epsilon("oue", math.inf)
    assert check_supported_epsilon("oue", 27.0) == 27.0


def test_bounds_have_their_closed_forms():
    m = 2.0**40 - 1
    assert max_supported_epsilon("oue") == pytest.approx(math.log(m))
    assert max_supported_epsilon("de", 10) == pytest.approx(math.log(9 * m))
    assert max_supported_epsilon("sue") == pytest.approx(2 * math.log(m))
    assert max_supported_epsilon("olh") == pytest.approx(math.log((2**31 - 2) * m))
    with pytest.raises(ValueError, match="domain"):
        max_supported_epsilon("de")
    with pytest.raises(ValueError, match="unknown"):
        max_supported_epsilon("nope")


@pytest.mark.parametrize("name,domain", [("de", 2), ("de", 50), ("oue", 16), ("sue", 16), ("olh", 100)])
def test_realized_epsilon_stays_close_up_to_the_bound(name, domain):
    """Below the bound every probability is ≥ 2^-40, so the realized ε is within 2·2·2^-52/2^-40 ≈ 1e-3 (abs.)
    of the configured ε (two roundings of ≤ 2^-53 on each of two probabilities ≥ 2^-40 in the ratio)."""
    bound = max_supported_epsilon(name, domain)
    tol = 4 * 2.0**-52 / MIN_PROBABILITY
    for eps in np.linspace(0.05, bound, 400):
        real = realized_oracle_epsilon(published(name, float(eps), domain))
        assert abs(real - eps) <= tol, (eps, real)


def test_small_epsilon_is_realized_exactly_enough():
    for name in ("de", "oue", "sue", "olh"):
        assert realized_oracle_epsilon(published(name, 1.0, 4)) == pytest.approx(1.0, abs=1e-14)
    assert realized_duchi_epsilon(1.0) == pytest.approx(1.0, abs=1e-14)


class _ReplayRandom:
    """A generator whose random(size) returns given arrays, for the grid Laplace sampler."""

    def __init__(self, *arrays):
        self.arrays = list(arrays)

    def random(self, size):
        return np.full(size, self.arrays.pop(0))


def test_grid_laplace_is_bounded_so_its_pure_epsilon_is_infinite():
    scale, grid = 2.0 / 1.0, noise.GRID
    gmax = grid_laplace_max_steps(scale, grid)
    # the largest draw: u1 = 1 − random() = 2^-53, u2 = 1
    top = noise.discrete_laplace(_ReplayRandom(1 - 2.0**-53, 0.0), scale, 1, grid)[0]
    assert top == gmax * grid
    assert realized_oracle_epsilon({"name": "she", "epsilon": 1.0, "domain": 4}) == math.inf
    # a one-hot component can reach 1 + G_max·γ, which the other input cannot produce; that has tiny probability
    mass = grid_laplace_unmatched_mass(scale, grid)
    assert 0 < mass < 1e-15
    bound = max_supported_epsilon("she")
    assert grid_laplace_unmatched_mass(2.0 / bound, grid) <= MIN_PROBABILITY
    assert grid_laplace_unmatched_mass(2.0 / (bound * 1.01), grid) > MIN_PROBABILITY
    with pytest.raises(ValueError, match="honour"):
        check_supported_epsilon("she", bound + 0.5)


def test_personal_probabilities_too_small_for_the_browser():
    check_supported_personal([[0.5, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match="smoking"):
        check_supported_personal([[1e-14, 1 - 1e-14]], names=["smoking"])
