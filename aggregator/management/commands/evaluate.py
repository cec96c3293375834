"""python manage.py evaluate DATA.csv --method M [--epsilon E | --theta T] [--reps R] [--seed S]
[--folds K | --test-size F] [--bins B] [--class-column C] [--numeric COL ...] [--multi COL ...]
[--ordered COL=A,B,C ...] [--json] [--progress auto|on|off]

Runs any method of the lab's registry (``aggregator/lab/methods.py``) on a CSV table the way the papers do
(``aggregator/lab/evaluate.py``) and prints the accuracy beside the non-private Naive Bayes and the majority rule:
a readable table, or with ``--json`` one JSON object. A progress bar goes to stderr, never to stdout.
"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from aggregator.lab import methods
from aggregator.lab.evaluate import DEFAULT_REPS, DEFAULT_TEST_SIZE, Evaluation, evaluate
from aggregator.lab.progress import CommandStderr, ProgressBar
from survey_app.tables import load_table, parse_ordered

PROGRESS = {"auto": None, "on": True, "off": False}
#: Repetitions listed one by one in the readable table.
SHOWN_REPS = 20


def _takers(parameter: str) -> str:
    return ", ".join(m for m in methods.names() if methods.get(m).parameter == parameter)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def _mean_std(mean: float, std: float | None) -> str:
    return f"{_percent(mean)} ± {_percent(std)} %" if std is not None else f"{_percent(mean)} %"


class Command(BaseCommand):
    help = ("Evaluate a method on a CSV table: repeated stratified train/test splits (or K-fold CV), accuracy "
            "mean ± std beside the non-private Naive Bayes and the majority rule.")

    def add_arguments(self, parser):
        parser.add_argument("csv", help="the data (CSV with a header row; the class is the last column by default)")
        parser.add_argument("--method", required=True, choices=methods.names(), metavar="METHOD",
                            help="one of: " + "; ".join(f"{n} — {methods.get(n).summary}" for n in methods.names()))
        parser.add_argument("--epsilon", type=float, default=None,
                            help=f"ε of the ε-DP methods ({_takers('epsilon')}); "
                                 f"default {methods.DEFAULTS['epsilon']:g}")
        parser.add_argument("--theta", type=float, default=None,
                            help=f"θ (probability of a true answer) of the randomized-response methods "
                                 f"({_takers('theta')}); default {methods.DEFAULTS['theta']:g}")
        parser.add_argument("--reps", type=int, default=DEFAULT_REPS,
                            help=f"repetitions of the protocol, each with fresh randomization (default {DEFAULT_REPS})")
        parser.add_argument("--seed", type=int, default=None,
                            help="random seed: the same seed reproduces the result exactly "
                                 "(default: drawn and reported)")
        protocol = parser.add_mutually_exclusive_group()
        protocol.add_argument("--folds", type=int, default=None, metavar="K",
                              help="K-fold stratified cross-validation per repetition (seed 003: 10)")
        protocol.add_argument("--test-size", type=float, default=DEFAULT_TEST_SIZE, metavar="F",
                              help=f"share of rows tested in each stratified split (default {DEFAULT_TEST_SIZE:g}, "
                                   "as seeds 000 and 004 and BASELINES.md)")
        parser.add_argument("--bins", type=int, default=methods.DEFAULT_BINS,
                            help=f"equal-width bins per numeric attribute for the discrete methods, over the column's "
                                 f"minimum and maximum (default {methods.DEFAULT_BINS}, as seed 000 on Diabetes; "
                                 f"Gaussian methods keep numbers)")
        parser.add_argument("--class-column", default=None, metavar="C",
                            help="the class column (default: the last one)")
        parser.add_argument("--numeric", nargs="+", default=None, metavar="COL",
                            help="the numeric columns (default: detected, see aggregator/lab/datasets.py)")
        parser.add_argument("--multi", nargs="+", default=None, metavar="COL",
                            help="select-all columns: a cell lists the choices that apply, separated by \";\" "
                                 "(empty: none); one no/yes attribute per choice, COL__0, COL__1, … (choices sorted), "
                                 "as a survey's select-all question")
        parser.add_argument("--ordered", nargs="+", default=None, metavar="COL=A,B,C",
                            help="ordered columns (a scale) with their values in order")
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
        parser.add_argument("--progress", choices=tuple(PROGRESS), default="auto",
                            help="progress bar on stderr: auto (when stderr is a terminal, the default), on, off")

    def handle(self, *args, **opts):
        method = methods.get(opts["method"])
        given = {p: opts[p] for p in methods.PARAMETERS if opts[p] is not None}
        for parameter in given:
            if parameter != method.parameter:
                takes = f"--{method.parameter}" if method.parameter else "no privacy parameter"
                raise CommandError(f"method {method.name!r} takes {takes}, not --{parameter}")
        try:
            value = method.check(given.get(method.parameter or ""))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        try:
            table = load_table(opts["csv"], class_column=opts["class_column"], numeric=opts["numeric"],
                               multi=opts["multi"], ordered=parse_ordered(opts["ordered"]))
        except FileNotFoundError:
            raise CommandError(f"no such file: {opts['csv']}") from None
        except (OSError, ValueError) as exc:
            raise CommandError(f"{opts['csv']}: {exc}") from None
        description = method.name
        if method.parameter:
            description += f" {methods.PARAMETERS[method.parameter]}={value:g}"
        try:
            with ProgressBar(CommandStderr(self.stderr), description, enabled=PROGRESS[opts["progress"]]) as bar:
                result = evaluate(table, method, value, reps=opts["reps"], seed=opts["seed"], folds=opts["folds"],
                                  test_size=opts["test_size"], bins=opts["bins"], progress=bar,
                                  dataset=str(opts["csv"]))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if opts["json"]:
            self.stdout.write(json.dumps(result.to_dict()))
        else:
            self.stdout.write(self.table(result))

    @staticmethod
    def table(r: Evaluation) -> str:
        name = r.method + (f" ({methods.PARAMETERS[r.parameter]} = {r.value:g})" if r.parameter else "")
        protocol = (f"{r.reps} × stratified {r.folds}-fold cross-validation" if r.folds
                    else f"{r.reps} × stratified split, {100 * (r.test_size or 0):g} % tested")
        rows = [
            ("method", name),
            ("data", f"{r.dataset} ({r.n_rows} rows; {r.n_train} train / {r.n_test} test per fit)"),
            ("protocol", f"{protocol}; seed {r.seed}"),
            ("features", r.features
             + (f", {r.bins} bins per numeric attribute" if r.features in ("discrete", "binary") else "")),
            ("accuracy", _mean_std(r.accuracy_mean, r.accuracy_std)),
            ("non-private NB", _mean_std(r.nonprivate_accuracy, r.nonprivate_std)),
            ("majority rule", _mean_std(r.majority_accuracy, None)),
            ("per repetition", " ".join(_percent(a) for a in r.accuracies[:SHOWN_REPS])
             + (f" … ({len(r.accuracies)} in all; --json lists every one)" if len(r.accuracies) > SHOWN_REPS else "")),
            ("time", f"{r.seconds:.2f} s ({r.method_seconds:.2f} s in the method)"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
