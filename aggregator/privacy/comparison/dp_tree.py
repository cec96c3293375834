"""ε-DP decision tree: CART on binary attributes with noisy counts (SPEC §7; seed 003 Algorithm 3).

Trusted-curator setting, for the comparison lab only. The tree is binary and grows to depth d:

* an interior node picks, among the binary attributes not yet used on its path, the one with the smallest weighted
  Gini impurity G(A) = Σ_v [(Σ_c m̃_vc)² − Σ_c m̃_vc²] / [(Σ_c m̃_vc)(Σ_{v',c} m̃_v'c)], computed on noisy counts
  m̃_vc = L⁺(m_Avc) = max(m_Avc + Lap(1/ε'), α), α = 10⁻⁵;
* a node at depth d (or with no attribute left) is a leaf labelled argmax_c L(m_c), L(m) = m + Lap(1/ε').

Budget: ε' = ε/(|A|(d + 1)). At each level a row lies in one node, where it is counted once per attribute (interior)
or once (leaf): at most |A|(d + 1) queries of sensitivity 1 per row (the seed's Theorem 3.4). Laplace noise is the
engine's discrete Laplace on the 2⁻¹⁰ grid (``noise.discrete_laplace``), as everywhere in Coinflip.

Attributes (``binary_features``): a categorical attribute with two values is one binary attribute (value 1 vs 0); one
with more values becomes one binary attribute per value ("A = v", as the seed does), so |A| counts those. Numeric
attributes must be discretized beforehand (the lab bins them over their public bounds; the seed splits at the median,
which is a statistic of the data and would itself need budget). ``epsilon=math.inf`` grows the same tree without
noise: the non-private reference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..noise import discrete_laplace
from ..schema import Attribute, Categorical

__all__ = ["ALPHA", "budget", "binary_features", "gini", "DPTree", "fit_dp_tree", "DEFAULT_DEPTH"]

ALPHA = 1e-5
DEFAULT_DEPTH = 3


def budget(epsilon: float, attributes: int, depth: int) -> float:
    """ε' = ε/(|A|(d + 1))."""
    if attributes < 1 or depth < 0:
        raise ValueError("need at least one attribute and depth ≥ 0")
    return epsilon / (attributes * (depth + 1))


def binary_features(attributes: Sequence[Attribute]) -> list[tuple[int, int]]:
    """(attribute index, value) per binary attribute: value 1 of a two-valued attribute, every value of the others."""
    out = []
    for j, a in enumerate(attributes):
        if not isinstance(a, Categorical):
            raise ValueError(f"attribute {a.name!r} is numeric: discretize it first")
        out.extend([(j, 1)] if a.size == 2 else [(j, v) for v in range(a.size)])
    return out


def gini(counts: np.ndarray) -> float:
    """G(A) of a (2, k) table of (noisy, positive) counts m̃_vc (seed 003, line 16 of Algorithm 3)."""
    per_value = counts.sum(axis=1)
    total = per_value.sum()
    return float(sum((per_value[v] ** 2 - (counts[v] ** 2).sum()) / (per_value[v] * total) for v in range(2)))


@dataclass
class Node:
    label: int | None = None
    feature: int | None = None
    children: list = field(default_factory=list)  # [child for "A = 0", child for "A = 1"]

    def to_dict(self) -> dict:
        if self.feature is None:
            return {"label": self.label}
        return {"feature": self.feature, "children": [c.to_dict() for c in self.children]}


class DPTree:
    def __init__(self, features: list[tuple[int, int]], root: Node, epsilon_per_query: float, depth: int):
        self.features = features
        self.root = root
        self.epsilon_per_query = epsilon_per_query
        self.depth = depth

    def binarize(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return np.column_stack([X[:, j] == v for j, v in self.features]).astype(np.int64)

    def predict(self, X) -> np.ndarray:
        B = self.binarize(X)
        out = np.empty(B.shape[0], dtype=np.int64)
        for i, row in enumerate(B):
            node = self.root
            while node.feature is not None:
                node = node.children[row[node.feature]]
            out[i] = node.label
        return out

    def to_dict(self) -> dict:
        return {"mechanism": "dp-cart", "depth": self.depth, "epsilon_per_query": self.epsilon_per_query,
                "features": [list(f) for f in self.features], "root": self.root.to_dict()}


def fit_dp_tree(class_attribute: Categorical, attributes: Sequence[Attribute], X, y, epsilon: float,
                rng: np.random.Generator, depth: int = DEFAULT_DEPTH) -> DPTree:
    """Grow the ε-DP tree (``epsilon=math.inf``: exact counts)."""
    features = binary_features(attributes)
    k = class_attribute.size
    eps = budget(epsilon, len(features), depth)
    y = np.asarray(y, dtype=np.int64)

    def noisy(counts: np.ndarray) -> np.ndarray:
        counts = counts.astype(np.float64)
        return counts if eps == math.inf else counts + discrete_laplace(rng, 1.0 / eps, counts.shape)

    tree = DPTree(features, Node(), eps, depth)
    B = tree.binarize(X)

    def grow(node: Node, rows: np.ndarray, used: frozenset, level: int) -> None:
        free = [f for f in range(len(features)) if f not in used]
        if level == depth or not free:
            node.label = int(np.argmax(noisy(np.bincount(y[rows], minlength=k))))
            return
        impurities = []
        for f in free:
            counts = np.vstack([np.bincount(y[rows][B[rows, f] == v], minlength=k) for v in (0, 1)])
            impurities.append(gini(np.maximum(noisy(counts), ALPHA)))
        node.feature = free[int(np.argmin(impurities))]
        node.children = [Node(), Node()]
        for v in (0, 1):
            grow(node.children[v], rows[B[rows, node.feature] == v], used | {node.feature}, level + 1)

    grow(tree.root, np.arange(len(y)), frozenset(), 0)
    return tree
