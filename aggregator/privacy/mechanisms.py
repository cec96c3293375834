"""Every described mechanism (``privacy.describe``): the catalogue the glossary, the planner, the model card and the
web app's text catalogue read — by family (``described``), for a survey's settings (``of_settings``), and their
translatable texts (``texts``)."""
from __future__ import annotations

from typing import Any

from . import oracles
from .continuous.approaches import APPROACH_CLASSES, approach_class
from .protocol import SurveyProtocol
from .protocol.config import mode, numeric_settings, section
from .protocol.gaussian import GaussianProtocol
from .protocol.ldp import LDPProtocol
from .protocol.mrr import MRRProtocol

__all__ = ["described", "of_settings", "texts"]


def described(family: str | None = None) -> list:
    """Every described mechanism, or those of one ``family`` — "mode" (the survey modes: LDP, MRR), "oracle" (the
    frequency oracles in registration order, a test's too) or "numeric" (the Gaussian family and its approaches)."""
    families = {"mode": [LDPProtocol, MRRProtocol],
                "oracle": [oracles.lookup(name) for name in oracles.names(sort=False)],
                "numeric": [GaussianProtocol, *APPROACH_CLASSES.values()]}
    out = [m for name, members in families.items() if family in (None, name) for m in members]
    return [m for m in out if getattr(m, "description", None) is not None]


def of_settings(config: dict) -> list[tuple[str, Any]]:
    """(family, mechanism) of every described mechanism a survey configuration's settings name, for the pages that
    name them: its mode's (LDP or MRR), then for LDP the encoding's oracle and, with Gaussian handling, the Gaussian
    approach; ``protocol.ConfigError`` for invalid settings."""
    out: list[tuple[str, Any]] = [("mode", SurveyProtocol.for_mode(mode(config)))]
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
