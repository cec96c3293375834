"""Evaluating a method on a table the way the papers do: repeated train/test splits or repeated K-fold CV.

Protocols:

* split (``folds=None``): every repetition draws a stratified random split (``datasets.train_test_split``: in every
  class round(test_size · count) rows are tested), trains on the rest and scores the test rows — seed 000 (80/20,
  100 repetitions) and seed 004 (80/20, 1000 repetitions);
* cross-validation (``folds=K``): every repetition deals the rows into K stratified folds (``stratified_folds``), each
  fold is tested once by a model trained on the other K − 1; the repetition's accuracy is over all n rows — seed 003
  (repeated 10-fold CV).

Each training row is one respondent. Reported: the accuracy of every repetition, their mean and standard deviation
(ddof 1, as ``BASELINES.md``), and beside them the non-private Naive Bayes on the same representation
(``Method.baseline``, the papers' accuracy "without privacy") and the majority rule (the training part's most frequent
class) on the very same splits. ``seconds`` is the whole run's wall time, ``method_seconds`` the part spent training
and predicting with the method itself.

Randomness: a seed (drawn from the OS when none is given, and reported) is expanded by ``numpy.random.SeedSequence``
into two streams per repetition — one for the split, one for the method's randomization. Splits therefore depend on
(seed, repetition) only: every method run with the same seed is tested on the same splits (paired comparisons), and
each repetition randomizes afresh. The same seed reproduces a result exactly.
"""
from __future__ import annotations

import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from survey_app.tables import Table

from . import methods as registry
from .datasets import train_test_split
from .methods import DEFAULT_BINS, Method

__all__ = ["Evaluation", "evaluate", "partitions", "stratified_folds", "DEFAULT_REPS", "DEFAULT_TEST_SIZE"]

DEFAULT_REPS = 10
DEFAULT_TEST_SIZE = 0.2  # as seeds 000 and 004 and data/datasets/BASELINES.md

#: ``progress(done, total)``: called after every fit with the number of fits done and to do.
Progress = Callable[[int, int], None]


