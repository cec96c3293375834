"""Direct encoding (DE, k-ary randomized response), SPEC §3.

Client: keep the true value with probability p = e^ε/(e^ε+d−1), otherwise send one of the other d−1 values
uniformly. Report: one integer in [0, d), on the wire a JSON integer. Server: support count = histogram of reports.
A report supports exactly its value: its total S ≡ 1 (no mass or spread check, no pairs), and the count estimates
are negatively correlated (``count_covariance``).
"""
from __future__ import annotations

import math

import numpy as np

from ..browser_arithmetic import MIN_PROBABILITY, log_ratio, realized_bernoulli
from ..describe import Description
from ..stats import Counts
from .base import PureProtocol, check_values
from .wire import check_list, integer_schema, is_int

__all__ = ["DirectEncoding", "realized_rr_epsilon", "max_rr_epsilon"]


def realized_rr_epsilon(p: float, k: int) -> float:
    """Exact ε of k-ary randomized response as the browser runs it: keep w.p. P = ⌈p·2^53⌉/2^53, else one of the
    k − 1 others uniformly ⇒ ε = ln(P(k−1)/(1−P)) (SPEC §2 "Exact ε"; DE, and OLH over its g buckets)."""
    P = realized_bernoulli(p)
    others = int(k) - 1
    if others < 1:
        return 0.0
    return max(log_ratio(P * others, 1 - P), log_ratio(1 - P, P * others))


def max_rr_epsilon(k: int) -> float:
    """k-ary randomized response: (k−1)/(e^ε+k−1) ≥ 2^-40 ⇒ ε ≤ ln((k−1)(2^40−1)) (``browser_arithmetic``)."""
    return math.log((int(k) - 1) * (1.0 / MIN_PROBABILITY - 1.0))


class DirectEncoding(PureProtocol):
    name = "de"
    label = "direct encoding"
    title = "DE — direct encoding (k-ary randomized response)"
    description = Description(
        "de", "DE (direct encoding)",
        "The answer itself is sent with probability p; otherwise one of the other possible values, picked at random.",
        "Small reports; accurate when an answer has few possible values.", "SPEC §3",
        "One disguised answer per person: the value itself, sometimes swapped (DE)")
    adaptive_rank = 0

    @property
    def p(self) -> float:
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.domain - 1)

    @property
    def q(self) -> float:
        return 1.0 / (math.exp(self.epsilon) + self.domain - 1)

    def channel(self) -> np.ndarray:
        """The d×d channel: p on the diagonal, q elsewhere (SPEC §3)."""
        channel = np.full((self.domain, self.domain), self.q, dtype=np.float64)
        np.fill_diagonal(channel, self.p)
        return channel

    def perturb(self, values, rng: np.random.Generator) -> np.ndarray:
        values = check_values(values, self.domain)
        keep = rng.random(values.shape[0]) < self.p
        # Another value uniformly: draw from d−1 values and skip over the true one.
        other = rng.integers(0, self.domain - 1, size=values.shape[0])
        other = other + (other >= values)
        return np.where(keep, values, other)

    def validate(self, reports) -> np.ndarray:
        reports = np.asarray(reports)
        if reports.ndim != 1:
            raise ValueError("DE reports must be a 1-d array of integers")
        return check_values(reports, self.domain)

    def aggregate(self, reports) -> Counts:
        """Histogram of the reports. Signed-integer arrays take a fast path: one ``max`` pass (so ``bincount``
        never sizes its output from a hostile value) and ``bincount``, which itself rejects negative values;
        anything else goes through ``validate``."""
        reports = np.asarray(reports)
        if reports.ndim == 1 and reports.dtype.kind == "i" and reports.size and reports.max() < self.domain:
            try:
                support = np.bincount(reports, minlength=self.domain)
            except ValueError:  # a negative value: let validate explain
                support = None
            if support is not None:
                return Counts(int(reports.shape[0]), support.astype(np.int64, copy=False))
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), np.bincount(reports, minlength=self.domain).astype(np.int64))

    def count_covariance(self, n: int, counts) -> np.ndarray:
        """A report supports exactly one value, so per report Cov(1[r = u], 1[r = v]) = −π_u π_v (u ≠ v), which
        sums to −(n·q² + (c_u + c_v)·q·(p − q)), divided by (p − q)²; the diagonal is ``exact_variance``."""
        counts = np.asarray(counts, dtype=np.float64)
        cov = super().count_covariance(n, counts)
        p, q = self.p, self.q
        off = -(n * q * q + (counts[:, None] + counts[None, :]) * q * (p - q)) / (p - q) ** 2
        np.fill_diagonal(off, 0.0)
        return cov + off

    # -- wire codec --------------------------------------------------------------------------------
    def to_wire(self, reports) -> list:
        return [int(v) for v in np.asarray(reports)]

    def from_wire(self, values: list) -> np.ndarray:
        check_list(values)
        if not all(is_int(v) for v in values):
            raise ValueError(f"a DE report is an integer in [0, {self.domain})")
        return self.validate(np.asarray(values, dtype=np.int64))

    def wire_schema(self) -> dict:
        """An integer in [0, d)."""
        return integer_schema(0, self.domain - 1)

    # -- plausibility ------------------------------------------------------------------------------
    def support_blocks(self, reports, rows: int):
        for start in range(0, reports.shape[0], rows):
            block = reports[start:start + rows]
            out = np.zeros((block.shape[0], self.domain), dtype=np.uint8)
            out[np.arange(block.shape[0]), block] = 1
            yield out

    def report_totals(self, reports) -> np.ndarray:
        return np.ones(np.asarray(reports).shape[0], dtype=np.int64)

    def honest_moments(self) -> tuple[float, float, float]:
        """S ≡ 1: (1, 0, 0)."""
        return 1.0, 0.0, 0.0

    # -- browser arithmetic ------------------------------------------------------------------------
    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        return realized_rr_epsilon(params["p"], params["domain"])

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        if domain is None or int(domain) < 2:
            raise ValueError("DE's bound needs its domain size (≥ 2)")
        return max_rr_epsilon(int(domain))

    # -- data poisoning ----------------------------------------------------------------------------
    def craft(self, attack: str, targets: np.ndarray, m: int, rng: np.random.Generator, **options) -> np.ndarray:
        """MGA: a random target; RPA: a uniformly random value."""
        if attack == "mga":
            return rng.choice(targets, size=m)
        if attack == "rpa":
            return rng.integers(0, self.domain, size=m)
        return super().craft(attack, targets, m, rng, **options)

    def crafted_support(self, attack: str, r: int) -> float:
        """MGA 1, RPA r/d."""
        if attack == "mga":
            return 1.0
        if attack == "rpa":
            return r / self.domain
        return super().crafted_support(attack, r)
