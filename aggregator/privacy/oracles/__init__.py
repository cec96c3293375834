"""Frequency oracles (SPEC §3) and the stable entry point ``get``.

    >>> from aggregator.privacy import oracles
    >>> fo = oracles.get("oue", epsilon=1.0, domain=16)
    >>> stats = fo.aggregate(fo.perturb(values, rng))
    >>> counts = fo.estimate(stats)
"""
from __future__ import annotations

from .adaptive import adaptive, choose
from .base import FrequencyOracle, PureProtocol
from .de import DirectEncoding
from .histogram import SummationHistogram, ThresholdingHistogram
from .olh import OptimizedLocalHashing
from .registry import get, lookup, names, oracle_class, register, unregister
from .ss import SubsetSelection
from .unary import OptimizedUnaryEncoding, SymmetricUnaryEncoding

__all__ = [
    "get", "names", "register", "unregister", "lookup", "oracle_class", "choose", "FrequencyOracle", "PureProtocol",
    "DirectEncoding", "SymmetricUnaryEncoding", "OptimizedUnaryEncoding", "SummationHistogram", "ThresholdingHistogram",
    "OptimizedLocalHashing", "SubsetSelection",
]

for _oracle in (DirectEncoding, SymmetricUnaryEncoding, OptimizedUnaryEncoding, SummationHistogram,
                ThresholdingHistogram, OptimizedLocalHashing, SubsetSelection, adaptive):
    register(_oracle)
