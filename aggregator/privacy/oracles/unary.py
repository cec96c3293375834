"""Unary encoding: symmetric (SUE, basic RAPPOR) and optimal (OUE), SPEC §3.

Client: one-hot encode v over d bits; the own bit is sent as 1 with probability p, every other bit as 1 with
probability q. Report: the d bits PACKED, ``bits.pack`` layout (little-endian bit order, ``ceil(d/8)`` bytes,
padding bits beyond d zero); on the wire the base64 (standard alphabet, padded) of those bytes. Server: support
count c_v = number of reports with bit v set, counted on the packed bytes by ``bits.column_counts`` (reports are
never unpacked). A report supports the values of its set bits, randomized independently: the plausibility pair
check applies, and the count estimates are uncorrelated (``count_covariance``'s 0 off the diagonal is exact).

| protocol | p | q |
|---|---|---|
| SUE | e^{ε/2}/(e^{ε/2}+1) | 1/(e^{ε/2}+1) |
| OUE | 1/2 | 1/(e^ε+1) |

Both satisfy p(1−q)/((1−p)q) = e^ε (two reports' likelihoods differ in two bits). Estimator and variances are
``PureProtocol``'s.
"""
from __future__ import annotations

import base64
import binascii
import math
from fractions import Fraction

import numpy as np

from .. import bits
from ..browser_arithmetic import MIN_PROBABILITY, log_ratio, realized_bernoulli
from ..describe import Description
from ..stats import Counts
from .base import PureProtocol, check_values
from .wire import base64_schema, check_list

__all__ = ["UnaryEncoding", "SymmetricUnaryEncoding", "OptimizedUnaryEncoding"]

# Bound on the number of uniform draws held in memory at once by ``perturb`` (rows × d).
_PERTURB_CELLS = 1 << 22


class UnaryEncoding(PureProtocol):
    """Common client and server halves of SUE and OUE (they differ only in p and q)."""

    def perturb(self, values, rng: np.random.Generator) -> np.ndarray:
        """Packed reports, shape (n, ceil(d/8)) uint8.

        Randomness order (per block of rows; a single block unless n·d > 2²²): ``rng.random((rows, d)) < q`` for
        all bits, then ``rng.random(rows) < p`` for the own bit, which overwrites bit v.
        """
        values = check_values(values, self.domain)
        d, n = self.domain, values.shape[0]
        out = np.empty((n, bits.packed_width(d)), dtype=np.uint8)
        rows = max(1, _PERTURB_CELLS // d)
        p, q = self.p, self.q
        for start in range(0, n, rows):
            v = values[start:start + rows]
            m = v.shape[0]
            onebits = rng.random((m, d)) < q
            onebits[np.arange(m), v] = rng.random(m) < p
            out[start:start + m] = bits.pack(onebits.view(np.uint8))
        return out

    def validate(self, reports) -> np.ndarray:
        """uint8 array (n, ceil(d/8)) with zero padding bits; integer arrays in [0, 255] are accepted."""
        reports = np.asarray(reports)
        width = bits.packed_width(self.domain)
        if reports.ndim != 2 or reports.shape[1] != width:
            raise ValueError(f"{self.name.upper()} reports must have shape (n, {width}) (packed bits)")
        if reports.dtype != np.uint8:
            if not np.issubdtype(reports.dtype, np.integer):
                raise ValueError(f"{self.name.upper()} reports must be bytes (uint8), got dtype {reports.dtype}")
            if reports.size and (reports.min() < 0 or reports.max() > 255):
                raise ValueError(f"{self.name.upper()} report bytes must lie in [0, 255]")
            reports = reports.astype(np.uint8)
        spare = width * 8 - self.domain
        if spare and reports.shape[0]:
            padding = np.uint8((0xFF << (8 - spare)) & 0xFF)
            if np.any(reports[:, -1] & padding):
                raise ValueError(f"{self.name.upper()} reports have nonzero padding bits beyond domain {self.domain}")
        return reports

    def aggregate(self, reports) -> Counts:
        reports = self.validate(reports)
        return Counts(int(reports.shape[0]), bits.column_counts(reports, self.domain).astype(np.int64))

    def params(self) -> dict:
        return {**super().params(), "encoding": "packed-bits-le"}

    # -- wire codec --------------------------------------------------------------------------------
    def to_wire(self, reports) -> list:
        return [base64.b64encode(bytes(row)).decode("ascii") for row in np.asarray(reports, dtype=np.uint8)]

    def from_wire(self, values: list) -> np.ndarray:
        """``validate``'s array from the wire values, each row checked as it is decoded (``check_row``): a report
        POST holds one, and numpy's per-call cost on a one-row array was most of the check (bench/load)."""
        check_list(values)
        name, width = self.name.upper(), bits.packed_width(self.domain)
        rows = []
        for v in values:
            if not isinstance(v, str):
                raise ValueError(f"a {name} report is a base64 string of {width} bytes")
            try:
                raw = base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"a {name} report must be valid base64") from None
            if len(raw) != width:
                raise ValueError(f"a {name} report must decode to {width} bytes, got {len(raw)}")
            self.check_row(raw)
            rows.append(raw)
        return np.frombuffer(bytearray(b"".join(rows)), dtype=np.uint8).reshape(len(rows), width)

    def check_row(self, raw: bytes) -> None:
        """``validate``'s checks of one packed report of the right width: its padding bits beyond d are zero."""
        spare = 8 * len(raw) - self.domain
        if spare and raw[-1] & (0xFF << (8 - spare)) & 0xFF:
            raise ValueError(f"{self.name.upper()} reports have nonzero padding bits beyond domain {self.domain}")

    def wire_schema(self) -> dict:
        """Canonical base64 of ceil(d/8) bytes whose padding bits beyond d are zero (``wire.base64_pattern``)."""
        width = bits.packed_width(self.domain)
        return base64_schema(width, 8 * width - self.domain)

    # -- plausibility ------------------------------------------------------------------------------
    supports_pair_check = True

    def support_blocks(self, reports, rows: int):
        for start in range(0, reports.shape[0], rows):
            yield bits.unpack(reports[start:start + rows], self.domain)

    # -- browser arithmetic ------------------------------------------------------------------------
    @classmethod
    def realized_epsilon(cls, params: dict) -> float:
        """Every bit B(Q), the own bit B(P) (P, Q as the browser realizes them): two reports' likelihoods differ in
        bits v and v' only ⇒ ε = the largest log-ratio over their 4 patterns, ln(P(1−Q)/(Q(1−P)))."""
        P, Q = realized_bernoulli(params["p"]), realized_bernoulli(params["q"])
        best = 0.0
        for bv in (0, 1):
            for bw in (0, 1):
                under_v: Fraction = (P if bv else 1 - P) * (Q if bw else 1 - Q)
                under_w: Fraction = (Q if bv else 1 - Q) * (P if bw else 1 - P)
                if under_v > 0 or under_w > 0:
                    best = max(best, log_ratio(under_v, under_w), log_ratio(under_w, under_v))
        return best

    # -- data poisoning ----------------------------------------------------------------------------
    def craft(self, attack: str, targets: np.ndarray, m: int, rng: np.random.Generator, *, pad: bool = True,
              **options) -> np.ndarray:
        """MGA: every target bit set and, with ``pad`` (as the paper does against detection by the number of
        ones), l = round(p + (d−1)q − r) random non-target bits, so the report has the expected number of ones.
        RPA: every bit 1 with probability 1/2."""
        d, r = self.domain, targets.size
        if attack == "rpa":
            return bits.pack((rng.random((m, d)) < 0.5).astype(np.uint8))
        if attack != "mga":
            return super().craft(attack, targets, m, rng, **options)
        onebits = np.zeros((m, d), dtype=np.uint8)
        onebits[:, targets] = 1
        extra = max(0, int(round(self.p + (d - 1) * self.q - r))) if pad else 0
        others = np.setdiff1d(np.arange(d), targets)
        extra = min(extra, others.size)
        if extra:
            chosen = np.argsort(rng.random((m, others.size)), axis=1)[:, :extra]  # l distinct non-targets per report
            onebits[np.arange(m)[:, None], others[chosen]] = 1
        return bits.pack(onebits)

    def crafted_support(self, attack: str, r: int) -> float:
        """MGA r, RPA r/2."""
        if attack == "mga":
            return float(r)
        if attack == "rpa":
            return r / 2
        return super().crafted_support(attack, r)


