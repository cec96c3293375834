"""Synthetic data from Naive Bayes (SPEC §8; seed 001), as published and in a sound variant.

``synthetic_published`` — the seed's Algorithms 1–2, as published: fit Naive Bayes with add-1 (Laplace) smoothing on
the (categorical) data; for each of S records draw x uniformly from the input space (every attribute's declared
values), score every class q(c) = log P(c) + Σ_j log P(x_j | c), pick c with probability ∝ exp(ε·q(c)/(2Δq)),
Δq = ⌈ln(2N)⌉ (N rows), emit (x, c). The prior is add-1 smoothed too, (n_c + 1)/(N + k), so no class has q = −∞.

What the published argument proves, and what it does not. The seed's Theorem 1 bounds |q(D, x, c) − q(D, x', c)| <
ln(2N) for two *records x, x' differing in one attribute*, the data D fixed. Differential privacy concerns two *data
sets differing in one row*, with the output's probability compared; the theorem says nothing about that, and the
paper never composes its S draws (each re-reads D). So the published algorithm is **not** shown to be ε-DP. What can
be proven (here, not in the seed): replacing one row changes n_c and each n_{x_j,c} by at most 1, and every add-1
smoothed ratio — (n_c + 1)/(N + k), (n_{x_j,c} + 1), (n_c + S_j) — by a factor ≤ 2, so every q(c) moves by at most
Δ = (1 + 2d)·ln 2 for d attributes; one draw is then (ε·Δ/Δq)-DP (exponential mechanism with a mis-stated
sensitivity) and S draws are S·ε·Δ/Δq-DP by sequential composition — ``epsilon_bound``, e.g. about 2·10⁴·ε for
S = 6,500 rows of mushroom (d = 22). The result's ``guarantee`` says so.

``synthetic_from_model`` — the sound variant: draw c ~ P(c), then x_j ~ P(· | c) (categorical) or N(μ_jc, σ_jc)
clipped to the attribute's bounds (numeric), from an already private ``NaiveBayesModel`` (SPEC §4–§6). It reads the
model only, never the data: post-processing, at no extra ε; the rows carry exactly the model's guarantee.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .naive_bayes.fit import fit_nonprivate
from .naive_bayes.model import NaiveBayesModel
from .rng import as_rng
from .schema import Attribute, Categorical, Numeric

__all__ = [
    "SyntheticData", "published_sensitivity", "row_sensitivity", "smoothed_model", "class_scores",
    "em_class_probabilities", "synthetic_published", "synthetic_from_model",
]


@dataclass(frozen=True, eq=False)
class SyntheticData:
    """Synthetic rows in engine form (``X`` codes/floats per attribute, ``y`` class codes) and what they guarantee:
    ``guarantee`` in words, ``epsilon_bound`` an ε (with respect to one training row) that is actually proven, or
    None when there is none."""

    class_attribute: Categorical
    attributes: tuple[Attribute, ...]
    X: np.ndarray
    y: np.ndarray
    method: str
    guarantee: str
    epsilon_bound: float | None


def published_sensitivity(n_rows: int) -> int:
    """The seed's Δq = ⌈ln(2N)⌉."""
    if n_rows < 1:
        raise ValueError("need at least one row")
    return int(math.ceil(math.log(2 * n_rows)))


def row_sensitivity(n_attributes: int) -> float:
    """Δ = (1 + 2d)·ln 2: the most one replaced training row can move any q(c) (module docstring)."""
    return (1 + 2 * n_attributes) * math.log(2.0)


def smoothed_model(class_attribute: Categorical, attributes: Sequence[Categorical], X, y) -> NaiveBayesModel:
    """Naive Bayes with add-1 smoothing everywhere: P(c) = (n_c + 1)/(N + k), P(v | c) = (n_vc + 1)/(n_c + S_j)."""
    attributes = tuple(attributes)
    if not all(isinstance(a, Categorical) for a in attributes):
        raise ValueError("the published algorithm draws x from a finite input space: categorical attributes only "
                         "(discretize numeric ones first, e.g. aggregator.lab.datasets.discretize_table)")
    base = fit_nonprivate(class_attribute, attributes, X, y, alpha=1.0)
    counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=class_attribute.size) + 1.0
    return NaiveBayesModel(class_attribute, attributes, counts, base.conditionals,
                           metadata={"mechanism": "nonprivate-add-1"})


def class_scores(model: NaiveBayesModel, X) -> np.ndarray:
    """q(c) = log P(c) + Σ_j log P(x_j | c) for every row of X (n, k), from the model's probabilities (no floors)."""
    X = np.asarray(X, dtype=np.int64)
    q = np.tile(np.log(model.prior), (X.shape[0], 1))
    for j, table in enumerate(model.conditionals):
        q += np.log(table[X[:, j]])
    return q


