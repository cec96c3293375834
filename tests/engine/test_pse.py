"""PSE privacy measure before and after mining (SPEC §2 "PSE privacy measure", seed 004 §4)."""
from itertools import pairwise

import numpy as np
import pytest

from aggregator.privacy.mrr import MRRScheme
from aggregator.privacy.pse import (
    posterior,
    pse_after_mining,
    pse_binary,
    pse_entry,
    pse_group,
    rec_known_precondition,
    rec_unknown_precondition,
)
from aggregator.privacy.schema import Categorical


def paper_binary_pse(wa, wy, t):
    """Seed 004 §4.1's four components, written out (component 1 with the corrected (1−θ)·W_y factor)."""
    d1 = (t + (1 - t) * wy) * wa + (1 - t) * wy * (1 - wa)
    d0 = (t + (1 - t) * (1 - wy)) * (1 - wa) + (1 - t) * (1 - wy) * wa
    c1 = wa * (t + (1 - t) * wy) * (1 - t) * wy * (1 - wa) / d1
    c2 = wa * (1 - t) * (1 - wy) * (t + (1 - t) * (1 - wy)) * (1 - wa) / d0
    c3 = (1 - wa) * (1 - t) * wy * (t + (1 - t) * wy) * wa / d1
    c4 = (1 - wa) * (t + (1 - t) * (1 - wy)) * (1 - t) * (1 - wy) * wa / d0
    assert np.isclose(c1, c3) and np.isclose(c2, c4)
    return c1 + c2 + c3 + c4


@pytest.mark.parametrize("wa", [0.1, 0.3, 0.5, 0.8])
@pytest.mark.parametrize("wy", [0.2, 0.5, 0.9])
@pytest.mark.parametrize("theta", [0.0, 0.25, 0.6, 0.95])
def test_binary_pse_equals_paper_sum(wa, wy, theta):
    assert np.isclose(pse_entry([1 - wa, wa], theta, [1 - wy, wy]), paper_binary_pse(wa, wy, theta), atol=1e-14)


@pytest.mark.parametrize("wa", [0.1, 0.3, 0.5, 0.9])
def test_boundaries(wa):
    assert pse_entry([1 - wa, wa], 1.0, [0.5, 0.5]) == 0.0
    assert np.isclose(pse_entry([1 - wa, wa], 0.0, [0.3, 0.7]), 2 * wa * (1 - wa))
    for theta in (0.2, 0.5, 0.8):  # symmetric in W_a ↔ 1 − W_a when W_y = 0.5
        assert np.isclose(pse_entry([1 - wa, wa], theta, [0.5, 0.5]), pse_entry([wa, 1 - wa], theta, [0.5, 0.5]))
    assert pse_entry([0.5, 0.5], 0.0, [0.5, 0.5]) == 0.5


def test_vectorized_binary_pse_matches_entrywise_and_paper():
    wa = np.array([0.1, 0.3, 0.5, 0.8])[:, None, None]
    theta = np.array([0.0, 0.25, 0.6, 1.0])[None, :, None]
    wy = np.array([0.2, 0.5, 0.9])[None, None, :]
    grid = pse_binary(wa, theta, wy)
    assert grid.shape == (4, 4, 3)
    for i, j, k in np.ndindex(grid.shape):
        a, t, y = wa[i, 0, 0], theta[0, j, 0], wy[0, 0, k]
        assert np.isclose(grid[i, j, k], pse_entry([1 - a, a], t, [1 - y, y]), atol=1e-15)
        assert np.isclose(grid[i, j, k], paper_binary_pse(a, y, t), atol=1e-14)
    np.testing.assert_array_equal(grid[:, 3, :], 0.0)  # θ = 1 ⇒ 0
    np.testing.assert_allclose(grid[:, 0, :], np.broadcast_to(2 * wa[:, 0, :] * (1 - wa[:, 0, :]), (4, 3)))
    with pytest.raises(ValueError, match="theta"):
        pse_binary(0.5, 1.5)


def test_pse_decreases_with_theta_and_group_is_minimum():
    values = [pse_entry([0.7, 0.3], t, [0.5, 0.5]) for t in np.linspace(0, 1, 11)]
    assert all(a > b for a, b in pairwise(values))
    priors = [[0.5, 0.5], [0.9, 0.1], [0.2, 0.3, 0.5]]
    personals = [[0.5, 0.5], [0.5, 0.5], [0.3, 0.3, 0.4]]
    each = [pse_entry(p, 0.4, y) for p, y in zip(priors, personals, strict=True)]
    assert pse_group(priors, 0.4, personals) == min(each)
    post = posterior([0.2, 0.3, 0.5], 0.4, [0.3, 0.3, 0.4])
    np.testing.assert_allclose(post.sum(axis=1), 1.0)


