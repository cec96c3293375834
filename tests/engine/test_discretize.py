"""Equal-width discretization (SPEC §5a): edges, codes consistent with the edges, clipping, labels, validation, and
the discrete LDP Naive Bayes (SPEC §4) on the bins."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.privacy.continuous.discretize import ewd_attribute, ewd_codes, ewd_edges
from aggregator.privacy.naive_bayes.ldp import LDPNaiveBayes
from aggregator.privacy.schema import Categorical, Numeric

AGE = Numeric("age", 0.0, 10.0)


def test_edges():
    assert ewd_edges(AGE, 4).tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    edges = ewd_edges(Numeric("x", -1.0, 0.2), 3)
    assert edges[0] == -1.0 and edges[-1] == 0.2 and np.allclose(np.diff(edges), 0.4)


def test_codes_and_clipping():
    x = [-5.0, 0.0, 2.4999, 2.5, 4.99, 5.0, 7.5, 9.99, 10.0, 15.0]
    assert ewd_codes(AGE, x, 4).tolist() == [0, 0, 0, 1, 1, 2, 3, 3, 3, 3]
    assert ewd_codes(AGE, np.array([[1.0, 11.0], [-1.0, 6.0]]), 4).tolist() == [[0, 3], [0, 2]]
    assert ewd_codes(AGE, [], 4).dtype == np.int64


@settings(max_examples=100, deadline=None)
@given(
    low=st.floats(-1e6, 1e6, allow_nan=False),
    width=st.floats(1e-3, 1e6, allow_nan=False),
    bins=st.integers(2, 50),
    u=st.lists(st.floats(-0.5, 1.5, allow_nan=False), min_size=1, max_size=20),
)
def test_codes_agree_with_edges(low, width, bins, u):
    """For any bounds and values: e_t ≤ x < e_{t+1} for the code t of x inside [l, u] (the last bin closed), up to
    floating-point rounding of the division (tolerance 8 ulps of the largest magnitude involved); codes of values
    below l are 0 and above u are b − 1; the code agrees with the browser's expression floor((x − l)/((u − l)/b))."""
    attr = Numeric("x", low, low + width)
    edges = ewd_edges(attr, bins)
    x = attr.low + np.asarray(u) * (attr.high - attr.low)
    t = ewd_codes(attr, x, bins)
    assert np.all((t >= 0) & (t < bins))
    tol = 8 * np.finfo(float).eps * max(abs(attr.low), abs(attr.high), attr.high - attr.low)
    inside = (x >= attr.low) & (x <= attr.high)
    assert np.all(edges[t[inside]] <= x[inside] + tol)
    assert np.all((x[inside] < edges[t[inside] + 1] + tol) | (t[inside] == bins - 1))
    assert np.all(t[x < attr.low] == 0) and np.all(t[x > attr.high] == bins - 1)
    js = [min(max(math.floor((v - attr.low) / ((attr.high - attr.low) / bins)), 0), bins - 1) for v in x.tolist()]
    assert t.tolist() == js


def test_labels():
    attr = ewd_attribute(AGE, 4)
    assert isinstance(attr, Categorical) and attr.name == "age"
    assert attr.values == ("[0, 2.5)", "[2.5, 5)", "[5, 7.5)", "[7.5, 10]")
    # Narrow bins far from 0: six significant digits are not enough, labels fall back to full precision and stay unique.
    narrow = ewd_attribute(Numeric("t", 1000000.0, 1000000.5), 5)
    assert narrow.size == 5 and len(set(narrow.values)) == 5


def test_validation():
    for bad in (1, 0, -3, 2.5, True, None, "four", float("nan")):
        with pytest.raises(ValueError, match="bins"):
            ewd_edges(AGE, bad)
    with pytest.raises(ValueError, match="finite"):
        ewd_codes(AGE, [1.0, np.nan], 4)
    with pytest.raises(ValueError, match="numeric"):
        ewd_codes(Categorical("c", ("a", "b")), [0], 2)


def test_discrete_ldp_naive_bayes_on_the_bins():
    """Binned data feed the discrete LDP NB unchanged (SPEC §4): at ε = 4 with n = 30,000 the estimated P(bin | c) is
    within 5 reported standard errors of the data's own conditional frequencies, for every bin and class."""
    rng = np.random.default_rng(12)
    cls = Categorical("sick", ("no", "yes"))
    y = rng.integers(0, 2, 30000)
    x = np.where(y == 1, rng.normal(7.0, 2.0, y.size), rng.normal(3.0, 2.0, y.size))  # some fall outside [0, 10]
    attr = ewd_attribute(AGE, 4)
    codes = ewd_codes(AGE, x, 4)
    nb = LDPNaiveBayes(cls, [attr], 4.0, oracle="oue")
    model = nb.estimate(nb.aggregate(nb.perturb(codes[:, None], y, np.random.default_rng(13))))
    assert model.attributes == (attr,)
    truth = np.stack([np.bincount(codes[y == c], minlength=4) / np.sum(y == c) for c in (0, 1)], axis=1)
    se = np.asarray(model.metadata["conditional_standard_errors"][0])
    assert np.all(np.abs(model.conditionals[0] - truth) < 5 * se), np.round((model.conditionals[0] - truth) / se, 2)
