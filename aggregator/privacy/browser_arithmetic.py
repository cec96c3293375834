"""The probabilities the browser really realizes, the ε they give, and the largest ε it can honour (SPEC §2 "Exact ε
per question and per respondent": "Probabilities the browser cannot represent … bound the ε a survey may ask for").

The browser (``static/js/random.mjs``) draws ``random() = U / 2^53`` with U uniform on {0, …, 2^53 − 1} (two
uint32 from ``crypto.getRandomValues``; exact in binary64). Every randomizer compares it with a published double:

* Bernoulli (DE/OLH "keep" ``random() < p``, SUE/OUE bits, MRR's ``random() < θ``, Duchi's bit): the event
  U < p·2^53 has exactly ⌈p·2^53⌉ outcomes (p·2^53 is exact: scaling by 2^53), so P = ⌈p·2^53⌉ / 2^53
  (``realized_bernoulli``). For p ≥ 1/2 this is p itself; the published p itself is a rounded double, and p
  rounds to 1 (ε = ∞) once 1 − p < 2^-54, i.e. ε ≳ 36.7 for binary randomized response.
* Inverse CDF (``assign``: first i with u < cdf[i], last index otherwise): P(I ≤ i) = ⌈cdf[i]·2^53⌉ / 2^53
  (``realized_categorical``).
* ``integers(low, high)`` rejects u ≥ 2^32 − (2^32 mod r): exactly uniform, for ranges r ≤ 2^32 only.
* Grid Laplace (``noise.mjs``): K = G₁ − G₂, G = ⌊ln u / ln α⌋ with u = 1 − random() ∈ {2^-53, …, 1}, so
  G ≤ G_max = ⌊ln 2^-53 / ln α⌋: the noise is bounded. A one-hot component at 1 + G_max·γ can then only come from the
  true value, so the *pure* ε of SHE, THE and Gaussian Approaches 1 and 3 as the browser runs them is ∞; such outputs
  have probability ``grid_laplace_unmatched_mass`` (≈ 2·2^-53·e^{Δγ⁻¹·γ/b}), reported as a δ beside the ideal ε.

Honouring ε (``max_supported_epsilon``): every probability a browser draw relies on, and its complement, must be
at least ``MIN_PROBABILITY`` = 2^-40 (for grid Laplace: the unmatched mass at most 2^-40). Then the double rounding
(≤ 2^-53 when p is computed, ≤ 2^-53 when realized) moves each probability by a relative 2^-12 at most, the realized
ε (which ``realized_oracle_epsilon`` computes exactly and the product shows) stays within ≈ 5·10^-4 of the configured
ε, and no probability rounds to 0 or 1.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Sequence

import numpy as np

__all__ = [
    "UNIFORM_BITS", "MIN_PROBABILITY", "realized_bernoulli", "realized_categorical", "log_ratio",
    "realized_oracle_epsilon", "realized_binary_rr_epsilon", "duchi_half_gap", "duchi_probability",
    "realized_duchi_epsilon",
    "grid_laplace_max_steps", "grid_laplace_unmatched_mass", "max_supported_epsilon", "check_supported_epsilon",
    "check_supported_personal",
]

#: random() has 53 random bits: U / 2^53.
UNIFORM_BITS = 53
_SCALE = 1 << UNIFORM_BITS
#: Smallest probability (and complement) a browser draw may rely on for the configured ε to be honoured.
MIN_PROBABILITY = 2.0**-40
#: The browser's ``integers`` range limit.
_INTEGERS_MAX = 1 << 32


def realized_bernoulli(p: float) -> Fraction:
    """P(random() < p) in the browser: ⌈p·2^53⌉/2^53 for p in [0, 1] (exact, as a ``Fraction``)."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a probability must lie in [0, 1], got {p!r}")
    return Fraction(math.ceil(Fraction(p) * _SCALE), _SCALE)


