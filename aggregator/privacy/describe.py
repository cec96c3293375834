"""What the product says and decides about a mechanism, held by the mechanism.

Every mechanism class (a frequency oracle, a Gaussian approach, a survey protocol) carries a ``Description`` — its
glossary term, one-sentence summary, further details, SPEC reference and the planner's option text — and, where it
takes any, its extra ``Parameter``s. The texts are plain English: the engine knows no Django, so they are the msgids
the web app translates with its catalogue (``aggregator/mechanism_texts.py``, generated from ``texts()`` and checked by
``tests/dashboard/test_mechanism_texts.py``). ``described()`` lists every described mechanism in glossary order.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Description", "Parameter", "check_parameters", "described", "of_settings", "texts"]


@dataclass(frozen=True)
class Description:
    """Plain words about one mechanism.

    Parameters
    ----------
    anchor : str
        The glossary anchor (``/dashboard/glossary/#anchor``): the registry name for an oracle.
    term : str
        The glossary heading, e.g. "DE (direct encoding)".
    summary : str
        One sentence: the glossary's tooltip.
    details : str
        The rest of the glossary entry.
    spec : str
        Where SPEC defines it, e.g. "SPEC §3".
    plan_label : str
        The planner's option text for the lab method that runs it ("" when none does).
    plan_default : bool
        Whether the planner offers it ticked (a few good first choices).
    """

    anchor: str
    term: str
    summary: str
    details: str = ""
    spec: str = ""
    plan_label: str = ""
    plan_default: bool = False

    def texts(self) -> tuple[str, ...]:
        """The translatable texts (every non-empty one but ``anchor`` and ``spec``)."""
        return tuple(t for t in (self.term, self.summary, self.details, self.plan_label) if t)


@dataclass(frozen=True)
class Parameter:
    """An extra setting of a mechanism (beyond ε or θ), a number in the closed range [``low``, ``high``].

    Parameters
    ----------
    name : str
        The keyword the mechanism's constructor takes (``oracles.get(name, ..., **parameters)``).
    label : str
        A few words for the form, e.g. "THE threshold t".
    help : str
        What it does and what leaving it out means.
    low, high : float
        The range the mechanism's formulas hold for.
    error : str
        The message for a value outside it (default: "<label> must lie in [low, high]").
    """

    name: str
    label: str
    help: str
    low: float = -math.inf
    high: float = math.inf
    error: str = ""

    @property
    def range_error(self) -> str:
        return self.error or f"{self.label} must lie in [{self.low:g}, {self.high:g}]"

    def check(self, value) -> float:
        """``value`` as a float in [low, high]; ``ValueError(range_error)`` otherwise."""
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(value, bool) or not self.low <= number <= self.high:
            raise ValueError(self.range_error)
        return number

    def texts(self) -> tuple[str, ...]:
        return (self.label, self.help, self.range_error)


def check_parameters(mechanism, values) -> dict[str, float]:
    """``values`` (a dict, or None for none) checked against ``mechanism.parameters``: unknown names and values out
    of range raise ``ValueError``; ``None`` values are left out (the mechanism's default)."""
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ValueError("the parameters must be an object: name → number")
    known = {p.name: p for p in getattr(mechanism, "parameters", ())}
    unknown = sorted(set(values) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise ValueError(f"unknown parameter(s) {', '.join(map(str, unknown))} (this mechanism takes: {allowed})")
    return {name: known[name].check(value) for name, value in values.items() if value is not None}


def described(family: str | None = None) -> list:
    """Every described mechanism, or those of one ``family`` — "mode" (the survey modes: LDP, MRR), "oracle" (the
    frequency oracles in registration order, a test's too) or "numeric" (the Gaussian family and its approaches)."""
    from . import oracles
    from .continuous.approaches import APPROACH_CLASSES
    from .protocol.gaussian import GaussianProtocol
    from .protocol.ldp import LDPProtocol
    from .protocol.mrr import MRRProtocol

    families = {"mode": [LDPProtocol, MRRProtocol],
                "oracle": [oracles.lookup(name) for name in oracles.names(sort=False)],
                "numeric": [GaussianProtocol, *APPROACH_CLASSES.values()]}
    out = [m for name, members in families.items() if family in (None, name) for m in members]
    return [m for m in out if getattr(m, "description", None) is not None]


def of_settings(config: dict) -> list[tuple[str, object]]:
    """(family, mechanism) of every described mechanism a survey configuration's settings name, for the pages that
    name them: its mode's (LDP or MRR), then for LDP the encoding's oracle and, with Gaussian handling, the Gaussian
    approach; ``protocol.ConfigError`` for invalid settings."""
    from . import oracles
    from .continuous.approaches import approach_class
    from .protocol import SurveyProtocol
    from .protocol.config import mode, numeric_settings, section

    out: list[tuple[str, object]] = [("mode", SurveyProtocol.for_mode(mode(config)))]
    if "ldp" in config:
        try:
            out.append(("oracle", oracles.lookup(section(config, "ldp").get("encoding", "adaptive"))))
        except ValueError:
            pass  # an unknown encoding: nothing to name
        handling, _, approach = numeric_settings(config)
        if handling == "gaussian":
            out.append(("numeric", approach_class(approach)))
    return [(family, m) for family, m in out if getattr(m, "description", None) is not None]


def texts() -> list[str]:
    """Every translatable text of every described mechanism (descriptions, titles, parameters), once each, in
    order: what the web app's catalogue lists."""
    seen: dict[str, None] = {}
    for mechanism in described():
        for text in (getattr(mechanism, "title", ""), *mechanism.description.texts(),
                     *(t for p in getattr(mechanism, "parameters", ()) for t in p.texts())):
            if text:
                seen.setdefault(text, None)
    return list(seen)
