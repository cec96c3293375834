"""ε of discrete channels and of MRR (SPEC §2, "ε of a randomized-response channel")."""
import math

import numpy as np
import pytest

from aggregator.privacy import oracles
from aggregator.privacy.channel import (
    epsilon_of_channel,
    epsilon_of_oracle,
    mrr_channel,
    mrr_epsilon,
    mrr_group_epsilon,
)
from aggregator.privacy.oracles.de import DirectEncoding


@pytest.mark.parametrize("eps,d", [(0.5, 2), (1.0, 5), (3.0, 10)])
def test_krr_channel_has_its_epsilon(eps, d):
    de = DirectEncoding(eps, d)
    P = np.full((d, d), de.q) + np.eye(d) * (de.p - de.q)
    assert math.isclose(epsilon_of_channel(P), math.log(de.p / de.q), rel_tol=1e-12)
    assert math.isclose(epsilon_of_channel(P), eps, rel_tol=1e-12)
    # the oracle's own channel, through the generic entry point
    assert math.isclose(epsilon_of_oracle(de), eps, rel_tol=1e-12)


def test_epsilon_of_oracle_refuses_oracles_without_a_single_value_channel():
    with pytest.raises(ValueError, match="OUE has no small channel"):
        epsilon_of_oracle(oracles.get("oue", epsilon=1.0, domain=4))


@pytest.mark.parametrize("theta", [0.0, 0.1, 0.5, 0.9])
@pytest.mark.parametrize("personal", [[0.5, 0.5], [0.1, 0.9], [0.2, 0.3, 0.5]])
def test_mrr_closed_form_equals_channel_epsilon(theta, personal):
    P = mrr_channel(theta, personal)
    np.testing.assert_allclose(P.sum(axis=0), 1.0)
    assert math.isclose(epsilon_of_channel(P), mrr_epsilon(theta, personal), rel_tol=1e-12, abs_tol=1e-15)
    expected = math.log(1 + theta / ((1 - theta) * min(personal)))
    assert math.isclose(mrr_epsilon(theta, personal), expected, rel_tol=1e-12, abs_tol=1e-15)


def test_theta_one_and_zero_probability_personal_are_unbounded():
    assert mrr_epsilon(1.0, [0.5, 0.5]) == math.inf
    assert epsilon_of_channel(mrr_channel(1.0, [0.5, 0.5])) == math.inf
    assert mrr_epsilon(0.3, [0.0, 1.0]) == math.inf
    assert epsilon_of_channel(mrr_channel(0.3, [0.0, 1.0])) == math.inf
    assert epsilon_of_channel([[1.0, 0.0], [0.0, 1.0]]) == math.inf
    assert epsilon_of_channel([[0.5, 0.5], [0.5, 0.5], [0.0, 0.0]]) == 0.0  # unreachable output ignored


def test_group_epsilon_with_two_attributes():
    theta, p1, p2 = 0.6, np.array([0.3, 0.7]), np.array([0.2, 0.5, 0.3])
    # Record-level channel: one coin for the whole record; P_Y(record) = product of marginals.
    p_rec = np.outer(p1, p2).ravel()
    P = theta * np.eye(p_rec.size) + (1 - theta) * p_rec[:, None]
    eps = mrr_group_epsilon(theta, [p1, p2])
    assert math.isclose(eps, epsilon_of_channel(P), rel_tol=1e-12)
    assert math.isclose(eps, math.log(1 + theta / ((1 - theta) * 0.3 * 0.2)), rel_tol=1e-12)
    assert eps > max(mrr_epsilon(theta, p1), mrr_epsilon(theta, p2))
    assert mrr_group_epsilon(1.0, [p1, p2]) == math.inf


def test_validation():
    with pytest.raises(ValueError, match="channel"):
        epsilon_of_channel([[0.5, 0.2], [0.2, 0.2]])
    with pytest.raises(ValueError, match="channel"):
        epsilon_of_channel([0.5, 0.5])
    with pytest.raises(ValueError, match="theta"):
        mrr_epsilon(-0.1, [0.5, 0.5])
    with pytest.raises(ValueError, match="personal"):
        mrr_channel(0.5, [0.5, 0.6])
    with pytest.raises(ValueError, match="personals"):
        mrr_group_epsilon(0.5, [])
