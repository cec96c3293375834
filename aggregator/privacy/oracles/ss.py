"""Subset selection (SS, ω-subset mechanism; Wang et al. 2016, Ye & Barg 2018), SPEC §3.

Client: the report is a subset S of [d] of fixed size ω. With probability p = ω·e^ε/(ω·e^ε + d − ω) it contains the
true value v and ω − 1 others drawn uniformly from the d − 1 other values; otherwise it is ω values drawn uniformly from
the d − 1 others. Every subset holding v then has probability p/C(d−1, ω−1), every other (1 − p)/C(d−1, ω): their
ratio is p(d − ω)/((1 − p)ω) = e^ε, so SS is ε-LDP (two subsets that both hold, or both miss, v and v' have equal
likelihoods under v and v').

Subset size ω (``optimal_subset_size``): the integer in [1, d − 1] of least mean exact variance over the domain
(below; equivalently least expected ℓ₂ error Σ_v Var(Ê_v), Ye & Barg's criterion, which does not depend on the data),
smallest on ties. It is round(d/(e^ε + 1)) or a neighbour, and 1 — where SS is DE exactly — once e^ε ≳ d.

Report: ω set bits of d, PACKED as SUE/OUE's (``bits.pack``: little-endian bit order, ceil(d/8) bytes, padding zero);
on the wire the base64 of those bytes. ``validate`` also requires exactly ω set bits (an honest report never has
another count; a forged one with more would support more values). Server: c_v = number of reports holding v
(``bits.column_counts`` on the packed bytes).

Estimator (pure protocol): P(v ∈ S) = p if v is the true value, else
    q = p·(ω−1)/(d−1) + (1−p)·ω/(d−1) = ω((ω−1)e^ε + d − ω) / ((d−1)(ω·e^ε + d − ω)),
so Ê_v = (c_v − n·q)/(p − q) is unbiased and, the reports being independent,
    Var(Ê_v) = n·q(1−q)/(p−q)² + c_v·(1−p−q)/(p−q)          (exact; ``PureProtocol.exact_variance``).
Σ_v b_v = ω for every report, so Σ_v Ê_v = n·(ω − d·q)/(p − q) = n exactly (p + (d−1)q = ω) and the estimates are
dependent: ``count_covariance`` gives their exact covariance, whose rows sum to 0. For ω = 1, p and q are DE's.

Randomness order (per block of rows; one block unless n·d > 2²²): ``rng.random(rows) < p`` (v kept in S), then for
i = 0, …, ω−1 ``rng.integers(i, d − 1, rows)``: step i of a Fisher–Yates shuffle of the others (t ↦ t + [t ≥ v],
t ∈ [0, d−1)), swapping positions i and j. S = the first ω − 1 shuffled others, plus v if kept, else the ω-th.
``integers`` is exactly uniform in the browser, so only p is quantised (``realized_epsilon``).
"""
from __future__ import annotations

import math

import numpy as np

from .. import bits
from ..browser_arithmetic import log_ratio, realized_bernoulli
from ..describe import Description
from .base import check_values
from .de import max_rr_epsilon
from .unary import UnaryEncoding

__all__ = ["SubsetSelection", "optimal_subset_size", "ss_probabilities", "set_bits_per_report"]

# Bound on the number of shuffle cells held in memory at once by ``perturb`` (rows × d; 2 MB of int16 shuffles stay
# in cache, which is faster than larger blocks).
_PERTURB_CELLS = 1 << 20
# ε is capped here when choosing ω only (ω = 1 long before, for any domain below e^48; avoids overflow).
_EPS_CAP = 50.0


def ss_probabilities(epsilon: float, domain: int, omega) -> tuple:
    """(p, q) of SS with subset size(s) ``omega`` (scalar or array) on ``domain`` values (module docstring), as
    float64 arrays (0-d for a scalar ω)."""
    e = math.exp(float(epsilon))
    d = int(domain)
    w = np.asarray(omega, dtype=np.float64)
    p = w * e / (w * e + d - w)
    q = w * ((w - 1) * e + d - w) / ((d - 1) * (w * e + d - w))
    return p, q


def optimal_subset_size(epsilon: float, domain: int) -> int:
    """ω in [1, d − 1] minimising the domain-mean exact variance per report, q(1−q)/(p−q)² + (1−p−q)/(d(p−q)),
    smallest on ties (module docstring)."""
    d = int(domain)
    if d < 2:
        raise ValueError("domain must have at least 2 values")
    omega = np.arange(1, d, dtype=np.float64)
    p, q = ss_probabilities(min(float(epsilon), _EPS_CAP), d, omega)
    gap = p - q
    mean_var = q * (1 - q) / gap**2 + (1 - p - q) / (d * gap)
    best = int(np.argmin(mean_var))
    # float ties (within 1e-12 relative) go to the smallest ω
    tied = np.flatnonzero(mean_var <= mean_var[best] * (1 + 1e-12))
    return int(omega[tied[0]])


