"""Each Gaussian approach as its own class (aggregator/privacy/continuous/approaches.py, SPEC §5b): its noise
parameters, its draws (the same as ``LDPGaussianNB``'s, which the browser vectors pin), its wire codec, its checks
and its additive fold. Exact identities and fixed seeds; the unbiasedness tolerance is 5 standard errors."""
import json

import numpy as np
import pytest

from aggregator.privacy import noise
from aggregator.privacy.continuous.approaches import (
    AllVectors,
    OneBit,
    OneVector,
    VectorApproach,
    approach_class,
    get_approach,
)
from aggregator.privacy.continuous.gaussian import LDPGaussianNB
from aggregator.privacy.oracles.wire import grid_noise_bound
from aggregator.privacy.schema import Categorical, Numeric

M, K, EPSILON = 2, 3, 1.5
CLS = Categorical("c", ("a", "b", "d"))
ATTRS = (Numeric("u", 0.0, 10.0), Numeric("v", -1.0, 1.0))


def entries(rng, n):
    """(n, m) entries in [−1, 1] and n classes."""
    return rng.uniform(-1, 1, size=(n, M)), rng.integers(0, K, n)


@pytest.mark.parametrize("number, cls", [(1, AllVectors), (2, OneBit), (3, OneVector)])
def test_numbers_and_parameters(number, cls):
    approach = get_approach(number, M, K, EPSILON)
    assert type(approach) is cls and approach.number == number and approach_class(number) is cls
    if number == 2:
        with pytest.raises(ValueError, match="no Laplace noise"):
            _ = approach.sensitivity
        e = np.exp(EPSILON)
        assert approach.magnitude == pytest.approx(M * K * (e + 1) / (e - 1), rel=1e-15)
        assert approach.params() == {"approach_name": "one-bit", "onebit_magnitude": approach.magnitude,
                                     "onebit_half_gap": approach.half_gap}
        assert approach.half_gap == pytest.approx((e - 1) / (2 * e + 2), rel=1e-15)
        assert approach.probability(-1.0) == 0.5 - approach.half_gap  # the browser's double (one_bit.mjs)
        assert approach.default_prior_share() == 0.1
    else:
        assert approach.sensitivity == (2.0 * M if number == 1 else 2.0)
        assert approach.laplace_scale == approach.sensitivity / EPSILON
        assert approach.noise_variance == noise.discrete_laplace_variance(approach.laplace_scale)
        assert approach.params() == {"approach_name": approach.name, "laplace_scale": approach.laplace_scale,
                                     "grid": noise.GRID}
        assert approach.default_prior_share() == (0.1 if number == 1 else 1 / (2 * M + 1))


@pytest.mark.parametrize("bad", [0, 4, True, "3", None, [3]])
def test_only_three_approaches(bad):
    with pytest.raises(ValueError, match="approach must be 1, 2 or 3"):
        get_approach(bad, M, K, EPSILON)


@pytest.mark.parametrize("number", [1, 2, 3])
def test_the_mechanism_delegates_with_the_same_draws(number):
    """``LDPGaussianNB`` holds the approach and delegates: identical reports, checks, folds and parameters."""
    nb = LDPGaussianNB(CLS, ATTRS, EPSILON, approach=number)
    assert isinstance(nb.vectors, VectorApproach) and nb.vectors.number == number
    z, y = entries(np.random.default_rng(1), 50)
    direct = nb.vectors.randomize(z, y, np.random.default_rng(2))
    through = nb.randomize(z, y, np.random.default_rng(2))
    for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (direct, through)), strict=True):
        np.testing.assert_array_equal(a, b)
    folded = nb.fold_vectors(through)
    n, sums, sumsq, counts = nb.vectors.fold(direct)
    assert folded.n == n and np.array_equal(folded.sums, sums) and np.array_equal(folded.sumsq, sumsq)
    assert np.array_equal(folded.counts, counts)
    params = nb.params()
    assert {key: params[key] for key in nb.vectors.params()} == nb.vectors.params()


