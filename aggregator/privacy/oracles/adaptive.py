"""The adaptive choice of frequency oracle (SPEC §3).

``choose(epsilon, domain)`` returns the name of the protocol of least *exact* variance among ``candidates()`` — the
registered oracles with an ``adaptive_rank``: DE, OLH, SS and OUE —, the mean over the domain of ``exact_variance``
(SPEC §3's exact form, frequency term included),

    V = q(1−q)/(p−q)² + (1−p−q)/(d·(p−q))   per report,

which does not depend on the data (Σ_v c_v = n), so the choice needs only ε and d (``mean_exact_variance``). Ties
(relative difference ≤ 1e-12) go to the smaller ``adaptive_rank``, the smaller report: DE (one integer), then OLH
(three integers), then SS and OUE (⌈d/8⌉ bytes each; SS first).

What it gives: SS with its optimal subset size ω is never worse than DE (ω = 1 *is* DE, and then DE wins the tie) nor
OUE, and 1.0–1.33× better than the better of them for the class × answer domains (d = 8–64, ε = 0.5–3;
docs/engine.md, "Subset selection"). So the choice is DE where ω = 1 (e^ε large against d: the old rule
"d − 2 < 3e^ε" of Wang et al.'s approximation, roughly), else SS. OLH (integer g = round(e^ε + 1)) at best equals
OUE, which SS beats.

``get("adaptive", epsilon=..., domain=...)`` (see ``oracles.get``) returns an instance of the chosen protocol,
whose ``name`` is the concrete protocol's.
"""
from __future__ import annotations

import numpy as np

from ..describe import Description
from .base import FrequencyOracle

__all__ = ["choose", "candidates", "adaptive", "mean_exact_variance"]

_TIE = 1e-12


def candidates() -> list[str]:
    """The names the adaptive choice picks among, in tie-breaking order: every registered oracle class with an
    ``adaptive_rank``, smallest rank first."""
    from . import lookup, names  # late import: the registry imports this module

    ranks = {name: getattr(lookup(name), "adaptive_rank", None) for name in names(sort=False)}
    ranked = sorted((rank, name) for name, rank in ranks.items() if rank is not None)
    return [name for _, name in ranked]


def mean_exact_variance(fo: FrequencyOracle) -> float:
    """(1/d)·Σ_v Var(Ê_v) for ONE report, the same for any data: ``exact_variance`` at uniform counts (for a pure
    protocol the frequency term sums to (1−p−q)/(p−q) whatever the counts)."""
    d = fo.domain
    return float(np.mean(fo.exact_variance(1, np.full(d, 1.0 / d))))


def choose(epsilon: float, domain: int) -> str:
    """Name of the least-exact-variance protocol among ``candidates()`` for this ε and d (ties → smaller rank)."""
    from . import get

    names = candidates()
    best_name, best_var = names[0], mean_exact_variance(get(names[0], epsilon=epsilon, domain=domain))
    for name in names[1:]:
        var = mean_exact_variance(get(name, epsilon=epsilon, domain=domain))
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
adaptive.description = Description(  # type: ignore[attr-defined]
    "adaptive", "Adaptive encoding",
    "For each part of a report, the encoding with the least expected error for that part's number of possible values "
    "(among DE, OLH, SS and OUE).", "", "SPEC §3",
    "One disguised answer per person: the best disguise per question (adaptive)")
adaptive.parameters = ()  # type: ignore[attr-defined]
adaptive.epsilon_bound_needs_domain = lambda: True  # type: ignore[attr-defined]  # the chosen oracle's may need d
