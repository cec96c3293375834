"""The frequency-oracle interface (SPEC §3).

A ``FrequencyOracle`` is configured by ``epsilon`` and ``domain`` (d) and offers

* client half: ``perturb(values, rng)`` — one randomized report per true value in ``values`` (int array in
  [0, d)); one row per respondent. Randomness only from the injected ``rng`` (see ``privacy.rng``).
* server half: ``aggregate(reports) -> Counts`` (additive with ``+``), ``estimate(stats) -> ndarray`` of
  unbiased raw counts (length d, may be negative), ``validate(reports)`` raising ``ValueError`` on malformed
  reports (shape, domain, length).
* theory: ``count_variance(n)`` — Wang et al.'s approximation (SPEC §3 table), and
  ``exact_variance(n, counts)`` — per value, with the frequency term, ``counts`` being the true (or, for
  standard errors, the estimated) counts.

``PureProtocol`` covers the "pure" protocols of Wang et al. (DE, SUE, OUE, THE, OLH): a report supports a
set of values; the support count c_v satisfies E[c_v] = n_v·p + (n - n_v)·q, hence Ê_v = (c_v - n·q)/(p - q).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from ..stats import Counts

__all__ = ["FrequencyOracle", "PureProtocol", "check_values"]


def check_values(values, domain: int) -> np.ndarray:
    """True values (or single-value reports) as a 1-d int64 array, each in [0, domain); ``ValueError`` otherwise.

    Integer and boolean arrays are accepted, and float arrays holding finite whole numbers; anything else
    (NaN, ±∞, fractions, strings, objects) is rejected. The range is checked before any cast, so huge or
    unsigned 64-bit values cannot wrap into the domain.
    """
    values = np.asarray(values)
    if values.ndim != 1:
        values = values.reshape(-1)
    kind = values.dtype.kind
    if kind not in "biuf":
        raise ValueError(f"values must be integers, got dtype {values.dtype}")
    if values.size:
        if kind == "f" and not (np.all(np.isfinite(values)) and np.all(np.floor(values) == values)):
            raise ValueError("values must be integers")
        if values.min() < 0 or values.max() >= domain:
            raise ValueError(f"values must lie in [0, {domain})")
    return values.astype(np.int64, copy=False)


class FrequencyOracle(ABC):
    """Base of every frequency oracle; see the module docstring for the contract."""

    name: ClassVar[str]

    def __init__(self, epsilon: float, domain: int):
        epsilon = float(epsilon)
        if not np.isfinite(epsilon) or epsilon <= 0:
            raise ValueError("epsilon must be a finite number > 0")
        domain = int(domain)
        if domain < 2:
            raise ValueError("domain must have at least 2 values")
        self.epsilon = epsilon
        self.domain = domain

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, domain={self.domain})"

    # -- client half ---------------------------------------------------------------------------
    @abstractmethod
    def perturb(self, values, rng: np.random.Generator) -> Any:
        """Randomized reports, one row per entry of ``values``."""

    # -- server half ---------------------------------------------------------------------------
    @abstractmethod
    def validate(self, reports) -> Any:
        """Return ``reports`` normalised to the canonical dtype/shape, or raise ``ValueError``."""

    @abstractmethod
    def aggregate(self, reports) -> Counts:
        """Fold reports into additive statistics."""

    @abstractmethod
    def estimate(self, stats: Counts) -> np.ndarray:
        """Unbiased estimate of the true count of every value (float, length ``domain``)."""

    def zero_stats(self) -> Counts:
        return Counts.zero(self.domain)

    # -- theory --------------------------------------------------------------------------------
    @abstractmethod
    def count_variance(self, n: int) -> float:
        """Wang et al.'s approximate Var(Ê_v) for n reports (SPEC §3 table)."""

    @abstractmethod
    def exact_variance(self, n: int, counts) -> np.ndarray:
        """Exact Var(Ê_v) for n reports of which ``counts[v]`` have true value v (SPEC §3)."""

    def standard_errors(self, stats: Counts) -> np.ndarray:
        """Standard errors of ``estimate(stats)``: exact variance with the clipped estimate plugged in."""
        est = np.clip(self.estimate(stats), 0, stats.n)
        return np.sqrt(np.maximum(self.exact_variance(stats.n, est), 0.0))

    def params(self) -> dict:
        """JSON-able parameters the browser needs (published in the survey protocol)."""
        return {"name": self.name, "epsilon": self.epsilon, "domain": self.domain}


class PureProtocol(FrequencyOracle):
    """A pure protocol: support probabilities ``p`` (own value) and ``q`` (any other value)."""

    @property
    @abstractmethod
    def p(self) -> float: ...

    @property
    @abstractmethod
    def q(self) -> float: ...

    def estimate(self, stats: Counts) -> np.ndarray:
        """Ê_v = (c_v − n·q)/(p − q) (SPEC §3)."""
        return (stats.support.astype(np.float64) - stats.n * self.q) / (self.p - self.q)

    def count_variance(self, n: int) -> float:
        """n·q(1−q)/(p−q)²: the table's variances are this expression for each protocol."""
        p, q = self.p, self.q
        return n * q * (1 - q) / (p - q) ** 2

    def exact_variance(self, n: int, counts) -> np.ndarray:
        """n·q(1−q)/(p−q)² + c_v·(1−p−q)/(p−q) (SPEC §3)."""
        p, q = self.p, self.q
        counts = np.asarray(counts, dtype=np.float64)
        return n * q * (1 - q) / (p - q) ** 2 + counts * (1 - p - q) / (p - q)

    def params(self) -> dict:
        return {**super().params(), "p": self.p, "q": self.q}
