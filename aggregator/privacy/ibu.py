"""Iterative Bayesian update (IBU): the maximum-likelihood distribution behind randomized reports, by EM.

Beyond the papers; an alternative to Norm-Sub (``postprocess.project_simplex``) for turning reports of a
discrete channel (SPEC §2's randomized-response channels, SPEC §3's DE) into a distribution on the simplex
(Agrawal & Aggarwal 2001; Kairouz et al. 2016; ElSalamouny & Palamidessi 2020).

With channel[r, o] = P(R = r | O = o) and observed report frequencies f_r, each EM step is
    π'(o) = Σ_r f_r · channel[r, o]·π(o) / Σ_o' channel[r, o']·π(o'),
which never leaves the simplex and increases the likelihood Σ_r f_r log (channel·π)_r. Starting from the
uniform distribution, iterate until max_o |π' − π| ≤ tol (tested every 8 steps). Cost: O(iterations · R · O),
independent of n.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ibu", "channel_matrix"]


def channel_matrix(oracle) -> np.ndarray:
    """The oracle's own channel (``FrequencyOracle.channel``; DE's: p on the diagonal, q elsewhere, SPEC §3).

    Only protocols whose report is one value of the domain have a small channel; others raise ``ValueError``.
    """
    return oracle.channel()


def ibu(channel, observed_counts, *, max_iter: int = 10000, tol: float = 1e-12) -> np.ndarray:
    """EM estimate of the input distribution π given ``observed_counts[r]`` reports of each value r.

    ``channel[r, o] = P(R=r | O=o)`` (columns sum to 1). Returns π ≥ 0 with Σ π = 1 (length = channel columns).
    """
    channel = np.asarray(channel, dtype=np.float64)
    counts = np.asarray(observed_counts, dtype=np.float64)
    if channel.ndim != 2 or channel.shape[0] < 1 or channel.shape[1] < 1:
        raise ValueError("channel must be a 2-d matrix channel[r, o]")
    if not np.all(np.isfinite(channel)) or np.any(channel < 0):
        raise ValueError("channel must hold finite non-negative probabilities")
    if not np.allclose(channel.sum(axis=0), 1.0, atol=1e-9):
        raise ValueError("channel columns must sum to 1 (channel[r, o] = P(R=r | O=o))")
    if counts.shape != (channel.shape[0],):
        raise ValueError(f"observed_counts must have length {channel.shape[0]} (one per report value)")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0) or counts.sum() <= 0:
        raise ValueError("observed_counts must be non-negative with a positive total")
    max_iter = int(max_iter)
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")
    if not tol >= 0:
        raise ValueError("tol must be >= 0")
    freq = counts / counts.sum()
    observed = freq > 0                              # reports never seen contribute nothing
    channel, freq = channel[observed], freq[observed]
    pi = np.full(channel.shape[1], 1.0 / channel.shape[1])
    channel_t = np.ascontiguousarray(channel.T)
    positive = bool(np.all(channel > 0))             # then every marginal is > 0 and the guard is not needed
    for iteration in range(1, max_iter + 1):
        marginal = channel @ pi                      # P(R = r) under π
        if positive:
            ratio = freq / marginal
        else:
            ratio = np.divide(freq, marginal, out=np.zeros_like(freq), where=marginal > 0)
        new = pi * (channel_t @ ratio)
        # Σ new = 1 in exact arithmetic; renormalise and test convergence every _CHECK steps (cheaper loop).
        if iteration % _CHECK == 0 or iteration == max_iter:
            new /= new.sum()
            if np.max(np.abs(new - pi)) <= tol:
                return new
        pi = new
    return pi


_CHECK = 8