def em_class_probabilities(model: NaiveBayesModel, X, epsilon: float, n_rows: int) -> np.ndarray:
    """P(c | x) ∝ exp(ε·q(c)/(2Δq)), Δq = ⌈ln(2N)⌉ (seed 001 Algorithm 2), for every row of X."""
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise ValueError("epsilon must be a finite number ≥ 0")
    z = epsilon * class_scores(model, X) / (2.0 * published_sensitivity(n_rows))
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def _draw_codes(rng: np.random.Generator, probabilities: np.ndarray) -> np.ndarray:
    """One categorical draw per row of ``probabilities`` (rows sum to 1), by inverse CDF."""
    cdf = np.cumsum(probabilities, axis=1)
    u = rng.random(probabilities.shape[0]) * cdf[:, -1]
    return np.minimum((u[:, None] >= cdf).sum(axis=1), probabilities.shape[1] - 1)


def synthetic_published(
    class_attribute: Categorical,
    attributes: Sequence[Categorical],
    X,
    y,
    epsilon: float,
    size: int,
    rng: np.random.Generator | int | None = None,
) -> SyntheticData:
    """The seed's algorithm as published (SPEC §8) — see the module docstring for what it does not guarantee.
    Draw order: x (attribute by attribute, ``rng.integers``), then the classes (``rng.random``)."""
    attributes = tuple(attributes)
    rng = as_rng(rng)
    n_rows = int(np.asarray(y).shape[0])
    model = smoothed_model(class_attribute, attributes, X, y)
    if size < 0:
        raise ValueError("size must be ≥ 0")
    X_syn = np.column_stack([rng.integers(0, a.size, size) for a in attributes]).astype(np.float64) \
        if attributes else np.empty((size, 0))
    y_syn = _draw_codes(rng, em_class_probabilities(model, X_syn, epsilon, n_rows)) if size else np.empty(0, int)
    delta_q, delta = published_sensitivity(n_rows), row_sensitivity(len(attributes))
    bound = size * epsilon * delta / delta_q
    guarantee = (
        f"Not shown to be differentially private: seed 001 bounds the change of q when one attribute of the random "
        f"record x changes (Δq = ⌈ln 2N⌉ = {delta_q}), not when one training row changes, and never composes its "
        f"{size} draws. Proven instead: one replaced row moves every q(c) by at most (1 + 2d)·ln 2 = {delta:.3f}, "
        f"so each draw is {epsilon * delta / delta_q:.4g}-DP and the whole output {bound:.4g}-DP (sequential "
        f"composition) with respect to one training row."
    )
    return SyntheticData(class_attribute, attributes, X_syn, np.asarray(y_syn, dtype=np.int64),
                         "synthetic-published-em", guarantee, bound)


def synthetic_from_model(
    model: NaiveBayesModel, size: int, rng: np.random.Generator | int | None = None
) -> SyntheticData:
    """Rows sampled from a (private) model: c ~ P(c), x_j ~ P(· | c) or N(μ_jc, σ_jc) clipped to [l, u] (SPEC §8's
    sound variant, post-processing). Draw order: classes, then attribute by attribute."""
    if size < 0:
        raise ValueError("size must be ≥ 0")
    rng = as_rng(rng)
    y = _draw_codes(rng, np.tile(model.prior, (size, 1))) if size else np.empty(0, dtype=np.int64)
    columns = []
    for attr, table in zip(model.attributes, model.conditionals, strict=True):
        if isinstance(attr, Categorical):
            columns.append(_draw_codes(rng, table[:, y].T).astype(np.float64) if size else np.empty(0))
        elif isinstance(attr, Numeric):
            columns.append(np.clip(rng.normal(table[0, y], table[1, y]), attr.low, attr.high))
    X = np.column_stack(columns) if columns else np.empty((size, 0))
    mechanism, eps = model.metadata.get("mechanism", "unknown"), model.metadata.get("epsilon")
    epsilon = float(eps) if eps is not None and mechanism != "nonprivate" else None
    private = epsilon is not None
    guarantee = (
        f"Post-processing of the model (mechanism {mechanism!r}, ε = {eps}): the rows are drawn from its published "
        f"parameters alone, so they carry exactly its guarantee at no extra ε."
        if private else
        f"Post-processing of a model without a differential-privacy guarantee (mechanism {mechanism!r}): none."
    )
    return SyntheticData(model.class_attribute, model.attributes, X, np.asarray(y, dtype=np.int64),
                         "synthetic-from-model", guarantee, epsilon)
