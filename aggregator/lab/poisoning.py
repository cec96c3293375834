"""Data poisoning by fake users (Cao, Jia & Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols",
USENIX Security 2021) against DE (their kRR), OUE/SUE and OLH, for the lab and the plausibility tests.

An attacker controls m fake users, a share β = m/(n + m) of all reports, and wants to raise the estimated
frequencies of r target values T. Fake users skip the client half and send crafted *perturbed* reports:

* ``mga`` — maximal gain attack: every fake report supports all targets it can. DE: a random target; SUE/OUE: every
  target bit set, and (``pad=True``, as the paper does against detection by the number of ones) l = round(p + (d−1)q
  − r) random non-target bits so the report has the expected number of ones; OLH: of ``seed_tries`` random hash seeds
  (a, b) the one mapping most targets to one bucket, and y = that bucket.
* ``rpa`` — random perturbed-value attack: a uniformly random report (DE: a value; unary: each bit 1/2; OLH: random
  seed and bucket).
* ``ria`` — random item attack: a random target, randomized honestly by the oracle's client half.

Each oracle crafts its own MGA and RPA reports and knows their theoretical target support (``craft`` and
``crafted_support`` on the oracle class, ``aggregator/privacy/oracles/``); RIA works for every pure protocol.

Frequency gain (the paper's measure): Δ = Σ_{t∈T} (f̂_t after − f̂_t before), f̂ = Ê/(number of reports). For a pure
protocol (SPEC §3) with (p, q), if a fake report supports the targets Σ_T s_t times on average and the targets' true
frequency is f_T, E[Δ] = β·[(Σ_T s_t − r·q)/(p − q) − f_T] (``expected_gain``). This gives every entry of the
paper's gain table (``target_support``): MGA Σ_T s_t = 1 (DE), r (unary; OLH when the chosen seed maps all targets
together), RPA r/d, r/2, r/g, RIA p + (r − 1)q — e.g. DE-MGA β(1 − f_T) + β(d − r)/(e^ε − 1), OUE-MGA
β(2r·e^ε/(e^ε − 1) − f_T), RPA β(r/d − f_T), β(r − f_T), −β·f_T, RIA β(1 − f_T).

``simulate`` mixes fake reports into honest ones from the oracle's own client half, measures the gain (with its
standard error from the per-report target supports) and runs ``privacy.plausibility.check`` on the honest and the
poisoned reports; ``survey_payloads`` crafts fake users' wire payloads for a one-report LDP survey (they all report
the attacked input), for end-to-end checks through ``SurveyProtocol``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from aggregator.privacy import plausibility
from aggregator.privacy.oracles.base import PureProtocol
from aggregator.privacy.oracles.wire import to_wire

__all__ = ["ATTACKS", "fake_count", "fake_reports", "target_support", "expected_gain", "combine", "Outcome",
           "simulate", "survey_payloads"]

ATTACKS = ("mga", "rpa", "ria")


def fake_count(n_honest: int, beta: float) -> int:
    """m with m/(n + m) ≈ β."""
    if not 0 <= beta < 1:
        raise ValueError("beta must lie in [0, 1)")
    return int(round(beta * n_honest / (1 - beta)))


def _check(oracle, attack: str, targets) -> np.ndarray:
    """``targets`` as sorted distinct values, once the attack and the oracle are known to fit (``ValueError``)."""
    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {', '.join(ATTACKS)}")
    if not isinstance(oracle, PureProtocol):
        raise ValueError(f"attacks need a pure protocol (the gain is in its p and q), not {oracle.name!r}")
    targets = np.unique(np.asarray(targets, dtype=np.int64))
    if targets.size == 0 or targets.min() < 0 or targets.max() >= oracle.domain:
        raise ValueError(f"targets must be values in [0, {oracle.domain})")
    if attack != "ria":
        try:
            oracle.crafted_support(attack, targets.size)
        except NotImplementedError as exc:
            raise ValueError(str(exc)) from None
    return targets


def fake_reports(oracle, attack: str, targets, m: int, rng: np.random.Generator, *, pad: bool = True,
                 seed_tries: int = 1000):
    """m fake users' reports in the engine's form for ``oracle`` (module docstring): RIA through the oracle's client
    half, MGA and RPA crafted by the oracle (``craft``; ``pad`` is unary encoding's, ``seed_tries`` OLH's)."""
    targets = _check(oracle, attack, targets)
    if attack == "ria":
        return oracle.perturb(rng.choice(targets, size=m), rng)
    return oracle.craft(attack, targets, m, rng, pad=pad, seed_tries=seed_tries)


def target_support(oracle, attack: str, targets) -> float:
    """Σ_{t∈T} s_t: how many targets a fake report supports on average, in theory (RIA: p + (r − 1)q; MGA and RPA:
    the oracle's ``crafted_support``, e.g. OLH MGA: all r, i.e. a seed mapping every target to one bucket was
    found)."""
    targets = _check(oracle, attack, targets)
    r = targets.size
    if attack == "ria":
        return oracle.p + (r - 1) * oracle.q
    return oracle.crafted_support(attack, r)


def expected_gain(oracle, beta: float, support: float, r: int, f_targets: float) -> float:
    """E[Δ] = β·[(Σ_T s_t − r·q)/(p − q) − f_T] (module docstring)."""
    return beta * ((support - r * oracle.q) / (oracle.p - oracle.q) - f_targets)


def combine(oracle, first, second):
    """Two batches of engine reports as one: an array of rows, or a tuple of per-report arrays (OLH's (a, b, y))."""
    if isinstance(first, tuple):
        return tuple(np.concatenate([x, y]) for x, y in zip(first, second, strict=True))
    return np.concatenate([np.asarray(first), np.asarray(second)])


@dataclass
class Outcome:
    """One simulated attack: sizes, the measured and expected frequency gain, and the plausibility findings."""

    attack: str
    beta: float
    honest: int
    fake: int
    targets: list
    gain: float
    gain_standard_error: float
    expected_gain: float
    fake_target_support: float
    findings: list = field(default_factory=list)
    honest_findings: list = field(default_factory=list)

    @property
    def flagged(self) -> list[str]:
        """Checks that warn on the poisoned reports."""
        return sorted({f["check"] for f in self.findings if f["warning"]})


def simulate(oracle, true_values, attack: str, targets, beta: float, rng: np.random.Generator, **options) -> Outcome:
    """Honest reports of ``true_values`` (the oracle's client half) plus ``fake_count`` fake ones.

    The gain is measured as Δ = β/(p − q)·(mean fake target support − mean honest target support) — exactly
    Σ_T (f̂_after − f̂_before) — with standard error β/(p − q)·√(s²_fake/m + s²_honest/n) from the per-report sample
    variances; ``expected_gain`` uses the theoretical ``target_support`` and the true f_T of ``true_values``."""
    targets = _check(oracle, attack, targets)
    true_values = np.asarray(true_values, dtype=np.int64)
    n = true_values.shape[0]
    m = fake_count(n, beta)
    honest = oracle.perturb(true_values, rng)
    fake = fake_reports(oracle, attack, targets, m, rng, **options)
    x_honest = plausibility.support_matrix(oracle, honest)[:, targets].sum(axis=1, dtype=np.int64)
    x_fake = plausibility.support_matrix(oracle, fake)[:, targets].sum(axis=1, dtype=np.int64)
    share = m / (n + m)
    scale = share / (oracle.p - oracle.q)
    gain = scale * (x_fake.mean() - x_honest.mean())
    se = scale * np.sqrt(x_fake.var(ddof=1) / m + x_honest.var(ddof=1) / n)
    f_targets = float(np.isin(true_values, targets).mean())
    return Outcome(
        attack=attack, beta=share, honest=n, fake=m, targets=targets.tolist(), gain=float(gain),
        gain_standard_error=float(se),
        expected_gain=expected_gain(oracle, share, target_support(oracle, attack, targets), targets.size, f_targets),
        fake_target_support=float(x_fake.mean()),
        findings=plausibility.check(plausibility.sums(oracle, combine(oracle, honest, fake)), oracle),
        honest_findings=plausibility.check(plausibility.sums(oracle, honest), oracle),
    )


def survey_payloads(protocol, input_index: int, attack: str, targets, m: int, rng: np.random.Generator,
                    **options) -> list[dict]:
    """m fake users' wire payloads for a one-report ``LDPProtocol``: every one reports input ``input_index`` (0 = the
    class; i + 1 = feature i jointly with the class, value a·k + c) with a crafted report of that input's oracle."""
    nb = protocol.nb
    if nb.strategy != "one-report":
        raise ValueError("survey_payloads crafts one-report payloads")
    oracle = nb.oracles[input_index]
    wires = to_wire(oracle, fake_reports(oracle, attack, targets, m, rng, **options))
    return [{"input": int(input_index), "report": w} for w in wires]
