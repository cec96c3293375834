"""Additive noise for the client halves, on a fixed grid (SPEC §3 SHE/THE, §5b Approaches 1 and 3).

Naive floating-point Laplace noise leaks the true value through the porous set of doubles it can output (Mironov,
CCS 2012). Coinflip's browsers therefore never send such noise: every noisy value is a multiple of a public grid step
γ = ``GRID`` and is built from discrete draws only.

* ``discrete_laplace(rng, b, size)`` — γ·K with P(K = k) ∝ exp(−|k|·γ/b), the difference of two geometric variables
  drawn by inverse CDF. Added to values on the grid whose L1 distance is at most Δ, scale b = Δ/ε is exactly ε-LDP
  (the pmf ratio of two shifts at grid distance Δ is exp(Δ/b)); its variance γ²·2α/(1−α)², α = exp(−γ/b), is within
  0.1 % of the continuous 2b² at this grid.
* ``randomized_round(rng, x)`` — rounds values to a neighbouring grid point, up with probability equal to the
  remainder: unbiased, and it keeps 0, ±1 fixed and every value inside [−1, 1] (so a class-hiding vector stays one).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["GRID", "discrete_laplace", "randomized_round", "discrete_laplace_variance", "discrete_laplace_tail"]

#: Grid step of every noisy value (2⁻¹⁰): exact in binary floating point in Python and JavaScript alike.
GRID = 2.0**-10


def discrete_laplace(rng: np.random.Generator, scale: float, size, grid: float = GRID) -> np.ndarray:
    """γ·K with P(K = k) ∝ α^|k|, α = exp(−γ/scale): the difference of two Geometric(1 − α) draws (inverse CDF).
    Draw order: all u1 (C order), then all u2."""
    if scale <= 0:
        raise ValueError("scale must be > 0")
    # log(exp(·)) rounds exactly as the browser's Math.log(Math.exp(·)) does (same draws from the same bytes). Past
    # scale ≈ γ·2⁵³ (central DP at ε ≈ 1e-11) exp rounds to 1 and that log to 0; then the exact −γ/scale is used.
    log_alpha = math.log(math.exp(-grid / scale)) or -grid / scale
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
