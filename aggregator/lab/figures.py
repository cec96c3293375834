"""Reproducing the papers' figures: what a figure is, how its numbers are computed, drawn and written.

A ``Figure`` has a ``compute(reps, seed, progress) -> DataFrame`` (tidy: one row per plotted point) and a
``plot(frame) -> matplotlib Figure``; ``write`` stores ``<key>.csv``, ``<key>.png`` and ``<key>.md`` (the table as
markdown, the reps and seed used, and the figure's own notes) in a folder. The figures themselves — which data sets,
methods and grids each paper's figure uses — are in ``papers.py``; most are ``Curves``: accuracy of some methods
over a grid of ε or θ on some data sets, every point an ``evaluate.evaluate`` run, so every method at every point is
tested on the same splits (one seed for the whole figure).

Every point reports the mean accuracy over the repetitions, their standard deviation (ddof 1), variance and the
standard error of the mean (std/√reps), and the non-private Naive Bayes on the same splits.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np
import pandas as pd

from survey_app.tables import load_table

from .datasets import DATASETS_DIR
from .evaluate import Progress, evaluate
from .methods import get

if TYPE_CHECKING:
    from matplotlib.figure import Figure as Drawing

__all__ = ["Figure", "Curves", "write", "markdown_table", "COLUMNS"]

#: Columns of a curve figure's table.
COLUMNS = ["dataset", "method", "parameter", "value", "reps", "accuracy_mean", "accuracy_std", "accuracy_var",
           "accuracy_se", "nonprivate_accuracy", "majority_accuracy", "n_train", "n_test"]


@dataclass(frozen=True)
class Figure:
    """One figure or table of a paper, reproduced."""

    key: str  #: e.g. "000-fig2"
    title: str
    paper: str  #: where it is in the paper, e.g. "seed 000 (Yilmaz et al.), Fig. 2"
    compute: Callable[[int, int, Progress | None], pd.DataFrame]  #: (reps, seed, progress) -> the table
    plot: Callable[[pd.DataFrame], Drawing]  #: the table -> a matplotlib Figure
    default_reps: int
    notes: Callable[[pd.DataFrame], str] | None = None  #: markdown under the table (tests, derived tables)


@dataclass(frozen=True)
class Curves:
    """Accuracy of ``methods`` over ``grid`` (values of each method's ε or θ; ``None`` for a method without one) on
    ``datasets`` (file names in data/datasets/, without ``.csv``), by repeated 80/20 splits or ``folds``-fold CV.
    ``skip(method, value)`` leaves out points a method cannot take (Warner's model at θ = ½)."""

    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    grid: tuple[float, ...]
    folds: int | None = None
    skip: Callable[[str, float | None], bool] = field(default=lambda method, value: False)
    #: True: a point whose fit the engine refuses (``ValueError``: e.g. a table too small for some question to get the
    #: reports the estimator needs) is a row without accuracies (NaN) whose ``unfit`` column says why, instead of
    #: stopping the whole figure.
    keep_unfit: bool = False

    def points(self) -> list[tuple[str, str, float | None]]:
        out = []
        for dataset in self.datasets:
            for method in self.methods:
                values = self.grid if get(method).parameter else (None,)
                out += [(dataset, method, v) for v in values if not self.skip(method, v)]
        return out

    def load(self, name: str):
        """The table of the data set ``name`` (a subclass may read preprocessing variants)."""
        return load_table(DATASETS_DIR / f"{name}.csv")

    def compute(self, reps: int, seed: int, progress: Progress | None = None) -> pd.DataFrame:
        points = self.points()
        tables = {name: self.load(name) for name in self.datasets}
        rows = []
        for i, (dataset, method, value) in enumerate(points):
            try:
                e = evaluate(tables[dataset], method, value, reps=reps, seed=seed, folds=self.folds, dataset=dataset)
            except ValueError as exc:
                if not self.keep_unfit:
                    raise
                rows.append({"dataset": dataset, "method": method, "value": value, "reps": reps,
                             "accuracy_mean": math.nan, "accuracies": "", "unfit": str(exc)})
                if progress is not None:
                    progress(i + 1, len(points))
                continue
            acc = np.asarray(e.accuracies)
            std = float(acc.std(ddof=1)) if reps > 1 else math.nan
            rows.append({"dataset": dataset, "method": method, "parameter": e.parameter, "value": value, "reps": reps,
                         "accuracy_mean": float(acc.mean()), "accuracy_std": std, "accuracy_var": std ** 2,
                         "accuracy_se": std / math.sqrt(reps), "nonprivate_accuracy": e.nonprivate_accuracy,
                         "majority_accuracy": e.majority_accuracy,
                         "n_train": e.n_train, "n_test": e.n_test, "accuracies": " ".join(f"{a:.6f}" for a in acc)})
            if progress is not None:
                progress(i + 1, len(points))
        return pd.DataFrame(rows)


# -- drawing ------------------------------------------------------------------------------------------------------
def plot_curves(frame: pd.DataFrame, y: str = "accuracy_mean", error: str | None = "accuracy_se",
                ylabel: str = "accuracy", log_x: bool = False, baseline: bool = True):
    """One panel per data set: ``y`` over the parameter per method, ±1.96·``error`` bars (95 % interval of the mean),
    the non-private Naive Bayes dotted (as seed 000 draws it)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    datasets = list(dict.fromkeys(frame["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 4), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=True):
        part = frame[frame["dataset"] == dataset]
        for i, method in enumerate(dict.fromkeys(part["method"])):
            color = f"C{i % 10}"
            curve = part[(part["method"] == method) & part["value"].notna()].sort_values("value")
            if curve.empty:  # a method without a parameter: a level line
                ax.axhline(part[part["method"] == method][y].iloc[0], color=color, linestyle="--", linewidth=1,
                           label=method)
                continue
            yerr = 1.96 * curve[error] if error else None
            ax.errorbar(curve["value"], curve[y], yerr=yerr, color=color, marker="o", markersize=3, capsize=2,
                        label=method)
        if baseline and "nonprivate_accuracy" in part:
            ax.axhline(part["nonprivate_accuracy"].mean(), color="black", linestyle=":", linewidth=1,
                       label="Naive Bayes, no privacy")
        parameter = part["parameter"].dropna()
        ax.set_xlabel({"epsilon": "ε", "theta": "θ"}.get(parameter.iloc[0] if len(parameter) else "", "parameter"))
        if log_x:
            ax.set_xscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(dataset)
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


# -- writing ------------------------------------------------------------------------------------------------------
def _cell(value) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def markdown_table(frame: pd.DataFrame, columns: list[str] | None = None) -> str:
    columns = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for _, row in frame.iterrows()]
    return "\n".join(lines)


SHOWN = ["dataset", "method", "value", "accuracy_mean", "accuracy_std", "accuracy_se", "nonprivate_accuracy"]


def write(figure: Figure, frame: pd.DataFrame, out_dir: Path, reps: int, seed: int) -> list[Path]:
    """Store the figure's CSV, PNG and markdown page in ``out_dir``; returns their paths."""
    from matplotlib import pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{figure.key}.{ext}" for ext in ("csv", "png", "md")]
    frame.to_csv(paths[0], index=False)
    drawn = figure.plot(frame)
    drawn.savefig(paths[1], dpi=110)
    plt.close(drawn)
    shown = [c for c in SHOWN if c in frame.columns] or list(frame.columns)
    page = [f"# {figure.title}", "", f"Reproduces {figure.paper}. `python manage.py reproduce {figure.key} "
            f"--reps {reps} --seed {seed}` wrote this page, [{paths[0].name}]({paths[0].name}) and the plot.", "",
            f"![{figure.key}]({paths[1].name})", "", markdown_table(frame, shown)]
    if figure.notes is not None:
        page += ["", figure.notes(frame)]
    paths[2].write_text("\n".join(page) + "\n")
    return paths