@pytest.mark.parametrize("number", [1, 2, 3])
def test_wire_round_trip(number):
    approach = get_approach(number, M, K, EPSILON)
    reports = approach.randomize(*entries(np.random.default_rng(3), 40), np.random.default_rng(4))
    wire = json.loads(json.dumps(approach.to_wire(reports)))
    assert len(wire) == 40
    back = approach.from_wire(wire)
    for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (approach.validate(reports), back)), strict=True):
        np.testing.assert_array_equal(a, b)
    empty = approach.fold(approach.from_wire([]))
    assert empty[0] == 0 and not np.any(empty[1]) and not np.any(empty[3])


@pytest.mark.parametrize("number, bad, message", [
    (1, [[[0.0, 0.0, 0.0]]], "2×3 list"),
    (1, [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.001]]], "multiples of 2\\^-10"),
    (1, [[[0.0, 0.0, 0.0], [0.0, 0.0, 1e9]]], "within"),
    (1, [[[0.0, 0.0, 0.0], [0.0, True, 0.0]]], "finite numbers"),
    (2, [[0, 0]], "±1"),
    (2, [[6, 1]], "entry indices"),
    (2, [[0.5, 1]], "integer index"),
    (2, [[0, 1, 2]], "pair"),
    (3, [[2, [0.0, 0.0, 0.0]]], "attribute indices"),
    (3, [[0, [0.0, 0.0]]], "3 finite numbers"),
    (3, [[0, [0.0, float("nan"), 0.0]]], "3 finite numbers"),
    (3, [[0, [0.0, 0.5 + 2.0**-11, 0.0]]], "multiples of 2\\^-10"),
])
def test_wire_refuses_malformed_reports(number, bad, message):
    with pytest.raises(ValueError, match=message):
        get_approach(number, M, K, EPSILON).from_wire(bad)


@pytest.mark.parametrize("number", [1, 3])
def test_the_wire_bound_is_one_plus_the_tail_scales(number):
    """The largest accepted grid value is ``grid_noise_bound(b)`` for the approach's own scale b."""
    approach = get_approach(number, M, K, EPSILON)
    edge = np.floor(grid_noise_bound(approach.laplace_scale) / noise.GRID) * noise.GRID
    value = [[edge, 0.0, 0.0], [0.0, 0.0, 0.0]] if number == 1 else [0, [edge, 0.0, 0.0]]
    approach.from_wire([value])
    value = [[edge + noise.GRID, 0.0, 0.0], [0.0, 0.0, 0.0]] if number == 1 else [0, [edge + noise.GRID, 0.0, 0.0]]
    with pytest.raises(ValueError, match="within"):
        approach.from_wire([value])


@pytest.mark.parametrize("number", [1, 2, 3])
def test_fold_is_additive_and_unbiased(number):
    """fold(A ∪ B) = fold(A) + fold(B); E[Σ reported components / reports per attribute] = the class-hiding mean
    (within 5 standard errors of the per-component mean, from the empirical variance)."""
    approach = get_approach(number, M, K, EPSILON)
    rng = np.random.default_rng(10 + number)
    n = 30000
    z, y = entries(rng, n)
    reports = approach.randomize(z, y, rng)
    total = approach.fold(reports)
    half = n // 2
    cut = (lambda r, s: r[s]) if number == 1 else (lambda r, s: (r[0][s], r[1][s]))
    parts = [approach.fold(cut(reports, slice(0, half))), approach.fold(cut(reports, slice(half, n)))]
    assert parts[0][0] + parts[1][0] == total[0]
    np.testing.assert_allclose(parts[0][1] + parts[1][1], total[1], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(parts[0][2] + parts[1][2], total[2], rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(parts[0][3] + parts[1][3], total[3])
    _, sums, sumsq, counts = total
    per = counts[:, None].astype(np.float64)
    truth = np.zeros((M, K))
    for c in range(K):
        truth[:, c] = z[y == c].sum(axis=0) / n
    mean = sums / per
    se = np.sqrt((sumsq / per - mean**2) / per)
    assert np.all(np.abs(mean - truth) <= 5 * se), (mean, truth, se)