class SymmetricUnaryEncoding(UnaryEncoding):
    name = "sue"
    label = "symmetric unary encoding"
    title = "SUE — symmetric unary encoding (basic RAPPOR)"
    description = Description(
        "sue", "SUE (symmetric unary encoding)",
        "A row of 0s and 1s, one per possible value: the answer's position is 1 with probability p and every other "
        "is 1 with probability q = 1 − p.", "", "SPEC §3",
        "One disguised answer per person: a row of 0s and 1s (SUE)")

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """q = 1/(e^{ε/2}+1) ≥ 2^-40 ⇒ ε ≤ 2·ln(2^40−1)."""
        return 2.0 * math.log(1.0 / MIN_PROBABILITY - 1.0)

    @property
    def p(self) -> float:
        half = math.exp(self.epsilon / 2)
        return half / (half + 1)

    @property
    def q(self) -> float:
        return 1.0 / (math.exp(self.epsilon / 2) + 1)


class OptimizedUnaryEncoding(UnaryEncoding):
    name = "oue"
    label = "optimal unary encoding"
    title = "OUE — optimized unary encoding"
    description = Description(
        "oue", "OUE (optimized unary encoding)",
        "Like SUE, but the answer's position is 1 with probability 1/2 and every other position with a smaller "
        "probability q: more accurate than SUE at the same ε.", "", "SPEC §3",
        "One disguised answer per person: a row of 0s and 1s, optimized (OUE)", plan_default=True)
    adaptive_rank = 3

    @classmethod
    def max_supported_epsilon(cls, domain: int | None = None) -> float:
        """q = 1/(e^ε+1) ≥ 2^-40 ⇒ ε ≤ ln(2^40−1) ≈ 27.73."""
        return math.log(1.0 / MIN_PROBABILITY - 1.0)

    @property
    def p(self) -> float:
        return 0.5

    @property
    def q(self) -> float:
        return 1.0 / (math.exp(self.epsilon) + 1)
