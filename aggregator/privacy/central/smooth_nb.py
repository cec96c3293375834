"""Central ε-DP Naive Bayes with smooth-sensitivity noise on the numeric parameters (SPEC §6, smooth variant; seed 002
Algorithm 1).

The same budget split as ``laplace_nb`` — ε' = ε/(1 + #categorical + 2·#numeric) — and the same counts: class counts
and categorical count tables keep global-sensitivity grid Laplace noise, L⁺ with α = 1e-5 (``laplace_nb.noisy_counts``).
Each numeric attribute's per-class mean and standard deviation are released as

    f(t) + (2(γ + 1)/ε')·S*_β(t)·Z,   β = ε'/(2(γ + 1)),   Z with density ∝ 1/(1 + |z|^γ),

where t is the class's sample of the attribute, clipped to the public bounds [l, u] and trimmed (the ⌊trim·n_c⌋
smallest and largest values dropped, seed 002 Definition 4.1; ``trim`` = 0 keeps them all), and S*_β is computed
exactly (``smooth_sensitivity``). The standard deviation (ddof 0) is that of the trimmed sample rounded to a fine grid
(``smooth_sensitivity.quantised``) and is floored at α like L⁺; the mean is released unclipped, like SPEC's L(μ).

What the seed leaves implicit, stated here: S*_β is computed for replacement of one record within a sample of fixed
size, so — as for ``laplace_nb``'s numeric part — it applies to neighbours that replace a record's values within its
class (the count tables are then 2ε'-DP each: ``laplace_nb.GUARANTEE`` holds here too). S*_β depends on the data, so
it is never published; the metadata records γ, β and the multiplier only. Z is drawn in floating point. On bounded
data the mean gains nothing from smooth sensitivity (S*_β ≥ e^(−β)(u − l)/n, see ``smooth_sensitivity``); the
standard deviation can.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..naive_bayes.model import NaiveBayesModel
from ..rng import as_rng
from ..schema import Attribute, Categorical, Numeric
from . import smooth_sensitivity as ss
from .laplace_nb import ALPHA, GUARANTEE, check_data, epsilon_prime, l_plus, noisy_counts

__all__ = ["fit_smooth_nb", "class_sample", "smooth_release"]


def class_sample(values, attribute: Numeric, trim: float) -> np.ndarray:
    """The clipped, sorted sample with ⌊trim·n⌋ values dropped at each end; an empty sample becomes the single
    midpoint (a data-independent stand-in, so an empty class's parameters carry no information)."""
    if not 0 <= trim < 0.5:
        raise ValueError("trim must lie in [0, 0.5)")
    values = np.asarray(values, dtype=np.float64)
    t = ss.trimmed(values, attribute.low, attribute.high, int(math.floor(trim * values.size)))
    return t if t.size else np.array([(attribute.low + attribute.high) / 2.0])


def smooth_release(rng: np.random.Generator, value: float, sensitivity: float, epsilon: float, gamma: float) -> float:
    """value + (2(γ + 1)/ε)·S·Z (SPEC §6)."""
    return float(value + ss.noise_multiplier(epsilon, gamma) * sensitivity * ss.sample_admissible_noise(rng, gamma))


def fit_smooth_nb(
    class_attribute: Categorical,
    attributes: Sequence[Attribute],
    X,
    y,
    epsilon: float,
    rng: np.random.Generator | int | None = None,
    gamma: float = 2.0,
    trim: float = 0.0,
    alpha: float = ALPHA,
) -> NaiveBayesModel:
    """ε-DP Naive Bayes: grid Laplace counts, smooth-sensitivity means and standard deviations (SPEC §6).

    Draw order: class counts, the categorical count tables in attribute order, then per numeric attribute and class
    the mean's Z and the standard deviation's Z."""
    attributes = tuple(attributes)
    X, y = check_data(class_attribute, attributes, X, y)
    rng = as_rng(rng)
    eps_p = epsilon_prime(epsilon, attributes)
    beta = ss.smooth_beta(eps_p, gamma)
    noisy_c, tables = noisy_counts(class_attribute, attributes, X, y, eps_p, rng, alpha)
    conditionals = []
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            conditionals.append(tables[j])
            continue
        params = np.empty((2, class_attribute.size))
        for c in range(class_attribute.size):
            t = class_sample(X[y == c, j], a, trim)
            params[0, c] = smooth_release(rng, t.mean(), ss.smooth_sensitivity_mean(t, a.low, a.high, beta),
                                          eps_p, gamma)
            sd, s_sd = ss.smooth_sd(t, a.low, a.high, beta)
            params[1, c] = l_plus(smooth_release(rng, sd, s_sd, eps_p, gamma), alpha)
        conditionals.append(params)
    metadata = {
        "mechanism": "central-smooth-sensitivity",
        "spec": "SPEC §6 smooth variant (seed 002 Algorithm 1)",
        "epsilon": float(epsilon),
        "epsilon_prime": eps_p,
        "alpha": alpha,
        "count_scale": 1.0 / eps_p,
        "gamma": float(gamma),
        "beta": beta,
        "noise_multiplier": ss.noise_multiplier(eps_p, gamma),
        "trim": float(trim),
        "numeric_scales": "noise_multiplier × S*_β of the class sample (data-dependent, not published)",
        "guarantee": GUARANTEE,
    }
    return NaiveBayesModel(class_attribute, attributes, noisy_c, conditionals, metadata=metadata)
