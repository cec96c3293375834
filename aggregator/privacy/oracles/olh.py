"""Optimized local hashing (OLH, Wang et al. 2017), SPEC §3.

Client: draw a hash h_{a,b}(v) = ((a·v + b) mod P) mod g with P = 2³¹ − 1, a uniform in [1, P−1] and b uniform
in [0, P−1] (per report), then run DE over [g] on h(v): keep it with probability p = e^ε/(e^ε+g−1), otherwise
send one of the other g−1 buckets uniformly. g = max(2, round(e^ε + 1)), rounding halves up (JavaScript's
``Math.round``), capped at P. Report: the triple (a, b, y) of int64 arrays.

Server: a report supports every v with h_{a,b}(v) = y, so c_v = #{reports: h(v) = y}. For a respondent with
value u ≠ v, (a·u+b, a·v+b) mod P is uniform over distinct pairs, so P(h(u) = h(v)) = 1/g up to O(1/P) and
P(support v) = p/g + (1−p)/g = 1/g =: q. OLH is then pure with (p, q) and uses ``PureProtocol``'s estimator and
variances (the O(1/P) ≈ 5·10⁻¹⁰ deviation of the hash family is ignored).

The browser must compute a·v + b exactly (≤ 2⁶²: BigInt, or split a into 16-bit halves). On the wire a report is
[a, b, y], three JSON integers.

Covariance of the count estimates (``count_covariance``), per report of true value w and u ≠ v, with
b_x = 1[h(x) = y], q' = (1 − p)/(g − 1): if w ∈ {u, v}, Cov(b_u, b_v) = 0 (pairwise uniformity, up to O(1/P));
otherwise Cov(b_u, b_v) = (p − q')·(T_wuv − 1/g²), T_wuv = P(h(w) = h(u) = h(v)) being the family's three-way
collision probability. Pairwise independence does not fix T_wuv (a 3-wise independent family would give 1/g² and
a zero covariance); for h_{a,b} it depends on the values through (v − w)/(u − w) mod P, and is far from 1/g² for
small values: T·g² ≈ 2.0 for {0, 1, 2} and 1.34 for {0, 1, 3} at g = 4, 10.6 for {0, 1, 2} at g = 21, 1.0 for
{2, 5, 17} at g = 4 (2·10⁶ hash draws each). So the off-diagonal is taken as 0 — an approximation, like the honest
spread of plausibility's report totals (``honest_variance_exact``).
"""
from __future__ import annotations

import math

import numpy as np

from ..describe import Description
from ..stats import Counts
from .base import PureProtocol, check_values
from .de import max_rr_epsilon, realized_rr_epsilon
from .wire import check_list, integer_schema, is_int, tuple_schema

__all__ = ["OptimizedLocalHashing", "PRIME", "olh_hash", "olh_buckets"]

PRIME = (1 << 31) - 1
# Reports folded per block in ``aggregate`` (the block's running hash values are kept as uint32).
_BLOCK = 65536
#: Fake users crafted per block by the MGA seed search (tries × r hashes each; ``craft``).
_CRAFT_BLOCK = 512


def olh_buckets(epsilon: float) -> int:
    """g = max(2, round(e^ε + 1)), halves rounded up; capped at P (reached for ε ≳ 21.5, where hashing mod P
    already spreads values over P buckets)."""
    return max(2, min(PRIME, int(math.floor(math.exp(min(epsilon, 50.0)) + 1.5))))


