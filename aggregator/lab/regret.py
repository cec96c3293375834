"""No regret against the old rules: the default Naive Bayes estimator against the best of the private
majority rule (SPEC §4), Norm-Sub, seed 000's negative→1 and the flat-Dirichlet posterior means, at every data set and
ε, with the 95 % interval of the paired difference.

Every method of a point is evaluated on the same splits (one seed; ``evaluate``), so per repetition the difference
default − rival is paired, with its 95 % t-interval (± t₀.₉₇₅,ᵣₑₚₛ₋₁ · sd/√reps). The default must not be behind any
rival by more than the target, so the point's regret is the interval against the *binding* rival — the one whose
interval has the lowest upper end (``best``) — not against the rival with the highest mean accuracy on the same
repetitions, a choice their noise biases toward the rival. The floor is the same interval for default − private
majority. The point meets the target when the upper end is ≥ −1 point, the bound when it is ≥ −2.5 points.

``python manage.py reproduce regret [--reps R]`` writes docs/results/regret.{csv,md,png}; the CSV holds every
repetition's accuracy (column ``accuracies``), so the table can be recomputed from it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from . import methods as registry
from .datasets import PACKAGE_TABLES, load_dataset
from .evaluate import Progress
from .figures import Curves

__all__ = ["Family", "FAMILIES", "EPSILONS", "DATASETS", "RegretCurves", "regret_table", "TARGET", "BOUND", "family_of",
           "paired_interval", "PackageCurves"]

#: Seed 000's grid.
EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0)
#: Every bundled table, then every table a package ships (``datasets.PACKAGE_TABLES``).
DATASETS = ("mushroom", "vote", "breast_cancer", "adult", "diabetes", "glass", *PACKAGE_TABLES)
#: The regret target and the bound (percentage points, upper end of the 95 % interval of default − best).
TARGET, BOUND = -1.0, -2.5


@dataclass(frozen=True)
class Family:
    """A default lab method, its private majority rule and the old rules it must not fall behind."""

    default: str
    majority: str
    rivals: tuple[str, ...]
    numeric_only: bool = False  #: only on tables with a numeric question (Gaussian NB)

    @property
    def methods(self) -> tuple[str, ...]:
        return (self.default, self.majority, *self.rivals)


def discrete(oracle: str) -> Family:
    return Family(oracle, f"{oracle}-majority", (f"{oracle}-normsub", f"{oracle}-neg1", f"{oracle}-postmean"))


#: The product's default (the adaptive oracle choice) and explicitly chosen oracles; Gaussian Approach 3.
FAMILIES = {
    "adaptive": discrete("adaptive"),
    "de": discrete("de"),
    "oue": discrete("oue"),
    "gauss-sample": Family("gauss-sample", "gauss-sample-majority", ("gauss-sample-nofloor",), numeric_only=True),
    # The default without its guard (``shrinkage.SHARE``) against the same old rules as the default.
    "adaptive-share": Family("adaptive-share", "adaptive-majority", discrete("adaptive").rivals),
    # The validation share choosing among the default, the private majority rule and negative→1
    # (``privacy.validation.choose``), against the default trained on every respondent and negative→1.
    "adaptive-validated": Family("adaptive-validated", "adaptive-majority", ("adaptive", "adaptive-neg1")),
}


def family_of(method: str) -> Family | None:
    """The family of a lab method: ``FAMILIES``' entry, else its private majority rule ``<method>-majority`` and the
    old rules registered beside it (``-normsub``, ``-neg1``, ``-postmean``); ``None`` when it has no private
    majority rule."""
    if method in FAMILIES:
        return FAMILIES[method]
    names = set(registry.names())
    if f"{method}-majority" not in names:
        return None
    rivals = tuple(r for r in (f"{method}-normsub", f"{method}-neg1", f"{method}-postmean") if r in names)
    return Family(method, f"{method}-majority", rivals)


@dataclass(frozen=True)
class RegretCurves:
    """Accuracy of every method of ``families`` over ``grid`` on ``datasets``; a ``Curves`` frame."""

    datasets: tuple[str, ...] = DATASETS
    families: tuple[str, ...] = ("adaptive",)
    grid: tuple[float, ...] = EPSILONS

    def compute(self, reps: int, seed: int, progress: Progress | None = None) -> pd.DataFrame:
        from threadpoolctl import threadpool_limits

        tables = {name: load_dataset(name) for name in self.datasets}
        jobs = []
        for name in self.families:
            family = FAMILIES[name]
            names = tuple(d for d in self.datasets if not family.numeric_only or tables[d].numeric_indices)
            jobs.append(PackageCurves(names, family.methods, self.grid, keep_unfit=True, tables=tables))
        total = sum(len(job.points()) for job in jobs)
        done = [0]
        frames = []

        def step(i, n):
            if progress is not None:
                progress(done[0] + i, total)

        # One BLAS thread: the per-question covariance work is small, and on a shared machine threads only contend.
        with threadpool_limits(1):
            for job in jobs:
                frames.append(job.compute(reps, seed, step))
                done[0] += len(job.points())
        return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class PackageCurves(Curves):
    """``Curves`` on bundled tables and the tables packages ship (``datasets.load_dataset``), optionally preloaded."""

    tables: dict | None = None

    def load(self, name: str):
        return self.tables[name] if self.tables and name in self.tables else load_dataset(name)


def _accuracies(frame: pd.DataFrame, dataset: str, method: str, value: float) -> np.ndarray | None:
    row = frame[(frame["dataset"] == dataset) & (frame["method"] == method) & np.isclose(frame["value"], value)]
    if row.empty:
        return None
    text = row["accuracies"].iloc[0]
    values = [] if not isinstance(text, str) else [float(a) for a in text.split()]
    return np.array(values) if values else None  # a point the engine could not fit has none


def paired_interval(diff) -> tuple[float, float, float]:
    """(mean, low, high): the 95 % t interval of the mean of paired differences (one difference: no interval)."""
    diff = np.asarray(diff, dtype=np.float64)
    mean = float(diff.mean())
    if diff.size < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.975, diff.size - 1) * diff.std(ddof=1) / math.sqrt(diff.size))
    return mean, mean - half, mean + half


def regret_table(frame: pd.DataFrame, families: tuple[str, ...] | None = None) -> pd.DataFrame:
    """One row per (data set, family, ε): the default's and every rival's mean accuracy (points), the best rival,
    the paired regret default − best and floor default − private majority, each with its 95 % interval, and whether
    the point meets the target and the bound."""
    rows = []
    for name, family in FAMILIES.items():
        if family.default not in set(frame["method"]) or (families is not None and name not in families):
            continue
        part = frame[frame["method"] == family.default]
        for dataset in dict.fromkeys(part["dataset"]):
            for value in sorted(part[part["dataset"] == dataset]["value"]):
                default = _accuracies(frame, dataset, family.default, value)
                majority = _accuracies(frame, dataset, family.majority, value)
                found = {m: _accuracies(frame, dataset, m, value) for m in (family.majority, *family.rivals)}
                rivals = {m: a for m, a in found.items() if a is not None}
                if default is None or majority is None or not rivals:
                    continue
                # The binding rival: the one against which the interval's upper end is lowest. Not the best by mean
                # accuracy on these same repetitions, which the noise favours (a biased choice at few repetitions).
                intervals = {m: paired_interval(100 * (default - a)) for m, a in rivals.items()}
                best = min(intervals, key=lambda m: (intervals[m][2], intervals[m][0]))
                regret = intervals[best]
                floor = paired_interval(100 * (default - majority))
                row = {"dataset": dataset, "family": name, "epsilon": value, "reps": default.size,
                       "default": 100 * default.mean()}
                row.update({m: 100 * a.mean() for m, a in rivals.items()})
                row.update(best=best, regret=regret[0], regret_low=regret[1], regret_high=regret[2],
                           floor=floor[0], floor_low=floor[1], floor_high=floor[2],
                           target=bool(regret[2] >= TARGET), bound=bool(regret[2] >= BOUND),
                           below_floor=bool(floor[2] < 0))
                rows.append(row)
    return pd.DataFrame(rows)


def plot_regret(frame: pd.DataFrame, families: tuple[str, ...] | None = None):
    """Per family a panel: the regret (default − best, points) with its 95 % interval at every (data set, ε)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    table = regret_table(frame, families)
    names = list(dict.fromkeys(table["family"])) or ["adaptive"]
    fig, axes = plt.subplots(len(names), 1, figsize=(12, 3.5 * len(names)), squeeze=False)
    for ax, name in zip(axes[:, 0], names, strict=True):
        part = table[table["family"] == name]
        labels = [f"{d} {e:g}" for d, e in zip(part["dataset"], part["epsilon"], strict=True)]
        x = np.arange(len(part))
        err = np.vstack([part["regret"] - part["regret_low"], part["regret_high"] - part["regret"]])
        ax.errorbar(x, part["regret"], yerr=err, fmt="o", markersize=3, capsize=2, label="default − best")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.axhline(TARGET, color="C2", linestyle="--", linewidth=0.8, label="target (−1)")
        ax.axhline(BOUND, color="C3", linestyle=":", linewidth=0.8, label="bound (−2.5)")
        ax.set_xticks(x, labels, rotation=90, fontsize=6)
        ax.set_ylabel("points")
        ax.set_title(f"{name}: regret against the best old rule")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def notes_regret(frame: pd.DataFrame, families: tuple[str, ...] | None = None) -> str:
    """The regret table (markdown) and its summary."""
    from .figures import markdown_table

    table = regret_table(frame, families)
    unfit = frame[frame["unfit"].notna()] if "unfit" in frame else frame.iloc[:0]
    skipped = ["Points the engine could not fit (left out of the table): " + "; ".join(
        f"{r.dataset} {r.method} ε = {r.value:g} ({r.unfit})" for r in unfit.itertuples()), ""] if len(unfit) else []
    if table.empty:
        return "\n".join(skipped + ["No point has both the default and its rivals."])
    lines = ["## Regret per point", "",
             f"Points in percentage points; `regret` = default − best rival (paired, 95 % interval "
             f"[`regret_low`, `regret_high`]); `floor` = default − private majority rule. Target: `regret_high` ≥ "
             f"{TARGET:g}; bound: ≥ {BOUND:g}.", "", *skipped]
    for name in dict.fromkeys(table["family"]):
        part = table[table["family"] == name]
        lines += [f"### {name}", "",
                  f"{int(part['target'].sum())} of {len(part)} points meet the target, {int(part['bound'].sum())} "
                  f"the bound; {int(part['below_floor'].sum())} lie below the private majority rule (upper end of "
                  "the floor's interval < 0).", ""]
        worst = part.sort_values("regret_high").head(5)
        lines += ["Worst points: " + "; ".join(
            f"{r.dataset} ε = {r.epsilon:g}: {r.regret:+.1f} [{r.regret_low:+.1f}, {r.regret_high:+.1f}] against "
            f"{r.best}" for r in worst.itertuples()), ""]
        columns = ["dataset", "epsilon", "reps", "default", *[c for c in part.columns if c in
                   set(FAMILIES[name].methods) - {FAMILIES[name].default}], "best", "regret", "regret_low",
                   "regret_high", "floor", "floor_low", "floor_high"]
        lines += [markdown_table(part, columns), ""]
    return "\n".join(lines)