def realized_categorical(cdf: Sequence[float] | np.ndarray) -> list[Fraction]:
    """P(assign(cdf) = i) in the browser: first i with random() < cdf[i], the last index otherwise."""
    cuts = [realized_bernoulli(min(max(float(c), 0.0), 1.0)) for c in list(cdf)[:-1]] + [Fraction(1)]
    out, previous = [], Fraction(0)
    for c in cuts:
        out.append(max(c - previous, Fraction(0)))
        previous = max(previous, c)
    return out


def log_ratio(num: Fraction, den: Fraction) -> float:
    """ln(num/den) for exact rationals (∞ when den = 0 < num, 0 when both are 0), without overflow."""
    if num == 0:
        return 0.0 if den == 0 else -math.inf
    if den == 0:
        return math.inf
    r = Fraction(num) / Fraction(den)
    return math.log(r.numerator) - math.log(r.denominator)


def realized_binary_rr_epsilon(p: float) -> float:
    """DE on two values as the browser runs it (keep w.p. ⌈p·2^53⌉/2^53, else the other value)."""
    P = realized_bernoulli(p)
    return max(log_ratio(P, 1 - P), log_ratio(1 - P, P))


def realized_oracle_epsilon(params: dict) -> float:
    """Exact ε of a frequency oracle as the browser runs it, from its published ``params()`` (SPEC §3).

    DE: keep w.p. P = ⌈p·2^53⌉/2^53, else one of the d − 1 others uniformly ⇒ ε = ln(P(d−1)/(1−P)).
    OLH: (a, b) uniform and public, then DE over [g] on h(v) ⇒ ε = ln(P(g−1)/(1−P)) (a pair with h(v) ≠ h(v')
    exists for g ≥ 2). SUE/OUE: every bit B(Q), the own bit B(P) ⇒ ε = ln(P(1−Q)/(Q(1−P))) (largest pattern).
    SHE/THE: grid Laplace is bounded in the browser ⇒ ∞ (see module docstring; ``grid_laplace_unmatched_mass``).
    Each oracle class computes its own (``realized_epsilon``); ``ValueError`` for an unknown name.
    """
    from .oracles import oracle_class  # late: the oracles use this module's arithmetic

    return oracle_class(params["name"]).realized_epsilon(params)


def duchi_half_gap(epsilon: float) -> float:
    """h = (e^ε−1)/(2e^ε + 2), e = exp(ε) rounded: Approach 2 publishes it (``onebit_half_gap``)."""
    e = math.exp(epsilon)
    return (e - 1) / (2 * e + 2)


def duchi_probability(v: float, epsilon: float) -> float:
    """The double static/js/approaches/one_bit.mjs compares with (Approach 2): 1/2 + v·h, h = ``duchi_half_gap``."""
    return 0.5 + v * duchi_half_gap(epsilon)


def realized_duchi_epsilon(epsilon: float) -> float:
    """Exact ε of the browser's Duchi bit for entries in [−1, 1]. Every operation of ``duchi_probability`` is
    monotone in v under round-to-nearest and ⌈·⌉ is monotone, so the extreme ratios are at v = ±1."""
    hi, lo = realized_bernoulli(duchi_probability(1.0, epsilon)), realized_bernoulli(duchi_probability(-1.0, epsilon))
    return max(log_ratio(hi, lo), log_ratio(1 - lo, 1 - hi))


def grid_laplace_max_steps(scale: float, grid: float) -> int:
    """G_max = ⌊ln(2^-53)/ln α⌋, α = exp(−γ/scale) as the browser rounds it: the largest geometric draw."""
    log_alpha = math.log(math.exp(-grid / scale)) or -grid / scale
    return math.floor(math.log(2.0**-UNIFORM_BITS) / log_alpha)


