"""Adaptive allocation of respondents to inputs (docs/allocation.md).

One-report LDP Naive Bayes (SPEC §4) assigns every respondent one input by public probabilities. Which input a
respondent reports does not depend on their answers, so the assignment costs no privacy as long as it is computed
from published figures only (and every input keeps a positive probability, so the privacy figures do not change).
The estimator divides each input's counts by the number of reports that input received: unbiased for an assignment
fixed in advance; with assignments computed from earlier reports (as here) it is consistent, with a small bias —
the share of later reports on an input depends on what earlier ones showed (tests/engine/test_allocation.py measures
it).

The rule. A feature j enters a record's log-likelihood under class c through log P(a | c). Its *signal* is the spread
of those terms around the class-free log P(a),

    s_j = Σ_c π_c Σ_a P(a) (log P̃(a | c) − log P̃(a))²,

and its *noise* after N_j reports is c_j / N_j, the same weighted sum of the variances of log P̂(a | c):

    c_j = V_j · Σ_c π_c Σ_a P(a) / (π̃_c² · P̃(a | c)²),

with V_j the oracle's per-report count variance (``count_variance(1)``; a cell's variance is V_j / (N_j π_c²)),
P(a) = Σ_c π_c P(a | c), and the floored values P̃ = max(P, 1 / (2 · values)), π̃ = max(π, 1 / (2k)) keeping the logs
and quotients of empty cells finite. Of a feature's signal, a share s_j / (s_j + c_j / N_j) survives the noise (the
shrinkage factor of a signal of variance s_j under noise c_j / N_j). Maximising Σ_j s_j² N_j / (s_j N_j + c_j) over
the feature inputs at a fixed total gives

    N_j = max(√(c_j / λ) − c_j / s_j, N_j^now),

λ set so that the totals add up (``targets``): informative features with noisy estimates get the most respondents,
features without signal the least. Estimated parameters carry their own noise, which inflates s_j by about c_j / N_j:
``weights(…, estimated=True)`` subtracts it, so the assignment stays uniform until some feature's signal clears its
noise (the parameters must then be raw, not shrunk, estimates: ``LDPProtocol.next_assignment``). The class input
keeps its uniform share (every feature input estimates the prior as well, SPEC §4 pooled prior), and every input keeps
at least ``floor`` of its uniform share and ``min_reports`` expected reports of the batch planned for, so that it goes
on being measured — a feature that looks empty now may not be.
"""
from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_FLOOR", "MIN_REPORTS", "PILOT_REPORTS_PER_INPUT", "costs", "signals", "targets", "weights",
           "with_floor"]

#: Every input keeps at least this fraction of its uniform share 1 / (m + 1) …
DEFAULT_FLOOR = 0.25
#: … and at least this many expected reports of the batch planned for (capped at the uniform share).
MIN_REPORTS = 20
#: A reference sample (``LDPProtocol.pilot_assignment``) plans for this many reports per input.
PILOT_REPORTS_PER_INPUT = 1000


def _tables(prior, conditionals):
    """The prior, the tables and the floored tables P̃ (module docstring), checked."""
    prior = np.asarray(prior, dtype=np.float64)
    k = prior.size
    tables = []
    for j, table in enumerate(conditionals):
        t = np.asarray(table, dtype=np.float64)
        if t.ndim != 2 or t.shape[1] != k or np.any(~np.isfinite(t)) or np.any(t < 0):
            raise ValueError(f"conditional table {j} must be a non-negative (values, {k}) array")
        tables.append(t)
    return prior, tables, [np.maximum(t, 1.0 / (2 * t.shape[0])) for t in tables]


def costs(prior, conditionals, variances) -> np.ndarray:
    """The c_j of the module docstring for the m features: ``prior`` (k,), ``conditionals`` m tables (n_i, k) of
    P(a | c), ``variances`` the per-report count variance V_j of the m feature inputs."""
    prior, tables, floored = _tables(prior, conditionals)
    v = np.asarray(variances, dtype=np.float64)
    if v.shape != (len(tables),) or np.any(~np.isfinite(v)) or np.any(v <= 0):
        raise ValueError("variances must be positive, one per feature input")
    pi = np.maximum(prior, 1.0 / (2 * prior.size))
    return np.asarray([vj * float(np.sum((t @ prior)[:, None] * prior / (pi**2 * f**2)))
                       for vj, t, f in zip(v, tables, floored, strict=True)])


