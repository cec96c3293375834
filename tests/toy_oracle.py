"""The throwaway frequency oracle of tests/engine/test_adding_an_oracle.py and
tests/dashboard/test_adding_a_mechanism.py: uniform-mix randomized response (URR) — keep the true value with
probability λ = (e^ε − 1)/(e^ε + d − 1), else send a value drawn uniformly from all d; DE's channel, drawn
differently, with its own wire form {"v": value}. Registered by the tests that use it, never by the product."""
from __future__ import annotations

import math

import numpy as np

from aggregator.privacy.browser_arithmetic import MIN_PROBABILITY, log_ratio, realized_bernoulli
from aggregator.privacy.oracles import wire
from aggregator.privacy.oracles.base import PureProtocol, check_values
from aggregator.privacy.stats import Counts


class UniformMixRR(PureProtocol):
    """Uniform-mix randomized response (module docstring). Draws per report: random() < λ, then integers(0, d)."""

    name = "urr"
    label = "uniform-mix randomized response (a test's throwaway)"
    title = "URR — uniform-mix randomized response"

    @property
    def lam(self) -> float:
        e = math.exp(self.epsilon)
        return (e - 1) / (e + self.domain - 1)

    @property
    def p(self) -> float:
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.domain - 1)

    @property
    def q(self) -> float:
        return 1.0 / (math.exp(self.epsilon) + self.domain - 1)

    def perturb(self, values, rng):
        values = check_values(values, self.domain)
        keep = rng.random(values.shape[0]) < self.lam
        uniform = rng.integers(0, self.domain, size=values.shape[0])
        return np.where(keep, values, uniform)

    def validate(self, reports):
        reports = np.asarray(reports)
        if reports.ndim != 1:
            raise ValueError("URR reports must be a 1-d array of integers")
        return check_values(reports, self.domain)

    def aggregate(self, reports) -> Counts:
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), np.bincount(reports, minlength=self.domain).astype(np.int64))

    def params(self) -> dict:
        return {**super().params(), "lambda": self.lam}

    def count_covariance(self, n, counts):
        """One support per report: Cov(1[r = u], 1[r = v]) = −π_u π_v, as DE's."""
        counts = np.asarray(counts, dtype=np.float64)
        p, q = self.p, self.q
        off = -(n * q * q + (counts[:, None] + counts[None, :]) * q * (p - q)) / (p - q) ** 2
        np.fill_diagonal(off, 0.0)
        return super().count_covariance(n, counts) + off

    def to_wire(self, reports) -> list:
        return [{"v": int(v)} for v in np.asarray(reports)]

    def from_wire(self, values: list):
        wire.check_list(values)
        if not all(isinstance(v, dict) and set(v) == {"v"} and wire.is_int(v["v"]) for v in values):
            raise ValueError(f'a URR report is {{"v": <an integer in [0, {self.domain})>}}')
        return self.validate(np.asarray([v["v"] for v in values], dtype=np.int64))

    def support_blocks(self, reports, rows):
        for start in range(0, reports.shape[0], rows):
            block = reports[start:start + rows]
            out = np.zeros((block.shape[0], self.domain), dtype=np.uint8)
            out[np.arange(block.shape[0]), block] = 1
            yield out

    def honest_moments(self):
        return 1.0, 0.0, 0.0

    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        """Λ = ⌈λ·2^53⌉/2^53, integers() exactly uniform: P = Λ + (1 − Λ)/d, Q = (1 − Λ)/d, ε = ln(P/Q)."""
        lam = realized_bernoulli(params["lambda"])
        q = (1 - lam) / int(params["domain"])
        return log_ratio(lam + q, q)

    @classmethod
    def max_supported_epsilon(cls, domain=None) -> float:
        """1 − λ = d/(e^ε + d − 1) ≥ 2^-40 ⇒ ε ≤ ln(d(2^40 − 1) + 1)."""
        if domain is None:
            raise ValueError("URR's bound needs its domain size")
        return math.log(int(domain) * (1 / MIN_PROBABILITY - 1) + 1)

    def craft(self, attack, targets, m, rng, **options):
        if attack == "mga":
            return rng.choice(targets, size=m)
        if attack == "rpa":
            return rng.integers(0, self.domain, size=m)
        return super().craft(attack, targets, m, rng, **options)

    def crafted_support(self, attack, r):
        return {"mga": 1.0, "rpa": r / self.domain}[attack]
