"""Frequency oracles (SPEC §3) and the stable entry point ``get``.

    >>> from aggregator.privacy import oracles
    >>> fo = oracles.get("oue", epsilon=1.0, domain=16)
    >>> stats = fo.aggregate(fo.perturb(values, rng))
    >>> counts = fo.estimate(stats)
"""
from __future__ import annotations

import inspect

from .adaptive import adaptive, choose
from .base import FrequencyOracle, PureProtocol
from .de import DirectEncoding
from .histogram import SummationHistogram, ThresholdingHistogram
from .olh import OptimizedLocalHashing
from .unary import OptimizedUnaryEncoding, SymmetricUnaryEncoding

__all__ = [
    "get", "names", "register", "choose", "FrequencyOracle", "PureProtocol", "DirectEncoding",
    "SymmetricUnaryEncoding", "OptimizedUnaryEncoding", "SummationHistogram", "ThresholdingHistogram",
    "OptimizedLocalHashing",
]

_REGISTRY: dict[str, type] = {}


def register(cls):
    """Class decorator / call registering an oracle (a class, or a factory with a ``name`` attribute)."""
    _REGISTRY[cls.name] = cls
    return cls


def names() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str, *, epsilon: float, domain: int, **params) -> FrequencyOracle:
    """The oracle called ``name`` (case-insensitive) for the given ε and domain size.

    Names: de, sue, oue, she, the (``threshold=``: a float in [0, 1], default None = the variance-optimal t in
    (0.5, 1); seed 000 used 0.25), olh (g = max(2, round(e^ε + 1))), and adaptive (an instance of the protocol
    ``choose(ε, d)`` names: DE, OLH or OUE). Unknown names or parameters raise ``ValueError``.
    """
    key = str(name).lower()
    if key not in _REGISTRY:
        raise ValueError(f"unknown frequency oracle {name!r}; choose one of {', '.join(names())}")
    factory = _REGISTRY[key]
    try:
        inspect.signature(factory).bind(epsilon=epsilon, domain=domain, **params)
    except TypeError:
        raise ValueError(f"unexpected parameter(s) {', '.join(sorted(params))} for frequency oracle {key!r}") from None
    return factory(epsilon=epsilon, domain=domain, **params)


for _oracle in (DirectEncoding, SymmetricUnaryEncoding, OptimizedUnaryEncoding, SummationHistogram,
                ThresholdingHistogram, OptimizedLocalHashing, adaptive):
    register(_oracle)
