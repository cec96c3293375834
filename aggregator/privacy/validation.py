"""Accuracy without seeing anyone's data: the validation share of respondents.

A survey may route a share of its respondents (the browser draws the assignment) to *validation* instead of
training. They send one validation report and nothing else, so every respondent spends the survey's ε once.

* MRR (SPEC §2, "Accuracy on randomized test data"; seed 004 §3.4): a validation respondent sends exactly what a
  training respondent would — a randomized record — but marked as validation, so it is kept out of the training
  statistics. The server keeps those records as a histogram (``RecordHistogram``, additive) and estimates a model's
  accuracy with ``mrr.randomized_accuracy``: P̂(cc) = (P*(cc) − (1−θ)·P_Y(cc))/θ.
* LDP: the browser classifies its own true answers with the latest published model version v and reports only
  whether the prediction was right, through direct encoding on the domain {0 = wrong, 1 = right} (binary
  randomized response, SPEC §3 DE with d = 2) at the respondent's whole ε. The server keeps one ``Counts`` per
  version (``VersionCounts``, additive) and estimates the accuracy of v as DE's unbiased frequency of "right",
  Ê₁/n = (c₁ − n·q)/(n·(p − q)), standard error √(r̂(1 − r̂)/n)/(p − q) (r̂ = c₁/n; ``ldp_accuracy``).

Both give an ``AccuracyEstimate`` with a 95 % normal-approximation confidence interval. The raw estimate may leave
[0, 1] (it is unbiased, not clipped); the interval is clipped to [0, 1] for display.

Choosing among candidate models (``choose``; SPEC §4, the private majority rule; beyond the papers). Several
estimators of the same training statistics are plausible (the default, the private majority rule, seed 000's
negative→1, …); they cost no extra privacy, since each is post-processing of the same reports. Validation
respondents are assigned among them uniformly at random (``assign``: public randomness, independent of anyone's
answers, so the assignment reveals nothing and every validation respondent still spends ε once), and each
candidate's accuracy is estimated from its own respondents' randomized bits (``ldp_accuracy``). The incumbent (the
default) is published unless a challenger's estimate minus the incumbent's — two independent groups, so the
difference has standard error √(SE₁² + SE₂²) — has its two-sided interval, at the Bonferroni level 1 − α/(c − 1) over
the c − 1 challengers, wholly above 0: when no challenger is better, the default is kept with probability
≥ 1 − α/2 (only the interval's lower side can make it switch). Among challengers that clear it, the one with the
highest lower end is published. ``respondents_to_separate`` gives the validation respondents this takes, per
candidate, to switch with a given power when a challenger leads by a given gap:
n = (z_{1−α/(2(c−1))} + z_power)² · (v₁ + v₂) / gap², v = r(1 − r)/(p − q)² the per-respondent variance of the
estimate at the observed share of "right" r = q + (p − q)·accuracy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Mapping

import numpy as np
from scipy.stats import norm

from . import oracles
from .stats import Additive, Counts, keyed

__all__ = ["AccuracyEstimate", "RecordHistogram", "VersionCounts", "correct_oracle", "ldp_accuracy",
           "CONFIDENCE", "Choice", "choose", "assign", "respondents_to_separate"]

CONFIDENCE = 0.95
CORRECT, WRONG = 1, 0


@dataclass(frozen=True)
class AccuracyEstimate:
    """An unbiased accuracy estimate, its standard error, the number of validation reports and a CI."""

    estimate: float
    standard_error: float
    reports: int
    method: str
    confidence: float = CONFIDENCE

    @property
    def interval(self) -> tuple[float, float]:
        """Normal-approximation interval estimate ± z·SE, clipped to [0, 1]."""
        z = float(norm.ppf(0.5 + self.confidence / 2))
        low = self.estimate - z * self.standard_error
        high = self.estimate + z * self.standard_error
        return float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))

    def to_dict(self) -> dict:
        low, high = self.interval
        return {"estimate": self.estimate, "standard_error": self.standard_error, "reports": self.reports,
                "method": self.method, "confidence": self.confidence, "low": low, "high": high}


def correct_oracle(epsilon: float):
    """The binary randomized response a validation respondent uses: DE on {0 = wrong, 1 = right} at ε."""
    return oracles.get("de", epsilon=epsilon, domain=2)


def ldp_accuracy(counts: Counts, epsilon: float) -> AccuracyEstimate:
    """Accuracy of one model version from its validation reports' ``Counts`` (see module docstring).

    The standard error is randomized response's for a population proportion, √(r̂(1 − r̂)/n)/(p − q) with r̂ the
    observed share of "right" reports: it covers both the randomization and the sampling of the validation
    respondents (DE's ``exact_variance`` covers the randomization only, for a fixed set of respondents)."""
    if counts.n <= 0:
        raise ValueError("no validation reports")
    fo = correct_oracle(epsilon)
    n = int(counts.n)
    right = float(fo.estimate(counts)[CORRECT]) / n
    observed = float(counts.support[CORRECT]) / n
    se = float(np.sqrt(observed * (1 - observed) / n) / (fo.p - fo.q))
    return AccuracyEstimate(right, se, n, "ldp-binary-rr")


@dataclass(frozen=True)
class Choice:
    """Which candidate to publish and why (``choose``): every candidate's estimate (``None`` without validation
    reports), and each challenger's difference from the incumbent (estimate, low, high) at the level it was tested."""

    published: str
    incumbent: str
    estimates: dict[str, AccuracyEstimate | None]
    differences: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    confidence: float = CONFIDENCE

    @property
    def switched(self) -> bool:
        return self.published != self.incumbent

    def to_dict(self) -> dict:
        return {"published": self.published, "incumbent": self.incumbent, "switched": self.switched,
                "confidence": self.confidence,
                "estimates": {k: None if e is None else e.to_dict() for k, e in self.estimates.items()},
                "differences": {k: {"estimate": d, "low": lo, "high": hi}
                                for k, (d, lo, hi) in self.differences.items()}}


def _level(confidence: float, challengers: int) -> float:
    """z of the two-sided Bonferroni interval: each challenger's at confidence 1 − (1 − confidence)/challengers."""
    return float(norm.ppf(1 - (1 - confidence) / (2 * max(challengers, 1))))


def choose(estimates: Mapping[str, AccuracyEstimate | None], incumbent: str,
           confidence: float = CONFIDENCE) -> Choice:
    """The candidate to publish (module docstring): the incumbent, unless a challenger's accuracy minus the
    incumbent's has its interval (Bonferroni over the challengers) above 0; then the challenger with the highest lower
    end. A candidate without validation reports cannot be chosen; an incumbent without any is kept."""
    if incumbent not in estimates:
        raise ValueError(f"the incumbent {incumbent!r} is not a candidate")
    base = estimates[incumbent]
    challengers = [k for k in estimates if k != incumbent]
    z = _level(confidence, len(challengers))
    differences = {}
    for name in challengers:
        other = estimates[name]
        if base is None or other is None:
            continue
        gap = other.estimate - base.estimate
        half = z * math.hypot(other.standard_error, base.standard_error)
        differences[name] = (gap, gap - half, gap + half)
    clearing = [k for k, (_, low, _) in differences.items() if low > 0]
    published = max(clearing, key=lambda k: differences[k][1]) if clearing else incumbent
    return Choice(published, incumbent, dict(estimates), differences, confidence)


def assign(n: int, candidates: int, rng: np.random.Generator) -> np.ndarray:
    """Each of ``n`` validation respondents' candidate, uniformly at random (public randomness: it depends on no
    answer)."""
    return rng.integers(candidates, size=int(n))


def respondents_to_separate(gap: float, epsilon: float, accuracy: float = 0.5, candidates: int = 2,
                            power: float = 0.8, confidence: float = CONFIDENCE) -> int:
    """Validation respondents *per candidate* for ``choose`` to switch with probability ``power`` when one challenger
    leads the incumbent (accuracy ``accuracy``) by ``gap``, at ε (module docstring; normal approximation)."""
    if not 0 < gap < 1:
        raise ValueError("the gap must lie in (0, 1)")
    fo = correct_oracle(epsilon)
    spread = fo.p - fo.q

    def variance(a: float) -> float:
        r = fo.q + spread * min(max(a, 0.0), 1.0)
        return r * (1 - r) / spread**2

    z = _level(confidence, candidates - 1) + float(norm.ppf(power))
    return int(math.ceil(z**2 * (variance(accuracy) + variance(accuracy + gap)) / gap**2))


@dataclass(frozen=True, eq=False)
class VersionCounts(Additive):
    """Validation ``Counts`` per model version (LDP). Additive; JSON form ``{"<version>": Counts.to_dict()}``."""

    by_version: dict = keyed(Counts, key=int)

    json_field: ClassVar[str] = "by_version"

    @classmethod
    def fold(cls, versions, reports) -> "VersionCounts":
        """Counts of 0/1 reports grouped by the version each one evaluated (both validated by the caller)."""
        versions = np.asarray(versions, dtype=np.int64)
        reports = np.asarray(reports, dtype=np.int64)
        out = {}
        for v in np.unique(versions):
            mine = reports[versions == v]
            out[int(v)] = Counts(int(mine.size), np.bincount(mine, minlength=2).astype(np.int64))
        return cls(out)

    @property
    def n(self) -> int:
        return sum(c.n for c in self.by_version.values())


@dataclass(frozen=True, eq=False)
class RecordHistogram(Additive):
    """How many validation reports carried each randomized record (MRR). Additive; JSON form
    ``[[record…, count], …]`` sorted by record."""

    counts: dict = keyed(int, key=tuple)

    @classmethod
    def fold(cls, records) -> "RecordHistogram":
        records = np.asarray(records, dtype=np.int64)
        if records.size == 0:
            return cls()
        unique, counts = np.unique(records, axis=0, return_counts=True)
        return cls({tuple(int(v) for v in row): int(c) for row, c in zip(unique, counts, strict=True)})

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def records(self) -> np.ndarray:
        """Every report's record (histogram expanded), one row each, in sorted record order."""
        if not self.counts:
            return np.empty((0, 0), dtype=np.int64)
        keys = sorted(self.counts)
        return np.repeat(np.asarray(keys, dtype=np.int64), [self.counts[k] for k in keys], axis=0)

    def to_dict(self) -> list:
        return [[*record, count] for record, count in sorted(self.counts.items())]

    @classmethod
    def from_dict(cls, data: list | None) -> "RecordHistogram":
        return cls({tuple(int(v) for v in row[:-1]): int(row[-1]) for row in (data or [])})