#: Gaps (percentage points) for which ``notes_validated`` gives the validation respondents needed.
GAPS = (1.0, 2.5, 5.0, 10.0)


def notes_validated(frame: pd.DataFrame) -> str:
    """The regret table of the validated choice, then the validation respondents it takes
    (``validation.respondents_to_separate``) to switch with 80 % power when a candidate leads the default by a gap."""
    from ..privacy.validation import respondents_to_separate
    from .methods import CANDIDATES, VALIDATION_SHARE

    rows = ["| ε | " + " | ".join(f"{g:g} points" for g in GAPS) + " |", "|---|" + "---|" * len(GAPS)]
    for epsilon in EPSILONS:
        cells = []
        for gap in GAPS:
            per = respondents_to_separate(gap / 100, epsilon, accuracy=0.7, candidates=len(CANDIDATES))
            cells.append(f"{per:,} ({math.ceil(per * len(CANDIDATES) / VALIDATION_SHARE):,})")
        rows.append(f"| {epsilon:g} | " + " | ".join(cells) + " |")
    return "\n".join([
        notes_regret(frame, ("adaptive-validated",)), "",
        "## Validation respondents it takes", "",
        f"Per candidate (and, in brackets, the survey's respondents at a {VALIDATION_SHARE:.0%} validation share with "
        f"{len(CANDIDATES)} candidates) for the choice to switch with 80 % power when one candidate leads the default "
        "(accuracy 70 %) by the gap, at the Bonferroni level over the challengers "
        "(`privacy.validation.respondents_to_separate`; normal approximation):", "", *rows, ""])