def test_rec_formulas_on_the_papers_example():
    # Rules Pr(A1=1 ⇒ A2=1) = .8, (1 ⇒ 0) = .6, (0 ⇒ 1) = .4, (0 ⇒ 0) = .3; conf[t, p].
    conf = np.array([[0.3, 0.6], [0.4, 0.8]])
    assert np.isclose(rec_known_precondition([0.5, 0.5], conf), 0.5 * (0.8 + 0.6) + 0.5 * (0.3 + 0.4))
    correct = np.array([0.9, 0.7])  # Pr(A2(O)=0 | A2(R)=0), Pr(A2(O)=1 | A2(R)=1)
    assert np.isclose(rec_unknown_precondition(conf, correct), 0.8 * 0.7 + 0.6 * 0.9 + 0.4 * 0.7 + 0.3 * 0.9)
    with pytest.raises(ValueError):
        rec_unknown_precondition(conf, [0.5])


ATTRS = [Categorical("a", ("0", "1")), Categorical("c", ("n", "y"))]
PRIOR = np.array([0.4, 0.6])
COND = np.array([[0.7, 0.2], [0.3, 0.8]])  # P(a | c)


def test_after_mining_by_hand_same_group():
    theta, py_a, py_c = 0.6, np.array([0.5, 0.5]), np.array([0.3, 0.7])
    scheme = MRRScheme(ATTRS, 1, theta, personal=[py_a, py_c])
    out = pse_after_mining(scheme, PRIOR, [COND])
    # Independent computation with explicit loops.
    J = COND * PRIOR
    JR = theta * J + (1 - theta) * np.outer(py_a, py_c)
    p_a = J.sum(axis=1)

    def correct(pi, py, t):
        return [pi[v] * (t + (1 - t) * py[v]) / sum(pi[o] * (t * (o == v) + (1 - t) * py[v]) for o in range(2))
                for v in range(2)]

    ca, cc = correct(p_a, py_a, theta), correct(PRIOR, py_c, theta)
    rec_a = sum(JR[a, c] / JR[:, c].sum() * ca[a] for a in range(2) for c in range(2))
    rec_c = sum(JR[a, c] / JR[a, :].sum() * cc[c] for a in range(2) for c in range(2))
    assert np.allclose(out["rec"], [rec_a, rec_c])
    assert np.allclose(out["before"], [pse_entry(p_a, theta, py_a), pse_entry(PRIOR, theta, py_c)])
    assert np.allclose(out["after"], np.maximum(out["before"] - out["rec"], 0))
    assert np.all(out["after"] >= 0) and np.all(out["after"] <= out["before"])
    assert out["group_after"][0] == out["after"].min()


def test_after_mining_theta_one_and_scenarios():
    scheme = MRRScheme(ATTRS, 1, [1.0, 1.0], groups=[[0], [1]])
    out = pse_after_mining(scheme, PRIOR, [COND])
    assert np.all(out["before"] == 0) and np.all(out["after"] == 0)
    assert np.allclose(out["rec"], 2.0)  # Σ_c Σ_a P(a|c)·1 = k: literal Scenario II with certain guesses
    out1 = pse_after_mining(MRRScheme(ATTRS, 1, 0.3), PRIOR, [COND], scenario="known-precondition")
    assert np.allclose(out1["rec"], 1.0)  # Σ_p Pr(p) Σ_t conf = 1 for full conditional rule sets
    with pytest.raises(ValueError, match="scenario"):
        pse_after_mining(scheme, PRIOR, [COND], scenario="other")
    with pytest.raises(ValueError, match="conditionals"):
        pse_after_mining(scheme, PRIOR, [COND[:1]])


def test_after_mining_different_groups_matches_same_group_when_all_personal():
    # θ = 0: both groupings randomize to P_Y,a ⊗ P_Y,c, so REC and PSE must coincide.
    personal = [np.array([0.4, 0.6]), np.array([0.3, 0.7])]
    same = pse_after_mining(MRRScheme(ATTRS, 1, 0.0, personal=personal), PRIOR, [COND])
    diff = pse_after_mining(MRRScheme(ATTRS, 1, [0.0, 0.0], groups=[[0], [1]], personal=personal), PRIOR, [COND])
    for key in ("before", "rec", "after"):
        np.testing.assert_allclose(same[key], diff[key], atol=1e-14)
