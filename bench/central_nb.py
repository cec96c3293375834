"""Central ε-DP Naive Bayes: seed 003's faithful algorithm vs the robust variant vs IBM diffprivlib (issue 13 item 5).

    .venv/bin/python -m bench.central_nb                 # rewrites docs/results/central-robust.{md,csv}
    .venv/bin/python -m bench.central_nb --reps 5 --out /tmp/x   # quick look elsewhere

Every (data set, method, ε) runs through ``aggregator.lab.evaluate`` with the same seed, so all methods of a data set
are tested on the same stratified 80/20 splits (paired), beside the non-private Naive Bayes and the majority rule on
those splits. Data sets: the bundled ones the central methods already run on (docs/results/003-fig2, 002-smooth,
001-synthetic), adult (all 13 attributes), a fixed random 1,000-row sample of adult (small n), and adult's five
numeric columns with the bounds diffprivlib's own notebook gives (``ADULT_BOUNDS``) — there diffprivlib's
``GaussianNB`` (a benchmark-only peer, requirements-bench.txt; the product never imports it) runs on the very same
splits. Its notebook (notebooks/naive_bayes.ipynb) reports 79.64 % non-private (scikit-learn) and 78.42 % at ε = 0.1
(one fit, random_state=0) on adult's fixed train/test files; ours are repeated random splits of the 48,842 rows.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from aggregator.lab.datasets import DATASETS_DIR
from aggregator.lab.evaluate import evaluate
from aggregator.lab.methods import NUMERIC, Method
from survey_app.tables import Table, load_table

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results"
EPSILONS = (0.05, 0.1, 0.5, 1.0, 5.0)
SMALL = ("vote", "mushroom", "breast_cancer", "diabetes", "glass")
METHODS = ("central-laplace", "central-robust")
#: diffprivlib's notebook: columns (0, 4, 10, 11, 12) of adult and these bounds.
ADULT_BOUNDS = {"age": (17.0, 100.0), "education_num": (1.0, 16.0), "capital_gain": (0.0, 100000.0),
                "capital_loss": (0.0, 4500.0), "hours_per_week": (1.0, 100.0)}
ADULT_SAMPLE = 1000


def adult_numeric(table: Table) -> Table:
    """Adult's five numeric columns with diffprivlib's public bounds (every value lies inside them)."""
    from aggregator.privacy.schema import Numeric
    index = [table.columns.index(name) for name in ADULT_BOUNDS]
    attributes = tuple(Numeric(name, lo, hi) for name, (lo, hi) in ADULT_BOUNDS.items())
    X = table.X[:, index]
    lows, highs = np.array([b[0] for b in ADULT_BOUNDS.values()]), np.array([b[1] for b in ADULT_BOUNDS.values()])
    assert np.all(X >= lows) and np.all(X <= highs)
    return replace(table, attributes=attributes, X=X, columns=tuple(ADULT_BOUNDS))


def diffprivlib_method() -> Method | None:
    try:
        import diffprivlib
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import GaussianNB
    except ImportError:
        return None
    version = diffprivlib.__version__

    def fit(table: Table, epsilon, rng: np.random.Generator):
        bounds = ([a.low for a in table.attributes], [a.high for a in table.attributes])
        clf = GaussianNB(epsilon=epsilon, bounds=bounds, random_state=int(rng.integers(2**31)),
                         accountant=BudgetAccountant())
        clf.fit(table.X, table.y)
        return clf.predict

    return Method(f"diffprivlib-{version}", "IBM diffprivlib GaussianNB with the given bounds", fit,
                  parameter="epsilon", features=NUMERIC)


def run(reps: int, seed: int, log) -> pd.DataFrame:
    adult = load_table(DATASETS_DIR / "adult.csv")
    sample = adult.subset(np.sort(np.random.default_rng(0).choice(adult.n, ADULT_SAMPLE, replace=False)))
    tables = {name: load_table(DATASETS_DIR / f"{name}.csv") for name in SMALL}
    tables.update({"adult": adult, f"adult-{ADULT_SAMPLE}": sample, "adult-numeric": adult_numeric(adult)})
    peer = diffprivlib_method()
    if peer is None:
        log("diffprivlib is not installed: its rows are left out (pip install -r requirements-bench.txt)")
    rows = []
    for name, table in tables.items():
        methods: list[str | Method] = list(METHODS)
        if name == "adult-numeric" and peer is not None:
            methods.append(peer)
        for eps in EPSILONS:
            for method in methods:
                tick = time.perf_counter()
                r = evaluate(table, method, eps, reps=reps, seed=seed, dataset=name)
                acc = np.asarray(r.accuracies)
                half = 1.96 * acc.std(ddof=1) / math.sqrt(acc.size) if acc.size > 1 else float("nan")
                rows.append({"dataset": name, "n_train": r.n_train, "method": r.method, "epsilon": eps,
                             "accuracy_mean": acc.mean(), "ci95_low": acc.mean() - half,
                             "ci95_high": acc.mean() + half, "accuracy_std": acc.std(ddof=1) if acc.size > 1 else 0,
                             "below_majority": float(np.mean(acc < np.asarray(r.majority_accuracies) - 0.01)),
                             "nonprivate_accuracy": r.nonprivate_accuracy, "majority_accuracy": r.majority_accuracy,
                             "reps": reps, "accuracies": " ".join(f"{a:.5f}" for a in acc)})
                log(f"{name} {r.method} ε={eps}: {acc.mean():.4f} ± {half:.4f} ({time.perf_counter() - tick:.1f} s)")
    return pd.DataFrame(rows)


#: What the table shows (numbers quoted from the seed-0, 100-repetition run; rerunning with that seed reproduces them).
NOTES = """
## Reading

