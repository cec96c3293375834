"""Central ε-DP Naive Bayes with global sensitivity (SPEC §6; seed 003 Algorithm 1, after Vaidya et al. 2013).

A trusted curator holds the raw rows. The budget is split evenly over every access to the data:
ε' = ε/(1 + #categorical + 2·#numeric) (``epsilon_prime``) — the class counts, one count table per categorical
attribute, and a mean and a standard deviation per numeric attribute. With L(φ) = φ + Lap(s/ε') and
L⁺(φ) = max(L(φ), α), α = 1e-5:

* ñ_c = L⁺(n_c) (s = 1); P(c) = ñ_c/n;
* ñ_Avc = L⁺(n_Avc) (s = 1); P(v | c) = ñ_Avc/ñ_c, normalised over v (post-processing; the model normalises);
* numeric attribute with public bounds [l, u] (values clipped to them), per class: μ̃ = L(μ) with s = (u − l)/n_c and
  σ̃ = L⁺(σ) with s = (u − l)/√n_c (σ with ddof 0, as ``fit_nonprivate``; its sensitivity is (u − l)√(n_c − 1)/n_c).

Noise on a grid (``grid_laplace``): the statistic is randomly rounded to the grid γ = s·2⁻¹⁰ and discrete Laplace noise
of scale b = s/ε' on that grid is added (``noise.discrete_laplace``). For a fixed output z the output probability,
as a function of the input x, is the linear interpolation of the discrete Laplace pmf between grid points; shifting x
by a multiple of γ on one side of z multiplies it by exactly e^(−shift/b), and it is monotone on each side, so inputs
at distance ≤ s (a multiple of γ) give probabilities within e^(s/b) = e^(ε'): exactly ε'-DP, with no floating-point
Laplace (Mironov 2012). Counts are integers, already on the grid.

What the published scales guarantee (stated, not repaired — SPEC §6 prescribes them). Each release is ε'-DP for
inputs that move by at most its s, but no single neighbour notion makes every s right:
* adding or removing one record moves one cell of each count table by 1 (s = 1 is exact), but it changes n_c, and
  with it the numeric scales: two Laplace laws of different scales have an unbounded density ratio in the tails, so
  the numeric part then has no ε;
* replacing one record's values within its class keeps n_c (the numeric scales are exact, and the class counts do
  not move), but moves two cells of each count table (L1 distance 2: each table is 2ε'-DP). In total
  2ε'·(#categorical + #numeric), at most ε only with at most one categorical attribute (mushroom: 44ε' = 1.91ε).
The model's metadata repeats this (``guarantee``). It also records the public factors (u − l)/ε' of the numeric
scales, never the scales themselves, which would publish n_c exactly; and not the row count n.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import noise
from ..naive_bayes.fit import _codes_ok
from ..naive_bayes.model import NaiveBayesModel
from ..rng import as_rng
from ..schema import Attribute, Categorical, Numeric

__all__ = [
    "ALPHA", "GRID_STEPS", "GUARANTEE", "epsilon_prime", "grid_laplace", "l_plus", "sensitivities", "laplace_scales",
    "fit_laplace_nb", "check_data", "noisy_counts",
]

#: The floor α of L⁺ (SPEC §6).
ALPHA = 1e-5
#: What SPEC §6's scales guarantee (see the module docstring), recorded in every central model's metadata.
GUARANTEE = (
    "Each parameter is released with epsilon' = epsilon/(1 + #categorical + 2 #numeric). Adding or removing a record: "
    "the counts are exactly epsilon'-DP, but the numeric noise scales move with the private class size n_c, which "
    "leaves the numeric part without a finite epsilon. Replacing a record's values within its class: the numeric "
    "releases are epsilon'-DP and each count table 2 epsilon'-DP, 2 epsilon' (#categorical + #numeric) in total."
)
#: Grid steps per sensitivity: the grid of ``grid_laplace`` is γ = s/GRID_STEPS (2¹⁰, as ``noise.GRID`` for s = 1).
GRID_STEPS = 2**10


def epsilon_prime(epsilon: float, attributes: Sequence[Attribute]) -> float:
    """ε' = ε/(1 + #categorical + 2·#numeric) (SPEC §6)."""
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a finite number > 0")
    accesses = 1 + sum(1 if isinstance(a, Categorical) else 2 for a in attributes)
    return epsilon / accesses


