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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import norm

from . import oracles
from .stats import Additive, Counts, keyed

__all__ = ["AccuracyEstimate", "RecordHistogram", "VersionCounts", "correct_oracle", "ldp_accuracy",
           "CONFIDENCE"]

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