def olh_hash(a, b, values, g: int) -> np.ndarray:
    """h_{a,b}(v) = ((a·v + b) mod P) mod g, elementwise (broadcasting) in int64. The single definition of the hash."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    return ((a * values + b) % PRIME) % g


class OptimizedLocalHashing(PureProtocol):
    name = "olh"
    label = "optimized local hashing"
    title = "OLH — optimized local hashing"
    description = Description(
        "olh", "OLH (optimized local hashing)",
        "The browser picks a random hash function that sorts the possible values into g buckets and sends the "
        "answer's bucket with probability p (otherwise another bucket).",
        "Small reports even when an answer has many possible values.", "SPEC §3",
        "One disguised answer per person: a random hash bucket (OLH)", plan_default=True)
    adaptive_rank = 1

    def __init__(self, epsilon: float, domain: int):
        super().__init__(epsilon, domain)
        if self.domain >= PRIME:
            raise ValueError(f"domain must be smaller than the hash prime {PRIME}")
        self.g = olh_buckets(self.epsilon)

    @property
    def p(self) -> float:
        """Probability that y = h(v): DE over [g]."""
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.g - 1)

    @property
    def q(self) -> float:
        """Probability that a report supports a value other than the respondent's: 1/g."""
        return 1.0 / self.g

    def perturb(self, values, rng: np.random.Generator):
        """(a, b, y). Randomness order: a = ``rng.integers(1, P, n)``, b = ``rng.integers(0, P, n)``,
        keep = ``rng.random(n) < p``, other = ``rng.integers(0, g−1, n)`` (skipping over h(v))."""
        values = check_values(values, self.domain)
        n = values.shape[0]
        a = rng.integers(1, PRIME, size=n, dtype=np.int64)
        b = rng.integers(0, PRIME, size=n, dtype=np.int64)
        hashed = olh_hash(a, b, values, self.g)
        keep = rng.random(n) < self.p
        other = rng.integers(0, self.g - 1, size=n, dtype=np.int64)
        other = other + (other >= hashed)
        return a, b, np.where(keep, hashed, other)

    def validate(self, reports):
        try:
            a, b, y = reports
        except (TypeError, ValueError):
            raise ValueError("OLH reports must be a triple (a, b, y) of integer arrays") from None
        arrays = []
        for label, arr, low, high in (("a", a, 1, PRIME), ("b", b, 0, PRIME), ("y", y, 0, self.g)):
            arr = np.asarray(arr)
            if arr.ndim != 1:
                raise ValueError(f"OLH report component {label} must be a 1-d array")
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"OLH report component {label} must be integers")
            arr = arr.astype(np.int64, copy=False)
            if arr.size and (arr.min() < low or arr.max() >= high):
                raise ValueError(f"OLH report component {label} must lie in [{low}, {high})")
            arrays.append(arr)
        if not arrays[0].shape == arrays[1].shape == arrays[2].shape:
            raise ValueError("OLH report components a, b, y must have the same length")
        return tuple(arrays)

    def aggregate(self, reports) -> Counts:
        """c_v = #{reports: h_{a,b}(v) = y}, in O(n·d) time and O(block) memory.

        Equivalent to comparing ``olh_hash(a, b, v, g)`` with y for every v (the tests check it), computed
        incrementally: x_v = (a·v + b) mod P satisfies x_{v+1} = (x_v + a) mod P, kept in uint32, and
        x mod g = x − (x // g)·g (division by a scalar is fast in numpy, ``%`` is not).
        """
        a, b, y = self.validate(reports)
        n, g, d = a.shape[0], self.g, self.domain
        support = np.zeros(d, dtype=np.int64)
        prime, gg = np.uint32(PRIME), np.uint32(g)
        for start in range(0, n, _BLOCK):
            aa = a[start:start + _BLOCK].astype(np.uint32)
            x = b[start:start + _BLOCK].astype(np.uint32)
            yy = y[start:start + _BLOCK].astype(np.uint32)
            m = x.shape[0]
            quot = np.empty(m, dtype=np.uint32)
            wrapped = np.empty(m, dtype=np.uint32)
            hit = np.empty(m, dtype=bool)
            for v in range(d):
                np.floor_divide(x, gg, out=quot)
                np.multiply(quot, gg, out=quot)
                np.add(quot, yy, out=quot)           # x ≡ y (mod g)  ⇔  x == (x // g)·g + y, as y < g
                np.equal(x, quot, out=hit)
                support[v] += np.count_nonzero(hit)
                np.add(x, aa, out=x)                 # < 2³², no overflow
                np.subtract(x, prime, out=wrapped)   # wraps to a huge value when x < P
                np.minimum(x, wrapped, out=x)        # (x + a) mod P
        return Counts(int(n), support)

    def params(self) -> dict:
        return {**super().params(), "g": self.g, "prime": PRIME}

    def count_covariance(self, n: int, counts) -> np.ndarray:
        """Diagonal ``exact_variance``; off-diagonal 0 — approximate: the three-way collisions of the hash family
        correlate the supports of two values neither of which is the respondent's (module docstring)."""
        return super().count_covariance(n, counts)

    # -- wire codec --------------------------------------------------------------------------------
    def to_wire(self, reports) -> list:
        a, b, y = reports
        return [[int(x), int(z), int(w)] for x, z, w in zip(a, b, y, strict=False)]

    def from_wire(self, values: list):
        check_list(values)
        if not all(isinstance(v, list) and len(v) == 3 and all(is_int(x) for x in v) for v in values):
            raise ValueError("an OLH report is [a, b, y] with three integers")
        arr = np.asarray(values, dtype=np.int64).reshape(len(values), 3)
        return self.validate((arr[:, 0], arr[:, 1], arr[:, 2]))

    def wire_schema(self) -> dict:
        """[a, b, y]: a in [1, P), b in [0, P), y in [0, g) (``validate``'s ranges)."""
        return tuple_schema([integer_schema(1, PRIME - 1), integer_schema(0, PRIME - 1), integer_schema(0, self.g - 1)])

    # -- plausibility: supports of three values are correlated (hashing is only pairwise independent), so
    # honest_moments' σ² and κ₄ are not exact and no pairs are checked (privacy/plausibility.py).
    honest_variance_exact = False

    def support_blocks(self, reports, rows: int):
        a, b, y = reports
        values = np.arange(self.domain)
        for start in range(0, a.shape[0], rows):
            s = slice(start, start + rows)
            yield (olh_hash(a[s, None], b[s, None], values[None, :], self.g) == y[s, None]).astype(np.uint8)

    # -- browser arithmetic ------------------------------------------------------------------------
    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        """(a, b) uniform and public, then DE over [g] on h(v) ⇒ ε = ln(P(g−1)/(1−P)) (a pair with h(v) ≠ h(v')
        exists for g ≥ 2)."""
        return realized_rr_epsilon(params["p"], params["g"])

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """g = min(2^31−1, ⌊e^ε+1.5⌋) ⇒ ln((2^31−2)(2^40−1)) ≈ 49.2."""
        return max_rr_epsilon(PRIME)

    # -- data poisoning ----------------------------------------------------------------------------
    def craft(self, attack: str, targets: np.ndarray, m: int, rng: np.random.Generator, *, seed_tries: int = 1000,
              **options):
        """MGA: per fake user, of ``seed_tries`` random seeds (a, b) the one whose hash puts most targets in one
        bucket, and y = that bucket. RPA: a random seed and bucket."""
        g = self.g
        if attack == "rpa":
            return rng.integers(1, PRIME, size=m), rng.integers(0, PRIME, size=m), rng.integers(0, g, size=m)
        if attack != "mga":
            return super().craft(attack, targets, m, rng, **options)
        a_out, b_out, y_out = (np.empty(m, dtype=np.int64) for _ in range(3))
        for start in range(0, m, _CRAFT_BLOCK):
            k = min(_CRAFT_BLOCK, m - start)
            a = rng.integers(1, PRIME, size=(k, seed_tries), dtype=np.int64)
            b = rng.integers(0, PRIME, size=(k, seed_tries), dtype=np.int64)
            h = olh_hash(a[..., None], b[..., None], targets[None, None, :], g)          # (k, tries, r)
            together = (h[..., :, None] == h[..., None, :]).sum(axis=-1)                 # targets sharing each bucket
            best_target = together.argmax(axis=-1)                                       # (k, tries)
            best_count = np.take_along_axis(together, best_target[..., None], axis=-1)[..., 0]
            seed = best_count.argmax(axis=1)                                             # first seed with the most
            rows = np.arange(k)
            a_out[start:start + k] = a[rows, seed]
            b_out[start:start + k] = b[rows, seed]
            y_out[start:start + k] = h[rows, seed, best_target[rows, seed]]
        return a_out, b_out, y_out

    def crafted_support(self, attack: str, r: int) -> float:
        """MGA r (a seed mapping every target to one bucket was found), RPA r/g."""
        if attack == "mga":
            return float(r)
        if attack == "rpa":
            return r / self.g
        return super().crafted_support(attack, r)
