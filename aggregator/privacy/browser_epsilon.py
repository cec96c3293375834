"""The ε the browser realizes and the largest ε it can honour, for every mechanism by its name (SPEC §2 "Exact ε per
question and per respondent"): each frequency oracle answers through its class (``oracles.oracle_class``), binary
randomized response, Duchi's bit and grid Laplace through ``browser_arithmetic``, whose module docstring states the
criterion."""
from __future__ import annotations

import math

from . import oracles
from .browser_arithmetic import binary_rr_max_epsilon, laplace_max_epsilon

__all__ = ["realized_oracle_epsilon", "max_supported_epsilon", "check_supported_epsilon", "UnsupportedEpsilon"]


class UnsupportedEpsilon(ValueError):
    """An ε the browser's arithmetic cannot honour: ``epsilon`` and the ``bound`` it exceeds; ``str`` is the technical
    reason."""

    def __init__(self, reason: str, epsilon: float, bound: float):
        super().__init__(reason)
        self.epsilon = epsilon
        self.bound = bound


def realized_oracle_epsilon(params: dict) -> float:
    """Exact ε of a frequency oracle as the browser runs it, from its published ``params()`` (SPEC §3).

    DE: keep w.p. P = ⌈p·2^53⌉/2^53, else one of the d − 1 others uniformly ⇒ ε = ln(P(d−1)/(1−P)).
    OLH: (a, b) uniform and public, then DE over [g] on h(v) ⇒ ε = ln(P(g−1)/(1−P)) (a pair with h(v) ≠ h(v')
    exists for g ≥ 2). SUE/OUE: every bit B(Q), the own bit B(P) ⇒ ε = ln(P(1−Q)/(Q(1−P))) (largest pattern).
    SHE/THE: grid Laplace is bounded in the browser ⇒ ∞ (see module docstring; ``grid_laplace_unmatched_mass``).
    Each oracle class computes its own (``realized_epsilon``); ``ValueError`` for an unknown name.
    """
    return oracles.oracle_class(params["name"]).realized_epsilon(params)


def max_supported_epsilon(mechanism: str, domain: int | None = None) -> float:
    """The largest ε the browser's arithmetic honours for ``mechanism`` (module docstring's criterion):

    de (domain d): (d−1)/(e^ε+d−1) ≥ 2^-40 ⇒ ε ≤ ln((d−1)(2^40−1)); oue and binary RR (validation, Duchi):
    ln(2^40−1) ≈ 27.73; sue: 2·ln(2^40−1); olh: g = min(2^31−1, ⌊e^ε+1.5⌋) ⇒ ln((2^31−2)(2^40−1)) ≈ 49.2;
    she/the and grid Laplace ("laplace"; scale 2/ε, γ = 2^-10): the ε where the unmatched mass reaches 2^-40.
    A frequency oracle's bound is its class's ``max_supported_epsilon(domain)``; ``ValueError`` for unknown names.
    """
    key = str(mechanism).lower()
    if key in ("binary-rr", "duchi"):
        return binary_rr_max_epsilon()
    if key == "laplace":
        return laplace_max_epsilon()
    return oracles.oracle_class(key).max_supported_epsilon(domain)


def check_supported_epsilon(mechanism: str, epsilon: float, domain: int | None = None) -> float:
    """``epsilon`` if the browser can honour it for ``mechanism``, else ``UnsupportedEpsilon`` stating the bound."""
    epsilon = float(epsilon)
    bound = max_supported_epsilon(mechanism, domain)
    if not (math.isfinite(epsilon) and epsilon <= bound):
        raise UnsupportedEpsilon(
            f"ε = {epsilon:g} is more than the browser can honour for {mechanism}"
            f"{f' on {domain} values' if domain else ''}: above ε = {bound:.2f} its probabilities (multiples of "
            f"2^-53) fall below 2^-40 and can round to 0 or 1 (ε = ∞); choose ε ≤ {math.floor(bound * 100) / 100:.2f}",
            epsilon, bound)
    return epsilon