@functools.lru_cache(maxsize=4096)
def grid_laplace_unmatched_mass(scale: float, grid: float, shift: float = 1.0) -> float:
    """Probability that a component shifted by ``shift`` (one-hot: 1) lands beyond the largest noisy value the
    unshifted component can take (1 + K·γ > G_max·γ), summed over the two components a change of answer moves.

    P(K ≥ t) = Σ_{g₂} P(G₂ = g₂)·P(G₁ ≥ t + g₂) with P(G ≥ g) = ⌊2^53·α^g⌋/2^53 (Math.log taken as exact)."""
    alpha = math.exp(-grid / scale)
    gmax = grid_laplace_max_steps(scale, grid)
    t = gmax - math.ceil(shift / grid) + 1
    if t <= 0:
        return 1.0

    def tail(g: int) -> float:
        return math.floor(_SCALE * alpha**g) / _SCALE if g > 0 else 1.0

    mass = sum((tail(g2) - tail(g2 + 1)) * tail(t + g2) for g2 in range(0, max(gmax - t, 0) + 1))
    return min(1.0, 2.0 * mass)


@functools.cache
def _laplace_max_epsilon(sensitivity_per_component: float, scale_times_eps: float, grid: float) -> float:
    """Largest ε (bisection; the mass grows with ε) with ``grid_laplace_unmatched_mass`` ≤ MIN_PROBABILITY. Kept per
    argument (sixty masses of up to 10⁵ terms each: 0.17 s, which every SHE/THE input's protocol build paid)."""
    lo, hi = 1e-3, 200.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if grid_laplace_unmatched_mass(scale_times_eps / mid, grid, sensitivity_per_component) <= MIN_PROBABILITY:
            lo = mid
        else:
            hi = mid
    return lo


def max_supported_epsilon(mechanism: str, domain: int | None = None) -> float:
    """The largest ε the browser's arithmetic honours for ``mechanism`` (module docstring's criterion):

    de (domain d): (d−1)/(e^ε+d−1) ≥ 2^-40 ⇒ ε ≤ ln((d−1)(2^40−1)); oue and binary RR (validation, Duchi):
    ln(2^40−1) ≈ 27.73; sue: 2·ln(2^40−1); olh: g = min(2^31−1, ⌊e^ε+1.5⌋) ⇒ ln((2^31−2)(2^40−1)) ≈ 49.2;
    she/the and grid Laplace ("laplace"; scale 2/ε, γ = 2^-10): the ε where the unmatched mass reaches 2^-40.
    A frequency oracle's bound is its class's ``max_supported_epsilon(domain)``; ``ValueError`` for unknown names.
    """
    key = str(mechanism).lower()
    if key in ("binary-rr", "duchi"):
        return math.log((1.0 / MIN_PROBABILITY) - 1.0)
    if key == "laplace":
        return _laplace_max_epsilon(1.0, 2.0, 2.0**-10)
    from .oracles import oracle_class  # late: the oracles use this module's arithmetic

    return oracle_class(key).max_supported_epsilon(domain)


def check_supported_epsilon(mechanism: str, epsilon: float, domain: int | None = None) -> float:
    """``epsilon`` if the browser can honour it for ``mechanism``, else ``ValueError`` stating the bound."""
    epsilon = float(epsilon)
    bound = max_supported_epsilon(mechanism, domain)
    if not (math.isfinite(epsilon) and epsilon <= bound):
        raise ValueError(
            f"ε = {epsilon:g} is more than the browser can honour for {mechanism}"
            f"{f' on {domain} values' if domain else ''}: above ε = {bound:.2f} its probabilities (multiples of "
            f"2^-53) fall below 2^-40 and can round to 0 or 1 (ε = ∞); choose ε ≤ {math.floor(bound * 100) / 100:.2f}"
        )
    return epsilon


def check_supported_personal(personals: Sequence[Sequence[float]], names: Sequence[str] | None = None) -> None:
    """MRR: every declared personal probability must be 0 or ≥ 2^-40 so the browser's inverse CDF realizes it
    (a positive probability realized as 0 would make ε = ∞); ``ValueError`` naming the attribute otherwise."""
    for i, p in enumerate(personals):
        small = [float(x) for x in p if 0.0 < float(x) < MIN_PROBABILITY]
        if small:
            who = names[i] if names is not None else f"attribute {i}"
            raise ValueError(f"{who}: personal probabilities below 2^-40 (≈ 9.1e-13) cannot be honoured by the browser")