def grid_laplace(rng: np.random.Generator, values, sensitivity: float, epsilon: float) -> np.ndarray:
    """values + discrete Laplace of scale b = sensitivity/ε on the grid γ = sensitivity/GRID_STEPS, after unbiased
    randomized rounding of the values to that grid (exactly ε-DP for inputs at distance ≤ sensitivity; see the module
    docstring). Works in integer multiples of γ so every output is exactly γ·(integer)."""
    if not (np.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError("sensitivity must be a finite number > 0")
    values = np.asarray(values, dtype=np.float64)
    step = sensitivity / GRID_STEPS
    on_grid = noise.randomized_round(rng, values / step, grid=1.0)
    return (on_grid + noise.discrete_laplace(rng, GRID_STEPS / epsilon, values.shape, grid=1.0)) * step


def l_plus(values, alpha: float = ALPHA) -> np.ndarray:
    """L⁺'s floor: max(·, α)."""
    return np.maximum(values, alpha)


def sensitivities(attribute: Numeric, class_counts) -> tuple[np.ndarray, np.ndarray]:
    """SPEC §6's sensitivities of a numeric attribute's per-class mean and standard deviation: (u − l)/n_c and
    (u − l)/√n_c, from the true class counts (private). An empty class is treated as n_c = 1."""
    n_c = np.maximum(np.asarray(class_counts, dtype=np.float64), 1.0)
    width = attribute.high - attribute.low
    return width / n_c, width / np.sqrt(n_c)


def laplace_scales(attributes: Sequence[Attribute], class_counts, epsilon: float) -> dict:
    """The Laplace scales b = s/ε' of SPEC §6 (private, since they depend on n_c: for tests and the lab only):
    ``"count"`` → 1/ε'; each numeric attribute's name → (mean scales, sd scales), one per class."""
    eps_p = epsilon_prime(epsilon, attributes)
    out: dict[str, float | tuple[np.ndarray, np.ndarray]] = {"count": 1.0 / eps_p}
    for a in attributes:
        if isinstance(a, Numeric):
            mean_s, sd_s = sensitivities(a, class_counts)
            out[a.name] = (mean_s / eps_p, sd_s / eps_p)
    return out


def check_data(class_attribute: Categorical, attributes: Sequence[Attribute], X, y):
    """Validated (X as floats with numeric columns clipped to their bounds, y as int64 codes)."""
    attributes = tuple(attributes)
    X = np.array(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != len(attributes) or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty (n, {len(attributes)}) array")
    if y.shape != (X.shape[0],) or not _codes_ok(y, class_attribute.size):
        raise ValueError(f"y must hold one class code in [0, {class_attribute.size}) per row of X")
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            if not _codes_ok(X[:, j], a.size):
                raise ValueError(f"X column {j} ({a.name!r}) must hold codes in [0, {a.size})")
        elif isinstance(a, Numeric):
            if not np.all(np.isfinite(X[:, j])):
                raise ValueError(f"X column {j} ({a.name!r}) must hold finite numbers")
            X[:, j] = np.clip(X[:, j], a.low, a.high)
        else:
            raise ValueError(f"unsupported attribute {a!r}")
    return X, y.astype(np.int64)


def noisy_counts(class_attribute, attributes, X, y, eps_p: float, rng, alpha: float = ALPHA):
    """The count part shared by both central variants: (ñ_c, {column: ñ_Avc / ñ_c}) with L⁺ noise of scale 1/ε'."""
    k = class_attribute.size
    n_c = np.bincount(y, minlength=k).astype(np.float64)
    noisy_c = l_plus(grid_laplace(rng, n_c, 1.0, eps_p), alpha)
    tables = {}
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            joint = np.bincount(X[:, j].astype(np.int64) * k + y, minlength=a.size * k).reshape(a.size, k)
            tables[j] = l_plus(grid_laplace(rng, joint.astype(np.float64), 1.0, eps_p), alpha) / noisy_c
    return noisy_c, tables


def fit_laplace_nb(
    class_attribute: Categorical,
    attributes: Sequence[Attribute],
    X,
    y,
    epsilon: float,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> NaiveBayesModel:
    """ε-DP Naive Bayes by global-sensitivity grid Laplace noise (SPEC §6, seed 003 Algorithm 1).

    Draw order: class counts, then per attribute in order its count table (categorical) or, per class, μ then σ
    (numeric)."""
    attributes = tuple(attributes)
    X, y = check_data(class_attribute, attributes, X, y)
    rng = as_rng(rng)
    eps_p = epsilon_prime(epsilon, attributes)
    noisy_c, tables = noisy_counts(class_attribute, attributes, X, y, eps_p, rng, alpha)
    n_c = np.bincount(y, minlength=class_attribute.size)
    conditionals = []
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            conditionals.append(tables[j])
            continue
        mean_s, sd_s = sensitivities(a, n_c)
        params = np.empty((2, class_attribute.size))
        for c in range(class_attribute.size):
            values = X[y == c, j]
            mu, sd = (values.mean(), values.std()) if values.size else ((a.low + a.high) / 2.0, 0.0)
            params[0, c] = grid_laplace(rng, mu, mean_s[c], eps_p)
            params[1, c] = l_plus(grid_laplace(rng, sd, sd_s[c], eps_p), alpha)
        conditionals.append(params)
    metadata = {
        "mechanism": "central-laplace",
        "spec": "SPEC §6 (seed 003 Algorithm 1)",
        "epsilon": float(epsilon),
        "epsilon_prime": eps_p,
        "alpha": alpha,
        "noise": "discrete Laplace on the grid sensitivity/2^10, after randomized rounding to it",
        "count_scale": 1.0 / eps_p,
        "numeric_scale_factors": {a.name: (a.high - a.low) / eps_p for a in attributes if isinstance(a, Numeric)},
        "numeric_scales": "mean: factor/n_c, sd: factor/sqrt(n_c) (n_c private, not published)",
        "guarantee": GUARANTEE,
    }
    # P(c) = ñ_c/n up to the normalisation the model applies (which needs no n).
    return NaiveBayesModel(class_attribute, attributes, noisy_c, conditionals, metadata=metadata)