* **The flip, on adult.** Seed 003's faithful model swings between classes at every ε ≤ 1 even on 39,074 training
  rows: standard deviation 17–18 points over splits, 27–73 % of splits more than a point below the majority rule
  (62–70 % mean accuracy; majority 76.1 %). The robust variant: 79.5–84.0 %, standard deviation ≤ 2.4, at most 2 % of
  splits below the majority. On 800 training rows (adult-1000, the issue's setting) at ε = 1: faithful 62.2 %
  (sd 18.1, 60 % of splits below the majority), robust 77.3 % (sd 3.1).
* **Against diffprivlib** (adult's five numeric columns, its notebook's bounds, the same splits): robust 79.6 / 79.9 /
  79.9 / 80.2 / 79.7 % at ε = 0.05 / 0.1 / 0.5 / 1 / 5, diffprivlib 76.0 / 77.7 / 79.2 / 79.6 / 79.9 %, non-private
  79.6 %. diffprivlib at ε = 0.1, 77.7 % (95 % CI 77.2–78.2, sd 2.5), agrees with the single 78.4 % of its notebook;
  at ε ≤ 0.5 the robust variant is higher and steadier (sd 0.4–0.8 against 0.9–4.8), at ε = 5 both are at the
  non-private level. Robust slightly exceeds the unsmoothed non-private NB here: the shrinkage and variance floor
  regularise.
* **Small data.** breast_cancer (229 rows): faithful falls below the majority in 70–88 % of splits at ε ≤ 1;
  robust stays at the majority (69.8–69.9 % at ε = 0.5–1) and beats it at ε = 5. diabetes (614 rows, all numeric):
  faithful never reaches the majority, even at ε = 5 (57.5 %: noise-floored σ veto classes); robust 65.0 % at
  ε = 0.5 and 74.6 % at ε = 5 (non-private 75.7 %).
* **Where robust is worse: the class counts themselves are swamped.** vote at ε ≤ 0.1 (58.4 % against faithful's
  73.0 % at 0.1) and glass at ε ≤ 0.1 (25.0 % against 32.1 %). vote at ε = 0.1: ε₀ = 0.0136, Laplace scale 74
  (before pooling with the tables) on counts that differ by 80 rows; glass: six classes of 7–61 rows against
  scale 53. argmax P(c) is then a guess and
  the robust model, having shrunk the conditionals away, follows it. Faithful's steadiness on glass is not
  information it was granted: its numeric noise scales (u − l)/(n_c·ε') shrink with the private n_c, so the largest
  class gets the least noise and wins — observed: with its noisy prior favouring class 3 (0.64 against 0.36) it
  predicted class 1, the largest, for every test row. That is the same dependence on n_c that leaves it without a
  finite ε under add/remove (``laplace_nb``'s docstring). On vote, its α-floored conditionals act as veto votes whose
  pattern still carries the data's sign; the robust variant's ρ lower bound discards that weak signal.
"""


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def markdown(frame: pd.DataFrame, reps: int, seed: int, command: str, peer: str | None) -> str:
    lines = [
        "# Central ε-DP Naive Bayes that does not flip: faithful (seed 003) vs robust vs diffprivlib",
        "",
        f"`{command}` wrote this page and [central-robust.csv](central-robust.csv) (every repetition's accuracy); "
        f"seed {seed}, {reps} stratified 80/20 splits per point, the same splits for every method of a data set.",
        "",
        "* **central-laplace** — seed 003's Algorithm 1 as SPEC §6 prescribes (`privacy.central.laplace_nb`).",
        "* **central-robust** — `privacy.central.robust_nb`: ε₀ = ε·m^⅓/(m^⅓ + m) to the class counts, ε/(m^⅓ + m) "
        "per attribute; per-class sums (Σz, Σz²) with public sensitivity for numeric attributes; noisy counts clamped "
        "at 0, class counts pooled with the tables' column sums; every conditional shrunk toward the "
        "class-independent marginal with a weight from its exactly known noise variance; variance floor.",
        f"* **{peer or 'diffprivlib'}** — IBM diffprivlib's `GaussianNB` with the bounds of its own notebook "
        "(adult-numeric only: age, education_num, capital_gain, capital_loss, hours_per_week). Its notebook reports "
        "79.6 % non-private and 78.4 % at ε = 0.1 (one fit) on adult's fixed train/test files.",
        "",
        "Accuracy in %: mean over the splits with its 95 % interval (±1.96 standard errors), the standard deviation "
        "over splits (the flipping shows here), the share of splits more than 1 point below the majority rule, and "
        "the non-private Naive Bayes (unsmoothed, `nonprivate`) and the majority rule on the same splits.",
        "",
        "| data set | n train | method | ε | accuracy % (95 % CI) | sd | below majority | non-private | majority |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in frame.iterrows():
        lines.append(f"| {r.dataset} | {r.n_train} | {r.method} | {r.epsilon:g} | {_pct(r.accuracy_mean)} "
                     f"({_pct(r.ci95_low)}–{_pct(r.ci95_high)}) | {_pct(r.accuracy_std)} | "
                     f"{100 * r.below_majority:.0f} % | {_pct(r.nonprivate_accuracy)} | {_pct(r.majority_accuracy)} |")
    return "\n".join(lines) + "\n" + NOTES


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    frame = run(args.reps, args.seed, lambda msg: print(msg, file=sys.stderr, flush=True))
    peer = diffprivlib_method()
    command = ".venv/bin/python -m bench.central_nb" + (f" --reps {args.reps}" if args.reps != 100 else "") + \
        (f" --seed {args.seed}" if args.seed else "")
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "central-robust.csv", index=False)
    text = markdown(frame.drop(columns="accuracies"), args.reps, args.seed, command, peer.name if peer else None)
    (args.out / "central-robust.md").write_text(text + f"\nWall time: {time.perf_counter() - start:.0f} s on 2 "
                                                       "shared cores.\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