def stratified_folds(y: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold index of every row: within each class the rows are shuffled and dealt round-robin, the deal continuing
    from class to class, so fold sizes differ by at most one and every class is spread as evenly as it can be."""
    y = np.asarray(y)
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or not 2 <= folds <= y.size:
        raise ValueError(f"folds must be a whole number in [2, {y.size}] (the number of rows), got {folds!r}")
    fold_of = np.empty(y.size, dtype=np.int64)
    dealt = 0
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        fold_of[rows[rng.permutation(rows.size)]] = (dealt + np.arange(rows.size)) % folds
        dealt += rows.size
    return fold_of


def partitions(table: Table, rng: np.random.Generator, folds: int | None = None,
               test_size: float = DEFAULT_TEST_SIZE) -> Iterator[tuple[Table, Table]]:
    """(train, test) pairs of one repetition: one stratified split, or the K folds of a stratified K-fold CV."""
    if folds is None:
        yield train_test_split(table, test_size, rng)
        return
    fold_of = stratified_folds(table.y, folds, rng)
    for f in range(folds):
        yield table.subset(np.flatnonzero(fold_of != f)), table.subset(np.flatnonzero(fold_of == f))


def _mean_std(values: list[float]) -> tuple[float, float | None]:
    a = np.asarray(values, dtype=np.float64)
    return float(a.mean()), (float(a.std(ddof=1)) if a.size > 1 else None)


@dataclass
class Evaluation:
    """The result of ``evaluate``; ``to_dict`` is the command's ``--json`` object."""

    method: str
    parameter: str | None
    value: float | None
    features: str
    reps: int
    folds: int | None
    test_size: float | None
    bins: int
    seed: int
    n_rows: int
    n_train: int
    n_test: int
    accuracies: list[float] = field(default_factory=list)
    nonprivate_accuracies: list[float] = field(default_factory=list)
    majority_accuracies: list[float] = field(default_factory=list)
    #: With ``compare``: that method's accuracy per repetition, fitted from the very same reports, and whether the two
    #: predicted the same class for every test row.
    compare_accuracies: list[float] = field(default_factory=list)
    identical: list[bool] = field(default_factory=list)
    seconds: float = 0.0
    method_seconds: float = 0.0
    dataset: str | None = None

    @property
    def accuracy_mean(self) -> float:
        return _mean_std(self.accuracies)[0]

    @property
    def accuracy_std(self) -> float | None:
        """Standard deviation over the repetitions (ddof 1); ``None`` with one repetition."""
        return _mean_std(self.accuracies)[1]

    @property
    def nonprivate_accuracy(self) -> float:
        return _mean_std(self.nonprivate_accuracies)[0]

    @property
    def nonprivate_std(self) -> float | None:
        return _mean_std(self.nonprivate_accuracies)[1]

    @property
    def majority_accuracy(self) -> float:
        return _mean_std(self.majority_accuracies)[0]

    def to_dict(self) -> dict:
        """Headline figures first (method, its parameter — "epsilon" or "theta" — and the accuracies), then details."""
        out: dict[str, Any] = {"method": self.method, "parameter": self.parameter}
        if self.parameter:
            out[self.parameter] = self.value
        out.update(accuracy_mean=self.accuracy_mean, accuracy_std=self.accuracy_std,
                   nonprivate_accuracy=self.nonprivate_accuracy, nonprivate_std=self.nonprivate_std,
                   majority_accuracy=self.majority_accuracy,
                   protocol="cross-validation" if self.folds else "split")
        details = asdict(self)
        del details["value"]
        out.update((k, v) for k, v in details.items() if k not in out)
        return out


def evaluate(
    table: Table,
    method: str | Method,
    value: float | None = None,
    *,
    reps: int = DEFAULT_REPS,
    seed: int | None = None,
    folds: int | None = None,
    test_size: float = DEFAULT_TEST_SIZE,
    bins: int = DEFAULT_BINS,
    progress: Progress | None = None,
    dataset: str | None = None,
    compare: str | Method | None = None,
) -> Evaluation:
    """Accuracy of ``method`` (a registry name or ``Method``) with privacy parameter ``value`` (its default when
    ``None``) on ``table`` (as ``load_table`` returns it) over ``reps`` repetitions of the protocol (module docstring).

    ``ValueError`` for an unknown method, a parameter out of range, a table the method cannot take, or bad protocol
    settings — before anything is trained. ``compare`` (split protocol only): a second method fitted, on every
    repetition, from a generator in the same state as the first's — so, for a survey method of the same protocol,
    from the very same reports — whose accuracies and prediction-for-prediction agreement are recorded.
    """
    method = registry.get(method) if isinstance(method, str) else method
    other = registry.get(compare) if isinstance(compare, str) else compare
    if other is not None and folds is not None:
        raise ValueError("compare takes the split protocol (folds=None)")
    value = method.check(value)
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be a whole number ≥ 1, got {reps!r}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins must be a whole number ≥ 2, got {bins!r}")
    if folds is None and not 0 < test_size < 1:
        raise ValueError(f"test_size must lie in (0, 1), got {test_size!r}")
    if folds is not None:
        stratified_folds(table.y, folds, np.random.default_rng(0))  # validates folds before any work
    prepared = method.prepare(table, bins)
    baseline = method.baseline()
    seed = secrets.randbits(63) if seed is None else int(seed)
    fits = reps * (folds or 1)
    result = Evaluation(method.name, method.parameter, value, method.features.name, reps, folds,
                        None if folds else test_size, bins, seed, table.n, 0, 0, dataset=dataset)
    train_sizes, test_sizes = [], []
    start = time.perf_counter()
    for rep_seq in np.random.SeedSequence(seed).spawn(reps):
        split_seq, fit_seq = rep_seq.spawn(2)
        split_rng, fit_rng = np.random.default_rng(split_seq), np.random.default_rng(fit_seq)
        correct = np.zeros(3)  # method, non-private, majority
        tested = 0
        for train, test in partitions(prepared, split_rng, folds, test_size):
            tick = time.perf_counter()
            predicted = method.fit(train, value, fit_rng)(test.X)
            result.method_seconds += time.perf_counter() - tick
            if other is not None:  # the generator in the state the method's fit started from: the same reports
                paired = other.fit(train, value, np.random.default_rng(fit_seq))(test.X)
                result.compare_accuracies.append(float(np.mean(paired == test.y)))
                result.identical.append(bool(np.array_equal(paired, predicted)))
            reference = baseline.fit(train, None, fit_rng)(test.X)
            majority = np.bincount(train.y, minlength=train.class_attribute.size).argmax()
            correct += [np.sum(predicted == test.y), np.sum(reference == test.y), np.sum(test.y == majority)]
            tested += test.n
            train_sizes.append(train.n)
            test_sizes.append(test.n)
            if progress is not None:
                progress(len(train_sizes), fits)
        result.accuracies.append(float(correct[0] / tested))
        result.nonprivate_accuracies.append(float(correct[1] / tested))
        result.majority_accuracies.append(float(correct[2] / tested))
    result.seconds = time.perf_counter() - start
    result.n_train = int(round(np.mean(train_sizes)))
    result.n_test = int(round(np.mean(test_sizes)))
    return result
