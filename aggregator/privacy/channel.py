"""The ε of discrete randomized-response channels (SPEC §2, "ε of a randomized-response channel").

A channel is a column-stochastic matrix ``P[r, o] = P(R = r | O = o)``. It satisfies ε-LDP with

    ε = max_r ln( max_o P(r|o) / min_o P(r|o) ),

∞ when some output r has probability 0 under one input and > 0 under another. Outputs that no input can
produce are ignored.

MRR (SPEC §2) on one attribute with personal distribution P_Y has the channel
``P(r|o) = θ·[r = o] + (1 − θ)·P_Y(r)`` (``mrr_channel``, the one place this formula lives). Its row r has
maximum θ + (1−θ)P_Y(r) (at o = r) and minimum (1−θ)P_Y(r) (any o ≠ r), hence the closed form

    ε = ln(1 + θ / ((1 − θ)·min_r P_Y(r))),          θ = 1 ⇒ ε = ∞,

and for a group sent together the same holds with r ranging over whole records of the group, whose personal
probability is the product of the marginals, so min_r P_Y(r) = Π_i min P_Y,i (``mrr_group_epsilon``).
``mrr_epsilon`` is the ε of one attribute's channel taken alone; it is *not* the ε per question of a survey whose
groups hold several attributes — there every question of a group has the group's ε (SPEC §2 "Exact ε per question
and per respondent", ``exact_epsilon.mrr_exact_epsilons``, which also uses the probabilities the browser realizes).

A frequency oracle whose report is one value of its domain (DE, SPEC §3) has a d×d channel
(``ibu.channel_matrix``); ``epsilon_of_oracle`` measures it with ``epsilon_of_channel`` — a check that the
oracle's p and q deliver the ε it was configured with.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .assignment import check_probabilities

__all__ = [
    "epsilon_of_channel", "epsilon_of_oracle", "mrr_channel", "mrr_epsilon", "mrr_group_epsilon", "check_theta",
]


def check_theta(theta, name: str = "theta", allow_zero: bool = True) -> float:
    """θ as a float in [0, 1] (or (0, 1] with ``allow_zero=False``), else ``ValueError`` naming ``name``."""
    try:
        theta = float(theta)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1]") from None
    lo_ok = theta >= 0 if allow_zero else theta > 0
    if not (math.isfinite(theta) and lo_ok and theta <= 1):
        raise ValueError(f"{name} must lie in {'[0, 1]' if allow_zero else '(0, 1]'}, got {theta!r}")
    return theta


def epsilon_of_channel(P) -> float:
    """ε = max_r ln(max_o P[r, o] / min_o P[r, o]) of a channel ``P[r, o] = P(R=r | O=o)`` (SPEC §2).

    Columns must be probability distributions. Returns ``math.inf`` when a reachable output has probability 0
    under some input; rows that are zero for every input are skipped.
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] < 1 or P.shape[1] < 1:
        raise ValueError("channel P must be a 2-d array P[r, o]")
    if np.any(~np.isfinite(P)) or np.any(P < 0) or not np.allclose(P.sum(axis=0), 1.0, atol=1e-9):
        raise ValueError("channel P must have non-negative columns summing to 1 (P[r, o] = P(R=r | O=o))")
    hi = P.max(axis=1)
    lo = P.min(axis=1)
    reachable = hi > 0
    if np.any(lo[reachable] == 0):
        return math.inf
    return float(np.max(np.log(hi[reachable]) - np.log(lo[reachable])))


def epsilon_of_oracle(oracle) -> float:
    """ε of a frequency oracle's channel (SPEC §3 DE: p on the diagonal, q elsewhere), by ``epsilon_of_channel``.

    Only oracles with a single-value report have a small channel (``ibu.channel_matrix``); others raise
    ``ValueError``.
    """
    from .ibu import channel_matrix

    return epsilon_of_channel(channel_matrix(oracle))


def mrr_channel(theta, personal) -> np.ndarray:
    """MRR's channel on one attribute: P[r, o] = θ·[r = o] + (1 − θ)·P_Y(r) (SPEC §2)."""
    theta = check_theta(theta)
    p_y = check_probabilities(personal, name="personal")
    return theta * np.eye(p_y.size) + (1.0 - theta) * p_y[:, None]


def _mrr_epsilon_from_min(theta: float, min_personal: float) -> float:
    """ln(1 + θ/((1−θ)·m)) with m = min_r P_Y(r) over the outputs (records) of the channel."""
    if theta == 0:
        return 0.0
    if theta == 1 or min_personal == 0:
        return math.inf
    return math.log1p(theta / ((1.0 - theta) * min_personal))


def mrr_epsilon(theta, personal) -> float:
    """ε of MRR on one attribute: ln(1 + θ/((1−θ)·min_r P_Y(r))); θ = 1 ⇒ ∞ (SPEC §2)."""
    theta = check_theta(theta)
    p_y = check_probabilities(personal, name="personal")
    return _mrr_epsilon_from_min(theta, float(p_y.min()))


def mrr_group_epsilon(theta, personals: Sequence) -> float:
    """Record-level ε of a group sent together (SPEC §2): min P_Y of a record = Π_i min_r P_Y,i(r)."""
    theta = check_theta(theta)
    if len(personals) == 0:
        raise ValueError("personals must hold one distribution per attribute of the group")
    min_record = 1.0
    for i, p in enumerate(personals):
        min_record *= float(check_probabilities(p, name=f"personals[{i}]").min())
    return _mrr_epsilon_from_min(theta, min_record)