def signals(prior, conditionals) -> np.ndarray:
    """The s_j of the module docstring for the m features."""
    prior, tables, floored = _tables(prior, conditionals)
    out = []
    for t, f in zip(tables, floored, strict=True):
        p_a = t @ prior
        log_p_a = np.log(np.maximum(p_a, 1.0 / (2 * t.shape[0])))
        out.append(float(np.sum(p_a[:, None] * prior * (np.log(f) - log_p_a[:, None]) ** 2)))
    return np.asarray(out)


def targets(c, s, total: float, now=None) -> np.ndarray | None:
    """Report totals N_j maximising Σ s_j² N_j / (s_j N_j + c_j) with Σ N_j = ``total`` and N_j ≥ ``now``
    (module docstring; λ by bisection on a log scale). Inputs without signal (s_j ≤ 0) stay at ``now``; ``None`` when
    no input shows any."""
    c = np.asarray(c, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    now = np.zeros_like(c) if now is None else np.asarray(now, dtype=np.float64)
    live = s > 0
    if not live.any():
        return None
    if total <= now.sum():
        return now.copy()

    def totals(lam: float) -> np.ndarray:
        n = now.copy()
        n[live] = np.maximum(np.sqrt(c[live] / lam) - c[live] / s[live], now[live])
        return n

    lo, hi = 1e-300, 1e300
    while hi / lo > 1 + 1e-12:
        lam = np.sqrt(lo * hi)
        if totals(lam).sum() > total:
            lo = lam
        else:
            hi = lam
    return totals(hi)


def with_floor(shares, floor: float = DEFAULT_FLOOR) -> np.ndarray:
    """``shares`` made a distribution in which every entry is at least ``floor`` / len (water-filling: entries below
    the floor are raised to it, the others scaled down together)."""
    s = np.asarray(shares, dtype=np.float64)
    if s.ndim != 1 or s.size == 0 or np.any(~np.isfinite(s)) or np.any(s < 0) or s.sum() <= 0:
        raise ValueError("shares must be non-negative and finite with a positive sum")
    if not 0.0 <= floor <= 1.0:
        raise ValueError("floor must be in [0, 1]")
    low = floor / s.size
    s = s / s.sum()
    fixed = np.zeros(s.size, dtype=bool)
    while True:
        free = ~fixed
        scaled = s[free] * (1.0 - low * fixed.sum()) / s[free].sum()
        below = scaled < low
        if not below.any():
            out = np.full(s.size, low)
            out[free] = scaled
            return out
        fixed[np.flatnonzero(free)[below]] = True


def weights(prior, conditionals, variances, reports=None, batch: float | None = None,
            floor: float = DEFAULT_FLOOR, estimated: bool = True, min_reports: float = MIN_REPORTS) -> np.ndarray:
    """Assignment probabilities of the m + 1 inputs (class first) for the next ``batch`` respondents, given the
    ``reports`` each input has had so far (m + 1 counts; none: a fresh start): feature inputs share the batch as
    ``targets`` says, the class input keeps 1 / (m + 1) (all scaled down together where the floor raises an
    input), every input at least ``floor`` of its uniform share and ``min_reports`` expected reports of the batch
    (module docstring). ``variances``: V_j of the m + 1 inputs. ``estimated``: the parameters were estimated from
    those reports, so each signal is first reduced by its noise c_j / N_j (an input without reports shows none);
    uniform until some input's signal clears its noise. ``batch`` defaults to the reports so far (at least one)."""
    v = np.asarray(variances, dtype=np.float64)
    m = len(conditionals)
    if v.shape != (m + 1,):
        raise ValueError("variances must hold one value per input (the class first)")
    reports = np.zeros(m + 1) if reports is None else np.asarray(reports, dtype=np.float64)
    if reports.shape != (m + 1,) or np.any(~np.isfinite(reports)) or np.any(reports < 0):
        raise ValueError("reports must hold one non-negative count per input")
    batch = float(batch if batch is not None else max(reports.sum(), 1.0))
    if not np.isfinite(batch) or batch <= 0:
        raise ValueError("batch must be positive")
    floor = min(1.0, max(floor, min_reports * (m + 1) / batch))
    share = m / (m + 1)
    now = reports[1:]
    c = costs(prior, conditionals, v[1:])
    s = signals(prior, conditionals)
    if estimated:  # an estimated spread holds the estimates' own noise, c_j / N_j on average
        s = s - np.divide(c, now, out=np.full(m, np.inf), where=now > 0)
    goal = targets(c, s, now.sum() + share * batch, now)
    extra = None if goal is None else goal - now
    if extra is None or extra.sum() <= 0:
        return with_floor(np.ones(m + 1), floor)
    return with_floor(np.concatenate([[1.0 / (m + 1)], extra / extra.sum() * share]), floor)
