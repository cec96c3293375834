"""The frequency-oracle interface (SPEC §3).

A ``FrequencyOracle`` is configured by ``epsilon`` and ``domain`` (d) and offers

* client half: ``perturb(values, rng)`` — one randomized report per true value in ``values`` (int array in
  [0, d)); one row per respondent. Randomness only from the injected ``rng`` (see ``privacy.rng``).
* server half: ``aggregate(reports) -> Counts`` (additive with ``+``), ``estimate(stats) -> ndarray`` of
  unbiased raw counts (length d, may be negative), ``validate(reports)`` raising ``ValueError`` on malformed
  reports (shape, domain, length).
* theory: ``count_variance(n)`` — Wang et al.'s approximation (SPEC §3 table), and
  ``exact_variance(n, counts)`` — per value, with the frequency term, ``counts`` being the true (or, for
  standard errors, the estimated) counts; ``count_covariance(n, counts)`` — the (d, d) covariance of the estimates.
* wire codec (``oracles/wire.py``): ``to_wire(reports) -> list`` (one JSON value per respondent) and
  ``from_wire(values) -> reports`` (checked, then ``validate``d; ``ValueError`` with a readable message);
  ``wire_schema()`` — the JSON Schema of one wire value (the API's typed report schema, issue 14).
* plausibility (``privacy/plausibility.py``): ``support_blocks(reports, rows)`` — the 0/1 sets of values each report
  supports, ``report_totals(reports)`` — each report's total S_r, ``honest_moments()`` — (μ, σ², κ₄) of an honest
  S_r, ``estimate_sum(mean_total)`` — Σ_v f̂_v from the mean total, and the flags ``honest_variance_exact`` (the
  spread check applies) and ``supports_pair_check`` (honest supports independent given the true value).
* browser arithmetic (``privacy/browser_arithmetic.py``): the classmethods ``realized_epsilon(params)`` — exact ε as
  the browser runs it from the published parameters — and ``max_supported_epsilon(domain)``.
* data poisoning (``aggregator/lab/poisoning.py``, optional): ``craft(attack, targets, m, rng)`` and
  ``crafted_support(attack, r)``; the base raises ``NotImplementedError``.

``PureProtocol`` covers the "pure" protocols of Wang et al. (DE, SUE, OUE, THE, OLH): a report supports a
set of values; the support count c_v satisfies E[c_v] = n_v·p + (n - n_v)·q, hence Ê_v = (c_v - n·q)/(p - q).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Iterator

import numpy as np

from ..describe import Description, Parameter
from ..stats import Counts

#: Rows per block when support matrices are built.
_SUPPORT_ROWS = 16384

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
    #: A few words naming the protocol (the lab's method summaries, ``aggregator/lab/methods.py``).
    label: ClassVar[str] = ""
    #: The survey form's text for choosing it (``Survey.encoding``), e.g. "OUE — optimized unary encoding".
    title: ClassVar[str] = ""
    #: The glossary's, planner's and model card's plain words (``privacy.describe``).
    description: ClassVar[Description | None] = None
    #: Extra settings beyond ε (a survey's ``ldp.parameters``), passed to ``__init__`` by keyword.
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    #: Whether the adaptive choice (``oracles.adaptive``) considers it, and its place when variances tie (smaller
    #: first: the smaller report); ``None``: never chosen.
    adaptive_rank: ClassVar[int | None] = None
    #: The oracle whose client half sends the same reports for the same ε and d (THE: SHE's noisy one-hot vector,
    #: folded differently), so one perturbation serves both (the benchmarks); ``None`` for none.
    same_reports_as: ClassVar[str | None] = None

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

    @classmethod
    def epsilon_bound_needs_domain(cls) -> bool:
        """Whether ``max_supported_epsilon`` needs the domain (if not, a survey's ε is checked before it has
        questions)."""
        try:
            cls.max_supported_epsilon(None)
        except ValueError:
            return True
        return False

    def channel(self) -> np.ndarray:
        """The (reports × values) channel P(R = r | V = v) when a report is one value of the domain (for
        ``privacy.ibu``); ``ValueError`` for protocols with a larger report space."""
        raise ValueError(f"{self.name.upper()} has no small channel: its report is not one value of the domain")

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

    def count_covariance(self, n: int, counts) -> np.ndarray:
        """(d, d) covariance of the count estimates Ê for ``n`` reports with true counts ``counts`` (SPEC §3);
        ``counts = 0`` gives Wang et al.'s data-free approximation.

        Diagonal: ``exact_variance``. Off-diagonal: 0 here, which is exact for the protocols whose components are
        randomized independently given the true value (SUE, OUE, SHE, THE). Protocols whose supports are dependent
        override it (DE exactly; OLH documents its approximation)."""
        return np.diag(np.asarray(self.exact_variance(n, np.asarray(counts, dtype=np.float64)), dtype=np.float64))

    # -- wire codec (oracles/wire.py) -------------------------------------------------------------
    @abstractmethod
    def to_wire(self, reports) -> list:
        """One JSON value per respondent (the form a browser POSTs) of engine reports."""

    @abstractmethod
    def from_wire(self, values: list) -> Any:
        """Validated engine reports from a list of JSON values, one per respondent; ``ValueError`` (with a
        readable message) on malformed input."""

    def no_reports(self) -> Any:
        """``from_wire([])``, made once per oracle: a one-report payload leaves every input but one empty, and
        decoding nothing cost 22 calls' overhead per report POST of a 22-question survey (bench/load/README.md).
        Shared, so never written to (it has no entries to write)."""
        empty = self.__dict__.get("_no_reports")
        if empty is None:
            empty = self.__dict__["_no_reports"] = self.from_wire([])
        return empty

    def wire_schema(self) -> dict:
        """JSON Schema (2020-12) of one wire value, admitting exactly what ``from_wire`` accepts (``oracles.wire``'s
        helpers). This default, any JSON value, is for an oracle that declares none; the built-in ones do."""
        return {}

    # -- plausibility (privacy/plausibility.py) ---------------------------------------------------
    #: The spread check applies: ``honest_moments``' σ² and κ₄ are exact (not for OLH's hashing).
    honest_variance_exact: ClassVar[bool] = True
    #: Honest supports of distinct values are independent given the true value, so pairs are checked.
    supports_pair_check: ClassVar[bool] = False

    def support_blocks(self, reports, rows: int) -> Iterator[np.ndarray]:
        """(≤ rows, d) uint8 matrices, b_rv = 1 when validated report r supports value v, block by block."""
        raise ValueError(f"no support sets for oracle {self.name!r}")

    def support_matrix(self, reports) -> np.ndarray:
        """(n, d) uint8 support matrix of the reports (validated first)."""
        blocks = list(self.support_blocks(self.validate(reports), _SUPPORT_ROWS))
        return np.vstack(blocks) if blocks else np.zeros((0, self.domain), dtype=np.uint8)

    def report_totals(self, reports) -> np.ndarray:
        """S_r = Σ_v b_rv per validated report (int64; SHE: the sum of its components)."""
        totals = [b.sum(axis=1, dtype=np.int64) for b in self.support_blocks(reports, _SUPPORT_ROWS)]
        return np.concatenate(totals) if totals else np.zeros(0, dtype=np.int64)

    @abstractmethod
    def honest_moments(self) -> tuple[float, float, float]:
        """(μ, σ², κ₄) of an honest report's total S, whatever the respondent's true value."""

    @abstractmethod
    def estimate_sum(self, mean_total: float) -> float:
        """Σ_v f̂_v, the sum of the frequency estimates, from the mean report total S̄ (1 for honest data)."""

    def params(self) -> dict:
        """JSON-able parameters the browser needs (published in the survey protocol)."""
        return {"name": self.name, "epsilon": self.epsilon, "domain": self.domain}

    # -- browser arithmetic (privacy/browser_arithmetic.py) ---------------------------------------
    @classmethod
    @abstractmethod
    def realized_epsilon(cls, params: dict) -> float:
        """Exact ε of the protocol as the browser runs it (``random() = U/2^53``), from its published ``params()``
        (SPEC §2 "Exact ε"; ``browser_arithmetic.realized_bernoulli``)."""

    @classmethod
    @abstractmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """The largest ε the browser's arithmetic honours on ``domain`` values: every probability a draw relies on,
        and its complement, at least ``browser_arithmetic.MIN_PROBABILITY`` (SPEC §2)."""

    def browser_unmatched_mass(self) -> float:
        """Probability per report of an output only one true value can give in the browser (its pure ε is then
        ∞, ``realized_epsilon``): the δ beside the ideal ε; 0 for protocols without bounded noise."""
        return 0.0

    # -- data poisoning (aggregator/lab/poisoning.py; Cao, Jia & Gong 2021) ------------------------
    def craft(self, attack: str, targets: np.ndarray, m: int, rng: np.random.Generator, **options) -> Any:
        """``m`` fake users' reports (engine form) for ``attack``: "mga" (maximal gain: support as many of the
        sorted distinct ``targets`` as possible) or "rpa" (a uniformly random report). Options an oracle does not
        use are ignored. Not implemented here: ``NotImplementedError``."""
        raise NotImplementedError(f"data-poisoning attacks are not implemented for oracle {self.name!r}")

    def crafted_support(self, attack: str, r: int) -> float:
        """Σ_{t∈T} s_t in theory: how many of the ``r`` targets a ``craft``ed report supports on average."""
        raise NotImplementedError(f"data-poisoning attacks are not implemented for oracle {self.name!r}")


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

    def honest_moments(self) -> tuple[float, float, float]:
        """S = Σ_v b_v with independent Bernoulli b_v of probabilities p_i ∈ {p, q, …, q}: μ = Σ p_i,
        σ² = Σ p_i(1−p_i), κ₄ = Σ p_i(1−p_i)(1 − 6p_i(1−p_i)) (privacy/plausibility.py; exact only where the
        supports are independent, see ``honest_variance_exact``)."""
        probs = np.array([self.p] + [self.q] * (self.domain - 1))
        v = probs * (1 - probs)
        return float(probs.sum()), float(v.sum()), float((v * (1 - 6 * v)).sum())

    def estimate_sum(self, mean_total: float) -> float:
        """(S̄ − d·q)/(p − q) = Σ_v Ê_v / n."""
        return (mean_total - self.domain * self.q) / (self.p - self.q)

    def params(self) -> dict:
        return {**super().params(), "p": self.p, "q": self.q}
