"""Frequency oracles (SPEC §3) and the stable entry point ``get``.

    >>> from aggregator.privacy import oracles
    >>> fo = oracles.get("oue", epsilon=1.0, domain=16)
    >>> stats = fo.aggregate(fo.perturb(values, rng))
    >>> counts = fo.estimate(stats)
"""
from __future__ import annotations

from .base import FrequencyOracle, PureProtocol
from .de import DirectEncoding

__all__ = ["get", "names", "register", "FrequencyOracle", "PureProtocol", "DirectEncoding"]

_REGISTRY: dict[str, type] = {}


def register(cls):
    """Class decorator / call registering an oracle under ``cls.name``."""
    _REGISTRY[cls.name] = cls
    return cls


def names() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str, *, epsilon: float, domain: int, **params) -> FrequencyOracle:
    """The oracle called ``name`` (case-insensitive) for the given ε and domain size."""
    key = str(name).lower()
    if key not in _REGISTRY:
        raise ValueError(f"unknown frequency oracle {name!r}; choose one of {', '.join(names())}")
    return _REGISTRY[key](epsilon=epsilon, domain=domain, **params)


register(DirectEncoding)
