"""ε-DP CART (SPEC §7, seed 003 Algorithm 3): budget split, Gini, the noiseless tree, noise only from the budget."""
import math

import numpy as np
import pytest

from aggregator.privacy.comparison.dp_tree import binary_features, budget, fit_dp_tree, gini
from aggregator.privacy.schema import Categorical, Numeric

CLASS = Categorical("c", ("n", "y"))


def test_budget_split():
    assert budget(1.0, 10, 3) == pytest.approx(1.0 / 40)
    assert budget(2.0, 1, 0) == 2.0


def test_binary_features_one_per_value_of_multivalued_attributes():
    attributes = [Categorical("a", ("0", "1")), Categorical("b", ("x", "y", "z"))]
    assert binary_features(attributes) == [(0, 1), (1, 0), (1, 1), (1, 2)]
    with pytest.raises(ValueError, match="discretize"):
        binary_features([Numeric("n", 0.0, 1.0)])


def test_gini_is_the_weighted_impurity():
    counts = np.array([[30.0, 10.0], [5.0, 55.0]])
    weighted = sum(row.sum() / counts.sum() * (1 - ((row / row.sum()) ** 2).sum()) for row in counts)
    assert gini(counts) == pytest.approx(weighted)


def test_noiseless_tree_is_the_exact_gini_tree():
    """c = a AND b, with d irrelevant: the exact tree splits on a or b at the root and classifies perfectly."""
    rng = np.random.default_rng(0)
    attributes = [Categorical(name, ("0", "1")) for name in ("a", "b", "d")]
    X = rng.integers(0, 2, (400, 3))
    y = (X[:, 0] & X[:, 1]).astype(np.int64)
    tree = fit_dp_tree(CLASS, attributes, X, y, math.inf, rng, depth=2)
    assert tree.root.feature in (0, 1)
    assert np.all(tree.predict(X) == y)
    assert fit_dp_tree(CLASS, attributes, X, y, math.inf, rng, depth=0).root.label == int(np.mean(y) > 0.5)


def test_leaf_noise_has_the_budgets_scale():
    """Depth 0: one leaf, labels by noisy counts m_c + Lap(1/ε'). With counts 60 vs 40 the label is the minority
    exactly when the noise difference exceeds 20; its frequency must match the Laplace difference's tail."""
    rng = np.random.default_rng(1)
    attributes = [Categorical("a", ("0", "1"))]
    X = np.zeros((100, 1))
    y = np.array([0] * 60 + [1] * 40)
    eps = 0.1  # ε' = 0.1: scale 10
    flips = np.mean([fit_dp_tree(CLASS, attributes, X, y, eps, rng, depth=0).root.label for _ in range(4000)])
    # P(L1 − L0 > 20) for two independent Laplace(10): (1/2)·e^{−2}·(1 + 20/(2·10)) = e^{−2}.
    expected = 0.5 * math.exp(-2) * (1 + 1)
    assert abs(flips - expected) <= 5 * math.sqrt(expected * (1 - expected) / 4000)


def test_private_tree_predicts_the_class_with_a_generous_budget():
    rng = np.random.default_rng(5)
    attributes = [Categorical(name, ("0", "1")) for name in ("a", "b")]
    X = rng.integers(0, 2, (5000, 2))
    y = X[:, 0].astype(np.int64)
    tree = fit_dp_tree(CLASS, attributes, X, y, 5.0, rng, depth=1)
    assert np.mean(tree.predict(X) == y) == 1.0
