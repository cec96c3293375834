"""The statistical ε audit of the browser randomizers (issue 11 item 7; docs/epsilon-audit.md), in the manner of
LDP-Auditor (Arcolezi & Gambs, PETS 2024): sample the real JavaScript randomizer on two neighbouring inputs x0, x1 and
bound ε from below by the most distinguishing output event E,

    ε ≥ ln( P(M(x0) ∈ E) / P(M(x1) ∈ E) )   for every event E, if M is ε-LDP,

with a Clopper–Pearson lower bound on the numerator and upper bound on the denominator, each one-sided at α/2, so
the bound holds with probability ≥ 1 − α. Unlike LDP-Auditor's single fixed attack event, E is chosen from the data:
the sampler (``run_randomizer.mjs``) reports counts of a few output cells; on the "select" half the cells are ranked
by their estimated likelihood ratio and the Neyman–Pearson family (every union of the top-ranked cells, in either
direction x0/x1 or x1/x0) is scanned for the largest lower bound; only that one event is then evaluated on the
independent "test" half. Choosing on one half and testing on the other makes the choice free (no multiplicity over
events); the multiplicity left is over audits, handled by Bonferroni: ``alpha = ALPHA_JOINT / number of audits``.
"""
from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

__all__ = ["ALPHA_JOINT", "AuditResult", "audit", "clopper_pearson_lower", "clopper_pearson_upper",
           "epsilon_lower_bound", "expected_lower_bound", "samples_for", "run_jobs"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SAMPLER = HERE / "run_randomizer.mjs"

#: Joint confidence of the whole audit: with probability ≥ 1 − 1e-6 no bound of a correct randomizer exceeds its ε.
ALPHA_JOINT = 1e-6


def clopper_pearson_lower(k: int, n: int, alpha: float) -> float:
    """One-sided (1 − alpha) Clopper–Pearson lower bound on a binomial proportion: Beta(alpha; k, n − k + 1)."""
    return 0.0 if k == 0 else float(stats.beta.ppf(alpha, k, n - k + 1))


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """One-sided (1 − alpha) Clopper–Pearson upper bound: Beta(1 − alpha; k + 1, n − k)."""
    return 1.0 if k == n else float(stats.beta.ppf(1.0 - alpha, k + 1, n - k))


def epsilon_lower_bound(k0: int, n0: int, k1: int, n1: int, alpha: float) -> float:
    """(1 − alpha) lower bound on ln(P0(E)/P1(E)) from k0 of n0 samples of x0 and k1 of n1 of x1 in E (−∞ when the
    numerator's bound is 0)."""
    lo = clopper_pearson_lower(k0, n0, alpha / 2)
    return math.log(lo / clopper_pearson_upper(k1, n1, alpha / 2)) if lo > 0 else -math.inf


def expected_lower_bound(p0: float, p1: float, n: int, alpha: float) -> float:
    """The bound ``epsilon_lower_bound`` gives at the expected counts n·p0, n·p1 (the power calculation)."""
    return epsilon_lower_bound(round(n * p0), n, round(n * p1), n, alpha)


def samples_for(p0: float, p1: float, target: float, alpha: float) -> int:
    """Smallest n (per input, per half; to 1 %) whose expected bound reaches ``target`` for an event of probabilities
    p0, p1 (``math.inf`` when ln(p0/p1) ≤ target)."""
    if math.log(p0 / p1) <= target:
        return math.inf
    n = 16
    while expected_lower_bound(p0, p1, n, alpha) < target:
        n *= 2
    lo, hi = n // 2, n
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if expected_lower_bound(p0, p1, mid, alpha) >= target else (mid, hi)
    return hi


@dataclass(frozen=True)
class AuditResult:
    """The chosen event (cells of the sampler, and which input is in the numerator) and the bounds."""

    event: frozenset
    numerator: int  # 0: ln(P(x0 ∈ E)/P(x1 ∈ E)), 1: the reverse
    select_bound: float  # on the selection half (biased upwards by the choice; for information only)
    lower_bound: float  # on the test half: the audit's result
    p_hat: tuple  # (P̂(E | numerator input), P̂(E | the other)) on the test half

    def describe(self) -> str:
        cells = ",".join(sorted(self.event))
        return f"x{self.numerator} vs x{1 - self.numerator} on {{{cells}}}"


def _events(select: list[dict]) -> list[tuple[frozenset, int]]:
    """The Neyman–Pearson family on the selection half: cells ranked by (count0 + ½)/(count1 + ½); every proper
    prefix of that ranking (x0 in the numerator) and of the reverse ranking (x1 in the numerator)."""
    c0, c1 = select
    cells = sorted(set(c0) | set(c1))
    ranked = sorted(cells, key=lambda c: (c0.get(c, 0) + 0.5) / (c1.get(c, 0) + 0.5), reverse=True)
    out = []
    for i in range(1, len(ranked)):
        out.append((frozenset(ranked[:i]), 0))
        out.append((frozenset(ranked[-i:]), 1))
    return out


def _bound(half: list[dict], n: int, event: frozenset, numerator: int, alpha: float) -> tuple[float, tuple]:
    k = [sum(c.get(cell, 0) for cell in event) for c in half]
    top, bottom = k[numerator], k[1 - numerator]
    return epsilon_lower_bound(top, n, bottom, n, alpha), (top / n, bottom / n)


def audit(counts: dict, n: int, alpha: float) -> AuditResult:
    """Choose the event on ``counts["select"]``, bound ε on ``counts["test"]`` (each: [counts of x0, counts of x1],
    n samples each) at confidence 1 − alpha."""
    events = _events(counts["select"])
    if not events:  # a single cell: the two inputs are indistinguishable by construction
        return AuditResult(frozenset(), 0, -math.inf, -math.inf, (1.0, 1.0))
    scored = [(_bound(counts["select"], n, e, j, alpha)[0], e, j) for e, j in events]
    select_bound, event, numerator = max(scored, key=lambda s: s[0])
    lower, p_hat = _bound(counts["test"], n, event, numerator, alpha)
    return AuditResult(event, numerator, select_bound, lower, p_hat)


def run_jobs(jobs: list[dict], timeout: float = 300) -> dict:
    """Run ``run_randomizer.mjs`` on ``jobs`` (one node process, sequentially); its JSON output by job id."""
    result = subprocess.run(["node", str(SAMPLER)], input=json.dumps({"jobs": jobs}), capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"run_randomizer.mjs failed: {result.stderr[-3000:]}")
    return json.loads(result.stdout)
