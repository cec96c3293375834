"""Additive noise for the client halves, on a fixed grid (SPEC §3 SHE/THE, §5b Approaches 1 and 3).

Naive floating-point Laplace noise leaks the true value through the porous set of doubles it can output (Mironov,
CCS 2012). Coinflip's browsers therefore never send such noise: every noisy value is a multiple of a public grid step
γ = ``GRID`` and is built from discrete draws only.

``laplace_mechanism(values, sensitivity, epsilon, rng)``:
1. randomized rounding of each value to the grid (unbiased: E[round(x)] = x), which can move two inputs at most γ
   further apart, so the L1 sensitivity on the grid is Δ + γ per noisy component's worth of Δ;
2. plus γ·K, K ~ discrete Laplace with P(K = k) ∝ exp(−|k|·γ/b) and b = (Δ + γ)/ε, sampled as the difference of two
   geometric variables by inverse CDF.
The output is a multiple of γ; it is ε-LDP for inputs with L1 sensitivity Δ (the discrete Laplace mechanism with scale
(Δ+γ)/γ grid units on integer-valued inputs of sensitivity (Δ+γ)/γ), and unbiased: E[output] = value.
The variance of one component is Var(round) + γ²·2α/(1−α)², α = exp(−γ/b) — within 0.1 % of the continuous 2b² at
the grid used here; ``component_variance`` gives the exact figure (randomized-rounding variance ≤ γ²/4 excluded).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "GRID", "laplace_mechanism", "discrete_laplace", "randomized_round", "noise_scale", "component_variance",
    "discrete_laplace_variance", "discrete_laplace_tail",
]

#: Grid step of every noisy value (2⁻¹⁰): exact in binary floating point in Python and JavaScript alike.
GRID = 2.0**-10


def noise_scale(sensitivity: float, epsilon: float, grid: float = GRID) -> float:
    """Laplace scale b = (Δ + γ)/ε used for inputs of L1 sensitivity Δ."""
    if sensitivity <= 0 or epsilon <= 0:
        raise ValueError("sensitivity and epsilon must be > 0")
    return (sensitivity + grid) / epsilon


def discrete_laplace(rng: np.random.Generator, scale: float, size, grid: float = GRID) -> np.ndarray:
    """γ·K with P(K = k) ∝ α^|k|, α = exp(−γ/scale): the difference of two Geometric(1 − α) draws (inverse CDF)."""
    alpha = math.exp(-grid / scale)
    log_alpha = math.log(alpha)
    u1 = 1.0 - rng.random(size)  # in (0, 1]
    u2 = 1.0 - rng.random(size)
    g1 = np.floor(np.log(u1) / log_alpha)
    g2 = np.floor(np.log(u2) / log_alpha)
    return (g1 - g2) * grid


def randomized_round(rng: np.random.Generator, x, grid: float = GRID) -> np.ndarray:
    """Round each value to a neighbouring multiple of γ, up with probability equal to the remainder (unbiased)."""
    x = np.asarray(x, dtype=np.float64)
    scaled = x / grid
    floor = np.floor(scaled)
    up = rng.random(x.shape) < (scaled - floor)
    return (floor + up) * grid


def laplace_mechanism(values, sensitivity: float, epsilon: float, rng: np.random.Generator, grid: float = GRID) -> np.ndarray:
    """``values`` + discrete Laplace noise on the γ-grid, ε-LDP for L1 sensitivity ``sensitivity`` (see module doc)."""
    values = np.asarray(values, dtype=np.float64)
    return randomized_round(rng, values, grid) + discrete_laplace(rng, noise_scale(sensitivity, epsilon, grid), values.shape, grid)


def discrete_laplace_variance(scale: float, grid: float = GRID) -> float:
    """Var(γ·K) = γ²·2α/(1−α)², α = exp(−γ/scale)."""
    alpha = math.exp(-grid / scale)
    return grid**2 * 2 * alpha / (1 - alpha) ** 2


def discrete_laplace_tail(threshold: float, scale: float, grid: float = GRID) -> float:
    """P(γ·K > threshold): with m = ⌊threshold/γ⌋ + 1, P(K ≥ m) = α^m/(1+α) for m ≥ 1, else 1 − α^(1−m)/(1+α)."""
    alpha = math.exp(-grid / scale)
    m = math.floor(threshold / grid) + 1
    if m >= 1:
        return alpha**m / (1 + alpha)
    return 1.0 - alpha ** (1 - m) / (1 + alpha)


def component_variance(sensitivity: float, epsilon: float, grid: float = GRID) -> float:
    """Variance of the noise ``laplace_mechanism`` adds to one component (rounding excluded)."""
    return discrete_laplace_variance(noise_scale(sensitivity, epsilon, grid), grid)
