"""Per-report plausibility statistics: signs of fake users in the reports themselves (data poisoning after
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
to O(1/P)), but collisions of three values are correlated — the honest variance of S exceeds the independent formula
(docs/engine.md, "Choices beyond the papers"). So OLH gets the mass check only, with the sample variance in its
standard error.

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
most over-represented input; false alarms ≤ (m + 1)·Φ(−4) (m + 3 with the number groups below). Under adaptive
allocation (``privacy.allocation``) the probabilities change from day to day: the statistics then carry, beside the
counts, Σ a_j and Σ a_j(1 − a_j) over the reports folded, each with the assignment of its day
(``report_checks(…, assignment)``), and the z-score uses those sums (a sum of independent Bernoulli draws: the same
test with the mean and variance of the mixture).

The mass, spread and pair checks need ``MIN_REPORTS`` reports of the input (normal approximations). DE reports have
S ≡ 1 and no pairs: only ``range`` applies; OLH: mass and range. An attacker who knows these checks can still evade
mass and spread (by drawing the padding count from the honest distribution) and pairs (one target per report); the
range check and the jumps between versions (``monitoring.jumps``) remain, and the attack's gain per fake user then
drops to RIA's.

Gaussian and mixed surveys assign respondents to their mean and square groups too (published shares, SPEC §5b): the
assignment check counts those groups' reports, read from the survey's own statistics, beside the oracle inputs', so
fake users who all send number vectors show as well.

Surveys: ``protocol_checks(protocol, payloads)`` / ``report_checks(protocol, reports)`` fold training reports of an
``LDPProtocol`` (every input), a ``GaussianProtocol`` (its class-prior oracle; the vector groups are bounded by the
wire check, ``oracles.wire.check_grid_values``) or a ``MixedProtocol`` (its oracle inputs) into a
``PlausibilityStats``; ``findings(protocol, stats, survey_stats)`` lists the findings, named by input. MRR surveys
have none (``None``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import norm

from .monitoring import Z_WARN, _z
from .oracles.histogram import laplace_fourth_cumulant
from .stats import Additive, Counts, array, parts

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


# -- per-report supports and totals (each oracle's: ``support_blocks``, ``report_totals``) -------------------------

def support_matrix(oracle, reports) -> np.ndarray:
    """(n, d) uint8: b_rv = 1 when report r supports value v (SUE, OUE, THE, OLH, DE; module docstring)."""
    return oracle.support_matrix(reports)


def _has_pairs(oracle) -> bool:
    """Pairs are checked for protocols whose honest supports are independent given the true value (not OLH)."""
    return oracle.supports_pair_check and oracle.domain <= MAX_PAIR_DOMAIN


# -- additive statistics -------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ReportSums(Additive):
    """One oracle input's sums: ``counts`` (n and the support c_v, as ``oracle.aggregate``), Σ_r S_r² and, where
    kept, the co-occurrence counts C_uv (u < v, flattened upper triangle, row-major). Additive with ``+``."""

    counts: Counts
    total_sq: float
    pairs: np.ndarray | None = array(np.int64, optional=True)

    mismatch: ClassVar[str] = "cannot add sums with and without pair counts"

    @property
    def n(self) -> int:
        return self.counts.n

    @property
    def total(self) -> float:
        """Σ_r S_r = Σ_v c_v."""
        return float(self.counts.support.sum())

    @classmethod
    def zero(cls, oracle) -> "ReportSums":
        d = oracle.domain
        pairs = np.zeros(d * (d - 1) // 2, dtype=np.int64) if _has_pairs(oracle) else None
        return cls(oracle.zero_stats(), 0.0, pairs)


def sums(oracle, reports) -> ReportSums:
    """Fold one oracle input's engine reports (as ``oracle.aggregate`` takes them) into ``ReportSums``."""
    reports = oracle.validate(reports)
    counts = oracle.aggregate(reports)
    if not _has_pairs(oracle):
        totals = oracle.report_totals(reports)
        # integer totals: one exact dot product; SHE's float totals: numpy's pairwise sum of squares
        total_sq = float(np.dot(totals, totals)) if totals.dtype.kind == "i" else float(np.square(totals).sum())
        return ReportSums(counts, total_sq)
    d = oracle.domain
    upper = np.triu_indices(d, k=1)
    total_sq = 0.0
    pairs = np.zeros(d * (d - 1) // 2, dtype=np.int64)
    for block in oracle.support_blocks(reports, _BLOCK):
        totals = block.sum(axis=1, dtype=np.int64)
        total_sq += float(np.dot(totals, totals))
        B = block.astype(np.float64)
        pairs += np.rint((B.T @ B)[upper]).astype(np.int64)  # exact: integer counts < 2⁵³
    return ReportSums(counts, total_sq, pairs)


# -- the honest distribution and the checks ------------------------------------------------------------------------

#: κ₄ of the grid Laplace noise (module docstring; SHE's ``honest_moments`` uses it).
_laplace_fourth_cumulant = laplace_fourth_cumulant


def honest_moments(oracle) -> tuple[float, float, float]:
    """(μ, σ², κ₄) of an honest report's total S (module docstring; ``oracle.honest_moments()``); DE: (1, 0, 0).
    For OLH only μ is exact (``oracle.honest_variance_exact``)."""
    return oracle.honest_moments()


def _finding(label: str, kind: str, z: float, warning: bool, **extra) -> dict:
    return {"parameter": f"{label}{kind}", "check": kind, "entries": int(warning), "worst_z": float(z),
            "warning": bool(warning), **extra}


def _mass_and_spread(s: ReportSums, oracle, label: str) -> list[dict]:
    mu, var, k4 = oracle.honest_moments()
    n = s.n
    if var == 0 or n < MIN_REPORTS:
        return []
    mean = s.total / n
    sample_var = (s.total_sq - s.total**2 / n) / (n - 1)
    exact = oracle.honest_variance_exact  # OLH: only μ is exact (module docstring)
    z_mass = (mean - mu) / np.sqrt((var if exact else sample_var) / n)
    out = [_finding(label, "mass", z_mass, abs(z_mass) > Z_WARN, estimate_sum=float(oracle.estimate_sum(mean)),
                    mean_total=float(mean), expected_total=mu, reports=n)]
    if exact:
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
class PlausibilityStats(Additive):
    """``ReportSums`` per checked oracle input of a survey protocol; additive, JSON-able."""

    per_input: tuple = parts(ReportSums)
    #: Adaptive allocation only: Σ a_j and Σ a_j(1 − a_j) per input over the reports folded (module docstring).
    expected: np.ndarray | None = array(np.float64, optional=True, rtol=1e-12, atol=1e-9)
    expected_var: np.ndarray | None = array(np.float64, optional=True, rtol=1e-12, atol=1e-9)

    mismatch: ClassVar[str] = "cannot add plausibility statistics of different input counts"

    def to_dict(self):
        """The stored form; without the adaptive-allocation sums when there are none, so a uniform survey's stored
        statistics read exactly as before they existed (``from_dict`` reads a missing one as ``None``)."""
        out = super().to_dict()
        for name in ("expected", "expected_var"):
            if out.get(name) is None:
                out.pop(name, None)
        return out


def _expected(protocol, reports: int, assignment=None) -> dict:
    """The ``expected``/``expected_var`` fields for ``reports`` training reports drawn with ``assignment`` (uniform
    when ``None``): empty unless the protocol publishes its assignment (adaptive allocation)."""
    if not protocol.publishes_assignment:
        return {}
    inputs = len(protocol.checked_oracles())
    a = np.full(inputs, 1.0 / inputs) if assignment is None else np.asarray(assignment, dtype=np.float64)
    if a.shape != (inputs,):
        raise ValueError(f"the assignment must hold {inputs} probabilities")
    return {"expected": reports * a, "expected_var": reports * a * (1 - a)}


def zero_stats(protocol) -> PlausibilityStats | None:
    """Empty statistics for the protocol's ``checked_oracles()``; ``None`` when it has none (MRR)."""
    checked = protocol.checked_oracles()
    return PlausibilityStats(tuple(ReportSums.zero(fo) for _, fo in checked), **_expected(protocol, 0)) \
        if checked else None


def report_checks(protocol, reports, assignment=None) -> PlausibilityStats | None:
    """Parsed training reports (``protocol.parse``) → ``PlausibilityStats``; ``None`` for MRR surveys. ``assignment``:
    under adaptive allocation, the probabilities the reports were drawn with (their day's; uniform when ``None``)."""
    checked = protocol.checked_oracles()
    if not checked:
        return None
    per_input = protocol.checked_reports(reports)
    return PlausibilityStats(tuple(sums(fo, r) for (_, fo), r in zip(checked, per_input, strict=True)),
                             **(_expected(protocol, int(reports.n), assignment) if protocol.publishes_assignment
                                else {}))


def protocol_checks(protocol, payloads) -> PlausibilityStats | None:
    """Training payloads (wire form; ``protocol.split`` separates validation ones) → ``PlausibilityStats``."""
    if not protocol.checked_oracles():
        return None
    if not payloads:
        return zero_stats(protocol)
    return report_checks(protocol, protocol.parse(list(payloads)))


def _assignment(expected: np.ndarray, variance: np.ndarray, reports: list[int], labels: list[str]) -> list[dict]:
    """Reports per input against their expected counts under the public assignment (module docstring)."""
    counts = np.asarray(reports, dtype=np.float64)
    N = counts.sum()
    if N < MIN_REPORTS:
        return []
    z = (counts - expected) / np.sqrt(np.maximum(variance, 1e-300))
    i = int(np.argmax(z))
    return [{"parameter": "assignment", "check": "assignment", "entries": int((z > Z_WARN).sum()),
             "worst_z": float(z[i]), "warning": bool(z[i] > Z_WARN), "input": labels[i].rstrip(": "),
             "share": float(counts[i] / N), "expected_share": float(expected[i] / N), "reports": int(N)}]


def findings(protocol, stats: PlausibilityStats | None, survey_stats=None) -> list[dict]:
    """Every check of every input, labelled by input (e.g. "smoker × sick: pairs"), and the assignment check of
    one-report surveys; [] without statistics. ``survey_stats``, the survey's statistics of the same reports
    (``protocol.aggregate``), give the reports of the groups no oracle checks (``protocol.assignment_groups``:
    Gaussian and mixed surveys' mean and square groups), which their assignment check counts with the inputs'."""
    if stats is None:
        return []
    checked = protocol.checked_oracles()
    out = []
    for (label, fo), s in zip(checked, stats.per_input, strict=False):
        out.extend(check(s, fo, label))
    counts = [s.n for s in stats.per_input]
    labels = [label for label, _ in checked]
    probabilities = protocol.assignment_probabilities()
    if probabilities is not None and len(probabilities) > len(counts):
        if survey_stats is None:
            raise ValueError("this survey's assignment check counts its groups' reports: pass the survey statistics")
        groups = protocol.assignment_groups(survey_stats)
        labels += [label for label, _ in groups]
        counts += [n for _, n in groups]
    if probabilities is not None and len(probabilities) != len(counts):
        raise ValueError(f"the assignment has {len(probabilities)} shares for {len(counts)} inputs and groups")
    if probabilities is not None:
        N = float(sum(counts))
        out.extend(_assignment(N * probabilities, N * probabilities * (1 - probabilities), counts, labels))
    elif stats.expected is not None and stats.expected_var is not None:  # adaptive allocation
        out.extend(_assignment(stats.expected, stats.expected_var, counts, labels))
    return out