def set_bits_per_report(packed: np.ndarray) -> np.ndarray:
    """Number of set bits of each packed report (int64), counted on the widest unsigned view the row width allows
    (a 2-byte report is one uint16 popcount)."""
    packed = np.ascontiguousarray(packed, dtype=np.uint8)
    width = packed.shape[1]
    view = packed
    for size, dtype in ((8, np.uint64), (4, np.uint32), (2, np.uint16)):
        if width % size == 0:
            view = packed.view(dtype)
            break
    pop = np.bitwise_count(view)
    if pop.shape[1] == 1:
        return pop[:, 0].astype(np.int64)
    return np.einsum("ij->i", pop, dtype=np.int64)


class SubsetSelection(UnaryEncoding):
    """SS: the wire form, packed layout, fold and codec are SUE/OUE's (``UnaryEncoding``); the client half, the
    validation (exactly ω bits), the covariance, the plausibility facts and the browser arithmetic are its own."""

    name = "ss"
    label = "subset selection"
    title = "SS — subset selection (ω-subset)"
    description = Description(
        "ss", "SS (subset selection)",
        "The report is a random set of ω of the possible values that contains the true answer with probability p; "
        "the rest of the set is picked at random.",
        "With ω = 1 it is the same as DE. The size ω is chosen for the least variance.", "SPEC §3",
        "One disguised answer per person: a random set holding the answer (SS)")
    adaptive_rank = 2

    def __init__(self, epsilon: float, domain: int):
        super().__init__(epsilon, domain)
        self.subset_size = optimal_subset_size(self.epsilon, self.domain)
        self._p, self._q = (float(x) for x in ss_probabilities(self.epsilon, self.domain, self.subset_size))

    def __repr__(self) -> str:
        return f"SubsetSelection(epsilon={self.epsilon:g}, domain={self.domain}, subset_size={self.subset_size})"

    @property
    def p(self) -> float:
        """P(v ∈ S) for the respondent's own value v: ω·e^ε/(ω·e^ε + d − ω)."""
        return self._p

    @property
    def q(self) -> float:
        """P(u ∈ S) for any other value u: ω((ω−1)e^ε + d − ω)/((d−1)(ω·e^ε + d − ω))."""
        return self._q

    # -- client half ---------------------------------------------------------------------------------
    def perturb(self, values, rng: np.random.Generator) -> np.ndarray:
        """Packed reports, shape (n, ceil(d/8)) uint8, ω bits set in each (randomness order: module docstring)."""
        values = check_values(values, self.domain)
        d, n, k = self.domain, values.shape[0], self.subset_size
        out = np.empty((n, bits.packed_width(d)), dtype=np.uint8)
        rows = max(1, _PERTURB_CELLS // d)
        dtype = np.int16 if d <= (1 << 15) else np.int64
        for start in range(0, n, rows):
            v = values[start:start + rows]
            m = v.shape[0]
            keep = rng.random(m) < self.p
            # Fisher–Yates on the d − 1 others, first ω steps only; the flat view makes each swap two gathers.
            shuffled = np.tile(np.arange(d - 1, dtype=dtype), m)
            base = np.arange(m, dtype=np.int64) * (d - 1)
            for i in range(k):
                j = base + rng.integers(i, d - 1, size=m)
                here = base + i
                moved = shuffled[j]
                shuffled[j] = shuffled[here]
                shuffled[here] = moved
            picks = shuffled.reshape(m, d - 1)[:, :k].astype(np.int64)
            picks += picks >= v[:, None]                      # index among the others → value
            picks[:, k - 1] = np.where(keep, v, picks[:, k - 1])
            onebits = np.zeros((m, d), dtype=np.uint8)
            onebits[np.arange(m)[:, None], picks] = 1
            out[start:start + m] = bits.pack(onebits)
        return out

    # -- server half ---------------------------------------------------------------------------------
    def validate(self, reports) -> np.ndarray:
        """SUE/OUE's checks (shape, bytes, zero padding), then exactly ω set bits per report."""
        reports = super().validate(reports)
        if reports.shape[0]:
            if np.any(set_bits_per_report(reports) != self.subset_size):
                raise ValueError(f"SS reports must have exactly {self.subset_size} of their {self.domain} bits set")
        return reports

    def check_row(self, raw: bytes) -> None:
        """``validate``'s checks of one packed report: zero padding, exactly ω set bits."""
        super().check_row(raw)
        if int.from_bytes(raw, "little").bit_count() != self.subset_size:
            raise ValueError(f"SS reports must have exactly {self.subset_size} of their {self.domain} bits set")

    def params(self) -> dict:
        return {**super().params(), "subset_size": self.subset_size}

    def count_covariance(self, n: int, counts) -> np.ndarray:
        """Exact. Per report of true value w and u ≠ v: P(u, v ∈ S) = p(ω−1)/(d−1) if w ∈ {u, v}, else
        r = (p(ω−1)(ω−2) + (1−p)ω(ω−1))/((d−1)(d−2)); so Cov(c_u, c_v) = (n − c_u − c_v)(r − q²) +
        (c_u + c_v)(p(ω−1)/(d−1) − pq), divided by (p − q)². ω = 1 gives DE's."""
        counts = np.asarray(counts, dtype=np.float64)
        cov = super().count_covariance(n, counts)
        p, q, d, k = self.p, self.q, self.domain, self.subset_size
        r = (p * (k - 1) * (k - 2) + (1 - p) * k * (k - 1)) / ((d - 1) * (d - 2)) if d > 2 else 0.0
        own = p * (k - 1) / (d - 1)
        pair = counts[:, None] + counts[None, :]
        off = ((n - pair) * (r - q * q) + pair * (own - p * q)) / (p - q) ** 2
        np.fill_diagonal(off, 0.0)
        return cov + off

    # -- plausibility: S ≡ ω, so neither mass nor spread says anything (validate enforces it), and the supports
    # of two values are dependent (a fixed number of them): no pair check. Only the range check applies, as for DE.
    supports_pair_check = False

    def report_totals(self, reports) -> np.ndarray:
        return np.full(np.asarray(reports).shape[0], self.subset_size, dtype=np.int64)

    def honest_moments(self) -> tuple[float, float, float]:
        """S ≡ ω: (ω, 0, 0)."""
        return float(self.subset_size), 0.0, 0.0

    # -- browser arithmetic ------------------------------------------------------------------------------
    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        """v kept w.p. P = ⌈p·2^53⌉/2^53, the rest of S exactly uniform (``integers``): a subset holding v but not v'
        has likelihood P/C(d−1, ω−1) under v and (1−P)/C(d−1, ω) under v' ⇒ ε = |ln(P(d−ω)/((1−P)ω))|."""
        P = realized_bernoulli(params["p"])
        d, k = int(params["domain"]), int(params["subset_size"])
        if k >= d:
            return 0.0
        return max(log_ratio(P * (d - k), (1 - P) * k), log_ratio((1 - P) * k, P * (d - k)))

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """The only draw with a tunable probability is "keep v" (p; 1 − p = (d−ω)/(ω·e^ε + d − ω)). Near the bound
        ω = 1 and SS is DE, so the bound is DE's, ln((d−1)(2^40−1)) (tests check ω = 1 there and 1 − p ≥ 2^-40
        below it)."""
        if domain is None or int(domain) < 2:
            raise ValueError("SS's bound needs its domain size (≥ 2)")
        return max_rr_epsilon(int(domain))

    # -- data poisoning --------------------------------------------------------------------------------------
    def craft(self, attack: str, targets: np.ndarray, m: int, rng: np.random.Generator, **options) -> np.ndarray:
        """Valid reports (ω bits). MGA: min(r, ω) targets (a random choice of them when r > ω) and random
        non-targets for the rest. RPA: a uniformly random ω-subset."""
        d, k = self.domain, self.subset_size
        targets = np.unique(np.asarray(targets, dtype=np.int64))
        if attack == "rpa":
            chosen = np.argsort(rng.random((m, d)), axis=1)[:, :k]
        elif attack == "mga":
            t = min(k, targets.size)
            others = np.setdiff1d(np.arange(d), targets)
            pick_t = targets[np.argsort(rng.random((m, targets.size)), axis=1)[:, :t]]
            pick_o = others[np.argsort(rng.random((m, others.size)), axis=1)[:, :k - t]]
            chosen = np.concatenate([pick_t, pick_o], axis=1)
        else:
            return super().craft(attack, targets, m, rng, **options)
        onebits = np.zeros((m, d), dtype=np.uint8)
        onebits[np.arange(m)[:, None], chosen] = 1
        return bits.pack(onebits)

    def crafted_support(self, attack: str, r: int) -> float:
        """MGA min(r, ω), RPA r·ω/d."""
        if attack == "mga":
            return float(min(r, self.subset_size))
        if attack == "rpa":
            return r * self.subset_size / self.domain
        return super().crafted_support(attack, r)
