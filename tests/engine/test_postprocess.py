"""Norm-Sub projection onto the probability simplex (``postprocess.project_simplex``)."""
import numpy as np
import pytest

from aggregator.privacy.postprocess import project_simplex


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
