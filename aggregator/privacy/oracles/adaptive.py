"""The adaptive choice of frequency oracle (SPEC §3).

``choose(epsilon, domain)`` returns the name of the protocol of least ``count_variance`` among DE, OUE and OLH;
ties (relative difference ≤ 1e-12) go to the smallest report: DE (one integer), then OLH (three integers), then
OUE (d bits). Since Var_DE ∝ d − 2 + e^ε and Var_OUE ∝ 4e^ε over the same (e^ε − 1)², this is "DE when
d − 2 < 3e^ε" (SPEC §3), and DE also on the boundary. OLH's variance with the integer g = round(e^ε + 1) is never
below OUE's (whose value is OLH's at the real optimum g = e^ε + 1), so OLH is chosen only when they tie.

``get("adaptive", epsilon=..., domain=...)`` (see ``oracles.get``) returns an instance of the chosen protocol,
whose ``name`` is the concrete protocol's.
"""
from __future__ import annotations

from .base import FrequencyOracle

__all__ = ["choose", "CANDIDATES", "adaptive"]

# In tie-breaking order: smallest report first.
CANDIDATES = ("de", "olh", "oue")
_TIE = 1e-12


def choose(epsilon: float, domain: int) -> str:
    """Name of the least-variance protocol among DE, OLH, OUE for this ε and d (ties → smallest report)."""
    from . import get  # late import: the registry imports this module

    best_name, best_var = CANDIDATES[0], get(CANDIDATES[0], epsilon=epsilon, domain=domain).count_variance(1)
    for name in CANDIDATES[1:]:
        var = get(name, epsilon=epsilon, domain=domain).count_variance(1)
        if var < best_var * (1 - _TIE):
            best_name, best_var = name, var
    return best_name


def adaptive(*, epsilon: float, domain: int) -> FrequencyOracle:
    """An instance of ``choose(epsilon, domain)``."""
    from . import get

    return get(choose(epsilon, domain), epsilon=epsilon, domain=domain)


adaptive.name = "adaptive"  # type: ignore[attr-defined]  # the registry's key for this factory
adaptive.label = "the least-variance oracle per input"  # type: ignore[attr-defined]
adaptive.title = "Adaptive — least variance for each question"  # type: ignore[attr-defined]
