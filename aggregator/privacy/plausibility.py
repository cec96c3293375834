"""Per-report plausibility statistics: signs of fake users in the reports themselves (issue 5; data poisoning after
Cao, Jia & Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols", USENIX Security 2021).

Fake users send crafted *perturbed* reports: the maximal gain attack (MGA) supports every target value in each fake
report (``aggregator.lab.poisoning``). Honest reports of a pure protocol (SPEC §3) have a known distribution whatever
the true values, so crafted ones show. Everything here is additive — ``ReportSums`` of disjoint shards add with
``+`` — so the statistics fold with the reports and cost O(d²) to store per oracle input (O(d) without pairs).

Per report r, let b_r ∈ {0, 1}^d be the set of values it supports (SUE/OUE: its bits; THE: components above the
threshold; OLH: the v with h_{a,b}(v) = y; DE: the reported value) and S_r = Σ_v b_rv its *total* (SHE: the sum of
its components). For an honest respondent with any true value w, the b_rv of SUE/OUE/THE are independent Bernoulli
with probability p (v = w) or q (v ≠ w), and SHE's components are the one-hot vector plus independent grid Laplace
noise N (``privacy.noise``). Hence S has a mean, variance and fourth cumulant independent of the data
(``honest_moments``):

* support protocols: μ = p + (d−1)q, σ² = Σ_i p_i(1−p_i), κ₄ = Σ_i p_i(1−p_i)(1 − 6p_i(1−p_i)) over p_i ∈ {p, q, …, q};
* SHE: μ = 1, σ² = d·Var(N), κ₄ = d·κ₄(N) with κ₄(N) = γ⁴·2α(1+4α+α²)/(1−α)⁴, α = e^(−γ/b) (N is γ times the
  difference of two geometric variables, whose cumulants add).

OLH's hash family h_{a,b}(v) = ((av + b) mod P) mod g is only *pairwise* independent: E[S] = p + (d−1)/g holds (up
to O(1/P)), but collisions of three values are correlated — the honest variance of S is 1.1× (d = 6, ε = 1) to
2.0× (d = 24, ε = 3) the independent formula, measured on 200,000 reports. So OLH gets the mass check only, with the
sample variance in its standard error.

Checks (``check``), each a z-score; a finding is a ``warning`` beyond ``monitoring.Z_WARN`` = 4 standard errors:

* ``mass`` — the mean total S̄ = Σ_v c_v / n against μ, z = (S̄ − μ)/√(σ²/n). Equivalently the sum of the frequency
  estimates, Σ_v f̂_v = (S̄ − dq)/(p − q) (SHE: S̄), which is 1 for honest data. MGA reports support r targets, so
  the mass grows by β(r(1 − q)/(p − q) − 1) (the paper's overall gain, minus the β the fakes take from the rest).
  Two-sided; false alarms 2Φ(−4) ≈ 6.3·10⁻⁵ per check. (OLH: standard error from the sample variance of S.)
* ``spread`` — the sample variance s² of S against σ², z = (s² − σ²)/√((κ₄ + 2σ⁴)/n) (the asymptotic variance of a
  sample variance). Catches MGA that pads reports with random bits to the *expected* number of ones (every fake
  report then has the same total, so s² ≈ (1 − β)σ²). Two-sided, 6.3·10⁻⁵.
* ``pairs`` (SUE/OUE/THE, d ≤ ``MAX_PAIR_DOMAIN``) — the additive form of the paper's frequent-itemset
  countermeasure, for pairs of values: D_uv = Σ_r (b_ru − q)(b_rv − q) = C_uv − q(c_u + c_v) + nq² from the
  co-occurrence counts C_uv. For an honest report with true value w, b_ru and b_rv are independent and one of them
  has mean q, so E[D_uv] = 0 *for any data*; Var(D_uv) = n(q(1−q))² + (c̃_u + c̃_v)·q(1−q)·(p(1−p) + (p−q)² − q(1−q)),
  c̃ = n·f̂ clipped to [0, n]. MGA with r ≥ 2 targets adds (1 − q)² per fake report to every target pair. One-sided,
  Bonferroni over the d(d−1)/2 pairs: false alarms ≤ 6.3·10⁻⁵ per input.
* ``range`` — frequency estimates f̂_v = Ê_v / n outside [0, 1] by more than ``Z_WARN`` standard errors (the
  oracle's exact variance at the clipped estimate), per input — ``monitoring.out_of_range`` for the model's
  parameters. This is the check that sees MGA on DE: every non-target's estimate drops by β/(e^ε − 1), so values of
  frequency 0 sit at z ≈ −β√(n/(e^ε + d − 2)). Per entry, one-sided: Φ(−4) ≈ 3.2·10⁻⁵.

Survey-level, for one-report LDP surveys: ``assignment`` — each respondent's input is drawn from the published
probabilities a_j (SPEC §4), so the reports per input are multinomial: z_j = (n_j − N·a_j)/√(N·a_j(1 − a_j)).
Fake users who all report the attacked input inflate its share by β(1 − a_j). One-sided (fakes add reports), the
most over-represented input; false alarms ≤ (m + 1)·Φ(−4).

The mass, spread and pair checks need ``MIN_REPORTS`` reports of the input (normal approximations). DE reports have
S ≡ 1 and no pairs: only ``range`` applies; OLH: mass and range. An attacker who knows these checks can still evade mass and spread (by
drawing the padding count from the honest distribution) and pairs (one target per report); the range check and the
jumps between versions (``monitoring.jumps``) remain, and the attack's gain per fake user then drops to RIA's.

Surveys: ``protocol_checks(protocol, payloads)`` / ``report_checks(protocol, reports)`` fold training reports of an
``LDPProtocol`` (every input) or a ``GaussianProtocol`` (its class-prior oracle; the vector groups are bounded by the
wire check, ``oracles.wire.check_grid_values``) into a ``PlausibilityStats``; ``findings(protocol, stats)`` lists the
findings, named by input. MRR surveys have none (``None``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from . import bits, noise
from .monitoring import Z_WARN, _z
from .oracles.de import DirectEncoding
from .oracles.histogram import SummationHistogram, ThresholdingHistogram
from .oracles.olh import OptimizedLocalHashing, olh_hash
from .oracles.unary import UnaryEncoding
from .stats import Counts

__all__ = ["ReportSums", "PlausibilityStats", "sums", "check", "honest_moments", "report_checks", "protocol_checks",
           "findings", "zero_stats", "support_matrix", "MAX_PAIR_DOMAIN", "MIN_REPORTS", "ALPHA"]

#: Largest domain whose pairwise co-occurrence counts are kept (d(d−1)/2 integers per input).
MAX_PAIR_DOMAIN = 32
#: Fewest reports of an input for the mass, spread and pair checks.
MIN_REPORTS = 500
#: False-alarm probability of one two-sided check at ``Z_WARN`` (and the family-wise budget of the pair check).
ALPHA = float(2 * norm.sf(Z_WARN))
#: Rows per block when support matrices are built.
_BLOCK = 16384


# -- per-report supports and totals --------------------------------------------------------------------------------

def _support_blocks(oracle, reports):
    """(rows, d) 0/1 support matrices of consecutive blocks of validated reports (SUE, OUE, THE, OLH, DE)."""
    d = oracle.domain
    if isinstance(oracle, UnaryEncoding):
        for start in range(0, reports.shape[0], _BLOCK):
            yield bits.unpack(reports[start:start + _BLOCK], d)
    elif isinstance(oracle, ThresholdingHistogram):
        for start in range(0, reports.shape[0], _BLOCK):
            yield (reports[start:start + _BLOCK] > oracle.threshold).astype(np.uint8)
    elif isinstance(oracle, OptimizedLocalHashing):
        a, b, y = reports
        values = np.arange(d)
        for start in range(0, a.shape[0], _BLOCK):
            s = slice(start, start + _BLOCK)
            yield (olh_hash(a[s, None], b[s, None], values[None, :], oracle.g) == y[s, None]).astype(np.uint8)
    elif isinstance(oracle, DirectEncoding):
        for start in range(0, reports.shape[0], _BLOCK):
            block = reports[start:start + _BLOCK]
            out = np.zeros((block.shape[0], d), dtype=np.uint8)
            out[np.arange(block.shape[0]), block] = 1
            yield out
    else:
        raise ValueError(f"no support sets for oracle {oracle.name!r}")


def support_matrix(oracle, reports) -> np.ndarray:
    """(n, d) uint8: b_rv = 1 when report r supports value v (SUE, OUE, THE, OLH, DE; module docstring)."""
    reports = oracle.validate(reports)
    blocks = list(_support_blocks(oracle, reports))
    return np.vstack(blocks) if blocks else np.zeros((0, oracle.domain), dtype=np.uint8)


def _has_pairs(oracle) -> bool:
    """Pairs are checked for protocols whose honest supports are independent given the true value (not OLH)."""
    return isinstance(oracle, (UnaryEncoding, ThresholdingHistogram)) and oracle.domain <= MAX_PAIR_DOMAIN


# -- additive statistics -------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ReportSums:
    """One oracle input's sums: ``counts`` (n and the support c_v, as ``oracle.aggregate``), Σ_r S_r² and, where
    kept, the co-occurrence counts C_uv (u < v, flattened upper triangle, row-major). Additive with ``+``."""

    counts: Counts
    total_sq: float
    pairs: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.counts.n

    @property
    def total(self) -> float:
        """Σ_r S_r = Σ_v c_v."""
        return float(self.counts.support.sum())

    def __add__(self, other: "ReportSums") -> "ReportSums":
        if not isinstance(other, ReportSums):
            return NotImplemented
        if (self.pairs is None) != (other.pairs is None):
            raise ValueError("cannot add sums with and without pair counts")
        pairs = None if self.pairs is None else self.pairs + other.pairs
        return ReportSums(self.counts + other.counts, self.total_sq + other.total_sq, pairs)

    def __radd__(self, other):
        return self if other == 0 else NotImplemented

    def __eq__(self, other) -> bool:
        return (isinstance(other, ReportSums) and self.counts == other.counts and self.total_sq == other.total_sq
                and (self.pairs is None) == (other.pairs is None)
                and (self.pairs is None or bool(np.array_equal(self.pairs, other.pairs))))

    def to_dict(self) -> dict:
        return {"counts": self.counts.to_dict(), "total_sq": float(self.total_sq),
                "pairs": None if self.pairs is None else self.pairs.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> "ReportSums":
        pairs = data.get("pairs")
        return cls(Counts.from_dict(data["counts"]), float(data["total_sq"]),
                   None if pairs is None else np.asarray(pairs, dtype=np.int64))

    @classmethod
    def zero(cls, oracle) -> "ReportSums":
        d = oracle.domain
        pairs = np.zeros(d * (d - 1) // 2, dtype=np.int64) if _has_pairs(oracle) else None
        dtype = np.float64 if isinstance(oracle, SummationHistogram) else np.int64
        return cls(Counts.zero(d, dtype), 0.0, pairs)


def sums(oracle, reports) -> ReportSums:
    """Fold one oracle input's engine reports (as ``oracle.aggregate`` takes them) into ``ReportSums``."""
    reports = oracle.validate(reports)
    counts = oracle.aggregate(reports)
    if isinstance(oracle, SummationHistogram):
        return ReportSums(counts, float(np.square(reports.sum(axis=1)).sum()))
    if isinstance(oracle, DirectEncoding):
        return ReportSums(counts, float(counts.n))
    d = oracle.domain
    upper = np.triu_indices(d, k=1)
    total_sq = 0.0
    pairs = np.zeros(d * (d - 1) // 2, dtype=np.int64) if _has_pairs(oracle) else None
    for block in _support_blocks(oracle, reports):
        totals = block.sum(axis=1, dtype=np.int64)
        total_sq += float(np.dot(totals, totals))
        if pairs is not None:
            B = block.astype(np.float64)
            pairs += np.rint((B.T @ B)[upper]).astype(np.int64)  # exact: integer counts < 2⁵³
    return ReportSums(counts, total_sq, pairs)


# -- the honest distribution and the checks ------------------------------------------------------------------------

def _laplace_fourth_cumulant(scale: float, grid: float = noise.GRID) -> float:
    """κ₄ of the grid Laplace noise γK: γ⁴·2α(1+4α+α²)/(1−α)⁴, α = e^(−γ/b) (module docstring)."""
    alpha = np.exp(-grid / scale)
    return float(grid**4 * 2 * alpha * (1 + 4 * alpha + alpha**2) / (1 - alpha) ** 4)


def honest_moments(oracle) -> tuple[float, float, float]:
    """(μ, σ², κ₄) of an honest report's total S (module docstring); DE: (1, 0, 0). For OLH only μ is exact."""
    d = oracle.domain
    if isinstance(oracle, SummationHistogram):
        scale = oracle.laplace_scale
        return 1.0, d * noise.discrete_laplace_variance(scale), d * _laplace_fourth_cumulant(scale)
    if isinstance(oracle, DirectEncoding):
        return 1.0, 0.0, 0.0
    probs = np.array([oracle.p] + [oracle.q] * (d - 1))
    v = probs * (1 - probs)
    return float(probs.sum()), float(v.sum()), float((v * (1 - 6 * v)).sum())


def _finding(label: str, kind: str, z: float, warning: bool, **extra) -> dict:
    return {"parameter": f"{label}{kind}", "check": kind, "entries": int(warning), "worst_z": float(z),
            "warning": bool(warning), **extra}


def _mass_and_spread(s: ReportSums, oracle, label: str) -> list[dict]:
    mu, var, k4 = honest_moments(oracle)
    n = s.n
    if var == 0 or n < MIN_REPORTS:
        return []
    mean = s.total / n
    sample_var = (s.total_sq - s.total**2 / n) / (n - 1)
    hashed = isinstance(oracle, OptimizedLocalHashing)  # only μ is exact (module docstring)
    z_mass = (mean - mu) / np.sqrt((sample_var if hashed else var) / n)
    mass = mean if isinstance(oracle, SummationHistogram) else (mean - oracle.domain * oracle.q) / (oracle.p - oracle.q)
    out = [_finding(label, "mass", z_mass, abs(z_mass) > Z_WARN, estimate_sum=float(mass), mean_total=float(mean),
                    expected_total=mu, reports=n)]
    if not hashed:
        z_spread = (sample_var - var) / np.sqrt((k4 + 2 * var**2) / n)
        out.append(_finding(label, "spread", z_spread, abs(z_spread) > Z_WARN, variance=float(sample_var),
                            expected_variance=var, reports=n))
    return out


def _pairs(s: ReportSums, oracle, label: str) -> list[dict]:
    if s.pairs is None or s.n < MIN_REPORTS or s.pairs.size == 0:
        return []
    n, d, p, q = s.n, oracle.domain, oracle.p, oracle.q
    c = s.counts.support.astype(np.float64)
    u, v = np.triu_indices(d, k=1)
    D = s.pairs - q * (c[u] + c[v]) + n * q * q
    c_tilde = np.clip(oracle.estimate(s.counts), 0, n)
    var = n * (q * (1 - q)) ** 2 + (c_tilde[u] + c_tilde[v]) * q * (1 - q) * (p * (1 - p) + (p - q) ** 2 - q * (1 - q))
    z = D / np.sqrt(var)
    threshold = float(norm.isf(ALPHA / z.size))
    i = int(np.argmax(z))
    return [{"parameter": f"{label}pairs", "check": "pairs", "entries": int((z > threshold).sum()),
             "worst_z": float(z[i]), "warning": bool(z[i] > threshold), "pair": [int(u[i]), int(v[i])],
             "threshold": threshold, "reports": n}]


def _range(s: ReportSums, oracle, label: str) -> list[dict]:
    n = s.n
    if n == 0:
        return []
    est = oracle.estimate(s.counts)
    excess = np.maximum(-est, est - n)
    outside = excess > 0
    if not outside.any():
        return []
    worst = float(np.max(_z(excess[outside], oracle.standard_errors(s.counts)[outside])))
    return [_finding(label, "range", worst, worst > Z_WARN, min=float(est.min() / n), max=float(est.max() / n),
                     reports=n) | {"entries": int(outside.sum())}]


def check(stats: ReportSums, oracle, label: str = "") -> list[dict]:
    """Findings of one oracle input's sums (module docstring): mass, spread, pairs, range — each a dict with
    ``parameter`` (``label`` + check), ``check``, ``entries``, ``worst_z`` and ``warning``, as ``monitoring``'s."""
    return _mass_and_spread(stats, oracle, label) + _pairs(stats, oracle, label) + _range(stats, oracle, label)


# -- whole surveys -------------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PlausibilityStats:
    """``ReportSums`` per checked oracle input of a survey protocol; additive, JSON-able."""

    per_input: tuple

    def __add__(self, other: "PlausibilityStats") -> "PlausibilityStats":
        if not isinstance(other, PlausibilityStats):
            return NotImplemented
        if len(self.per_input) != len(other.per_input):
            raise ValueError("cannot add plausibility statistics of different input counts")
        return PlausibilityStats(tuple(a + b for a, b in zip(self.per_input, other.per_input)))

    def __radd__(self, other):
        return self if other == 0 else NotImplemented

    def __eq__(self, other) -> bool:
        return isinstance(other, PlausibilityStats) and len(self.per_input) == len(other.per_input) and all(
            a == b for a, b in zip(self.per_input, other.per_input))

    def to_dict(self) -> dict:
        return {"per_input": [s.to_dict() for s in self.per_input]}

    @classmethod
    def from_dict(cls, data: dict) -> "PlausibilityStats":
        return cls(tuple(ReportSums.from_dict(s) for s in data["per_input"]))


def _oracles(protocol) -> tuple[list, list[str]]:
    """The checked oracles of a protocol and their labels; ([], []) for MRR."""
    if protocol.mode != "ldp":
        return [], []
    klass = protocol.class_attribute.name
    if hasattr(protocol, "nb"):
        labels = [f"class {klass}: "] + [f"{a.name} × {klass}: " for a in protocol.nb.attributes]
        return list(protocol.nb.oracles), labels
    return [protocol.gnb.prior_oracle], [f"class {klass}: "]


def zero_stats(protocol) -> PlausibilityStats | None:
    oracles, _ = _oracles(protocol)
    return PlausibilityStats(tuple(ReportSums.zero(fo) for fo in oracles)) if oracles else None


def report_checks(protocol, reports) -> PlausibilityStats | None:
    """Parsed training reports (``protocol.parse``) → ``PlausibilityStats``; ``None`` for MRR surveys."""
    oracles, _ = _oracles(protocol)
    if not oracles:
        return None
    per_input = reports.per_input if hasattr(protocol, "nb") else (reports.prior,)
    return PlausibilityStats(tuple(sums(fo, r) for fo, r in zip(oracles, per_input)))


def protocol_checks(protocol, payloads) -> PlausibilityStats | None:
    """Training payloads (wire form; ``protocol.split`` separates validation ones) → ``PlausibilityStats``."""
    if protocol.mode != "ldp":
        return None
    if not payloads:
        return zero_stats(protocol)
    return report_checks(protocol, protocol.parse(list(payloads)))


def _assignment(probabilities: np.ndarray, counts: list[int], labels: list[str]) -> list[dict]:
    """Reports per input against the public assignment probabilities (module docstring)."""
    counts = np.asarray(counts, dtype=np.float64)
    N = counts.sum()
    if N < MIN_REPORTS:
        return []
    z = (counts - N * probabilities) / np.sqrt(N * probabilities * (1 - probabilities))
    i = int(np.argmax(z))
    return [{"parameter": "assignment", "check": "assignment", "entries": int((z > Z_WARN).sum()),
             "worst_z": float(z[i]), "warning": bool(z[i] > Z_WARN), "input": labels[i].rstrip(": "),
             "share": float(counts[i] / N), "expected_share": float(probabilities[i]), "reports": int(N)}]


def findings(protocol, stats: PlausibilityStats | None) -> list[dict]:
    """Every check of every input, labelled by input (e.g. "smoker × sick: pairs"), and the assignment check of
    one-report surveys; [] without statistics."""
    if stats is None:
        return []
    oracles, labels = _oracles(protocol)
    out = []
    for fo, label, s in zip(oracles, labels, stats.per_input):
        out.extend(check(s, fo, label))
    nb = getattr(protocol, "nb", None)
    if nb is not None and nb.strategy == "one-report":
        out.extend(_assignment(nb.assignment, [s.n for s in stats.per_input], labels))
    return out
