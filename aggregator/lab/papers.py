"""The papers' figures and tables that ``manage.py reproduce`` regenerates (docs/results/ compares them).

Data sets are the bundled ones (data/datasets/, with their provenance): where a paper used a data set we do not
have, the figure runs on the ones we have (each figure's ``paper`` says which). Grids are the papers' own unless
the docstring of the figure says otherwise; default repetitions are chosen so that ``reproduce all`` runs in
minutes here (the papers used 100 or 1,000), and every point carries its standard error, so the figures show how
far each mean may be from the papers' longer averages.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..privacy.pse import pse_binary
from .datasets import load_dataset
from .evaluate import Progress
from .figures import Curves, Figure, markdown_table, plot_curves
from .regret import EPSILONS as REGRET_EPSILONS
from .regret import PackageCurves, RegretCurves, notes_regret, notes_validated, plot_regret

__all__ = ["FIGURES"]

#: Seed 000 (Yilmaz et al., LDP Naive Bayes): "varying ε values up to 5", 80/20 splits.
EPSILONS_000 = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0)
#: Seed 004 (Du & Zhan, MRR), §5.1: θ = 0, 0.05, 0.1, 0.2, …, 1 (θ = 0 is left out: the estimate is undefined —
#: nothing of the private answers is left — and the paper plots no variance there either).
THETAS_004 = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Seed 003 (SECRYPT 2021), its set E of privacy levels; repeated 10-fold cross-validation.
EPSILONS_003 = (1e-11, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0)
#: Seed 002: ε from strong to weak privacy (our grid; its plots span about this range).
EPSILONS_CENTRAL = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
#: Seed 001 §5: "ε from 0 up to 1.5" (ε = 0 itself is no mechanism: left out).
EPSILONS_001 = (0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)

#: Seed 000 Fig. 2's frequency oracles, and our adaptive choice. Deliberately a fixed list, not ``oracles.names()``:
#: registering a new oracle adds a lab method (``methods.oracle_method``) but does not change a reproduced figure.
LDP_ORACLES = ("de", "sue", "oue", "she", "the", "olh", "adaptive")


@dataclass(frozen=True)
class DatasetCurves(Curves):
    """``Curves`` whose data set keys may name a preprocessing variant (``datasets.load_dataset``: ``"adult-median"``
    is adult.csv with its numeric columns binarized at the median); the same table and columns as ``Curves``."""

    def load(self, name: str):
        return load_dataset(name)


#: Seed 004 on Adult: the paper's preprocessing (numeric attributes split at the median; ``midrange``, the
#: other reading of §5.1's "median point of the range") beside ours (4 equal-width bins, the lab's default).
ADULT_004 = ("adult-median", "adult-midrange", "adult")
ADULT_004_FIG7 = ("adult-median", "adult")


def _curves(key, title, paper, curves: Curves, reps: int, *, log_x=False, notes=None) -> Figure:
    return Figure(key, title, paper, curves.compute, lambda frame: plot_curves(frame, log_x=log_x), reps, notes)


# -- seed 004: variance figures, the PSE plot, related vs unrelated question ---------------------------------------
def _plot_variance(frame: pd.DataFrame):
    return plot_curves(frame, y="accuracy_var", error=None, ylabel="variance of the accuracy", baseline=False)


def _pse_table(reps: int, seed: int, progress: Progress | None = None) -> pd.DataFrame:
    """Seed 004 Fig. 6: PSE before mining of a binary attribute with P(A=1) = W_a, personal answers with W_y = ½."""
    w_a = np.array([0.1, 0.2, 0.3, 0.4, 0.5])[:, None]
    theta = np.round(np.linspace(0.0, 1.0, 11), 2)[None, :]
    pse = pse_binary(w_a, theta, 0.5)
    return pd.DataFrame([{"dataset": "binary attribute", "method": f"W_a = {w:.1f}", "parameter": "theta",
                          "value": float(t), "pse": float(p)}
                         for w, row in zip(w_a[:, 0], pse, strict=True) for t, p in zip(theta[0], row, strict=True)])


def _plot_pse(frame: pd.DataFrame):
    return plot_curves(frame, y="pse", error=None, ylabel="PSE before mining", baseline=False)


def _is_warner_at_half(method: str, value) -> bool:
    return method == "warner" and value == 0.5  # the related-question model cannot be inverted at θ = ½


# -- seed 003: Table 2, Fig. 3 and the Wilcoxon tests ------------------------------------------------------------
PRIVATE_003 = {"central-laplace": "NB", "dp-svm": "SVM", "dp-tree": "DT"}
PUBLIC_003 = {"nonprivate-add1": "NB", "svm": "SVM", "tree": "DT"}


def notes_003(frame: pd.DataFrame) -> str:
    """Seed 003's Table 2 (accuracy without privacy, average ε-DP accuracy over E, their ratio), Fig. 3 (average over
    the data sets per ε) and its Wilcoxon signed-rank tests between the ε-DP classifiers over every (data set, ε)."""
    private = frame[frame["method"].isin(list(PRIVATE_003))].assign(classifier=lambda f: f["method"].map(PRIVATE_003))
    public = frame[frame["method"].isin(list(PUBLIC_003))].assign(classifier=lambda f: f["method"].map(PUBLIC_003))
    rows = []
    for classifier in ("NB", "SVM", "DT"):
        row = {"classifier": classifier}
        for dataset in dict.fromkeys(frame["dataset"]):
            none = public[(public["classifier"] == classifier) & (public["dataset"] == dataset)]["accuracy_mean"].mean()
            dp = private[(private["classifier"] == classifier)
                         & (private["dataset"] == dataset)]["accuracy_mean"].mean()
            row |= {f"{dataset} no privacy": none, f"{dataset} ε-DP average": dp, f"{dataset} ratio": dp / none}
        rows.append(row)
    table2 = pd.DataFrame(rows)
    fig3 = private.pivot_table(index="value", columns="classifier", values="accuracy_mean",
                               aggfunc="mean").reset_index()
    tests = []
    wide = private.pivot_table(index=["dataset", "value"], columns="classifier", values="accuracy_mean")
    for a, b in (("NB", "SVM"), ("NB", "DT"), ("SVM", "DT")):
        d = (wide[a] - wide[b]).to_numpy()
        result = stats.wilcoxon(wide[a], wide[b], zero_method="pratt")
        tests.append({"pair": f"{a} vs {b}", "N": len(d), "mean difference": float(d.mean()),
                      "statistic T": float(result.statistic), "p-value": float(result.pvalue),
                      "different at 0.05": "yes" if result.pvalue <= 0.05 else "no"})
    return "\n".join([
        "## Table 2: accuracy without privacy, average ε-DP accuracy over E, ratio", "",
        markdown_table(table2), "",
        "## Fig. 3: average accuracy over the data sets, per ε", "",
        markdown_table(fig3.rename(columns={"value": "ε"})), "",
        "## Wilcoxon signed-rank tests between the ε-DP classifiers (pairs: every data set × ε; zeros split, "
        "scipy.stats.wilcoxon zero_method='pratt')", "", markdown_table(pd.DataFrame(tests)),
    ])


# -- the Naive Bayes estimator under noise -----------------------------------------------------------------------------
def estimators(base: str) -> dict[str, str]:
    """The three NB estimators of a mechanism (``base``: "oue", "mrr", …) and their labels."""
    return {base: "bayes (new default)", f"{base}-normsub": "norm-sub (old default)", f"{base}-neg1": "neg1 (seed 000)"}


ESTIMATORS = estimators("oue")


def _paired(a: str, b: str) -> tuple[float, float]:
    """Mean and 95 % half-width (1.96 standard errors) of the paired difference a − b of per-repetition accuracies
    (same splits: ``evaluate``'s paired seeds)."""
    x = np.array(a.split(), dtype=float) - np.array(b.split(), dtype=float)
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def notes_estimators(frame: pd.DataFrame) -> str:
    """Per data set and privacy value: each estimator's mean accuracy ± 95 % interval, the majority rule, and the
    paired differences of the new default against the old default and against seed 000's rule, with a verdict
    ("better"/"worse": the 95 % interval of the paired difference excludes 0)."""
    bases = [m for m in dict.fromkeys(frame["method"]) if f"{m}-normsub" in set(frame["method"])]
    rows = []
    for base in bases:
        names = estimators(base)
        for (dataset, value), part in frame[frame["method"].isin(list(names))].groupby(["dataset", "value"],
                                                                                          sort=False):
            by = {r["method"]: r for _, r in part.iterrows()}
            if not all(m in by for m in names):
                continue
            parameter = PARAMETER_SYMBOLS.get(by[base]["parameter"], "value")
            row = {"dataset": dataset, "mechanism": base, parameter: value}
            for method, label in names.items():
                r = by[method]
                row[label] = f"{100 * r['accuracy_mean']:.1f} ± {100 * 1.96 * r['accuracy_se']:.1f}"
            if "majority_accuracy" in by[base]:
                row["majority"] = f"{100 * by[base]['majority_accuracy']:.1f}"
            for other, name in ((f"{base}-normsub", "old"), (f"{base}-neg1", "neg1")):
                d, h = _paired(by[base]["accuracies"], by[other]["accuracies"])
                verdict = "better" if d - h > 0 else ("worse" if d + h < 0 else "tie")
                row[f"new − {name}"] = f"{100 * d:+.1f} ± {100 * h:.1f} ({verdict})"
            rows.append(row)
    return "\n".join(["## Paired comparison (percentage points; ± = 95 % interval; every method on the same splits)",
                      "", markdown_table(pd.DataFrame(rows))])


PARAMETER_SYMBOLS = {"epsilon": "ε", "theta": "θ"}

#: Beyond the seeds: a survey mixing categorical and numeric questions (``MixedProtocol``, Gaussian Approach 3 for the
#: numbers) against the discretized frequency-oracle survey, on adult (8 categorical + 5 numeric questions).
EPSILONS_MIXED = (0.5, 1.0, 2.0, 4.0)
MIXED_METHODS = ("gauss-sample", "oue", "adaptive")


def notes_mixed(frame: pd.DataFrame) -> str:
    """Per data set and ε: each method's mean accuracy ± 95 % interval, the paired difference of the mixed survey
    (gauss-sample) against each discretized one with a verdict ("better"/"worse": its 95 % interval excludes 0), Naive
    Bayes without privacy in both representations and the majority rule."""
    rows = []
    for (dataset, value), part in frame.groupby(["dataset", "value"], sort=False):
        by = {r["method"]: r for _, r in part.iterrows()}
        if "gauss-sample" not in by:
            continue
        row = {"dataset": dataset, "ε": value}
        for method in MIXED_METHODS:
            if method in by:
                row[method] = f"{100 * by[method]['accuracy_mean']:.1f} ± {100 * 1.96 * by[method]['accuracy_se']:.1f}"
        for method in MIXED_METHODS[1:]:
            if method in by:
                d, h = _paired(by["gauss-sample"]["accuracies"], by[method]["accuracies"])
                verdict = "better" if d - h > 0 else ("worse" if d + h < 0 else "tie")
                row[f"gauss-sample − {method}"] = f"{100 * d:+.1f} ± {100 * h:.1f} ({verdict})"
        row["no privacy, mixed"] = f"{100 * by['gauss-sample']['nonprivate_accuracy']:.1f}"
        if "oue" in by:
            row["no privacy, 4 bins"] = f"{100 * by['oue']['nonprivate_accuracy']:.1f}"
        row["majority"] = f"{100 * by['gauss-sample']['majority_accuracy']:.1f}"
        rows.append(row)
    return "\n".join(["## Paired comparison (percent; ± = 95 % interval; every method on the same splits)", "",
                      markdown_table(pd.DataFrame(rows))])


# -- a public reference sample as the conditionals' prior (privacy.public_prior) ---------------------------------------
#: Tables with more than 500 training rows take every sample size; the smaller ones 50 and 100.
PUBLIC_LARGE = ("adult", "mushroom", "sklearn-digits17")
PUBLIC_SMALL = ("vote", "breast_cancer", "sklearn-wine")


def _public_prior_table(reps: int, seed: int, progress: Progress | None = None) -> pd.DataFrame:
    """The default, the default with a public sample of 50/100/500 held-out rows as its conditionals' prior, and Naive
    Bayes from each sample alone, over ε."""
    from .methods import PUBLIC_ROWS

    def methods(sizes):
        return ("adaptive", *(f"adaptive-public{r}" for r in sizes), *(f"public{r}-only" for r in sizes))

    parts = [PackageCurves(PUBLIC_LARGE, methods(PUBLIC_ROWS), REGRET_EPSILONS, keep_unfit=True),
             PackageCurves(PUBLIC_SMALL, methods(tuple(r for r in PUBLIC_ROWS if r < 500)), REGRET_EPSILONS,
                           keep_unfit=True)]
    total = sum(len(part.points()) for part in parts)
    frames, done = [], 0

    def step(i: int, n: int) -> None:
        if progress is not None:
            progress(done + i, total)

    for part in parts:
        frames.append(part.compute(reps, seed, step))
        done += len(part.points())
    return pd.concat(frames, ignore_index=True)


def _notes_public_prior(frame: pd.DataFrame) -> str:
    """Per table and ε, the gain of each public sample over the default and over the sample alone (points)."""
    lines = ["## What a public sample buys", "",
             "Mean accuracy in points: the default with the sample as its prior minus the default without it "
             "(`+default`), and minus Naive Bayes from the sample alone (`+alone`).", "",
             "| dataset | ε | rows | default | with the sample | alone | +default | +alone |",
             "|---|---|---|---|---|---|---|---|"]
    if "unfit" in frame:  # e.g. wine: 100 held-out rows leave 42 respondents, too few for every question
        unfit = frame[frame["unfit"].notna()]
        if len(unfit):
            lines[1:1] = ["", "Points the engine could not fit (left out): " + "; ".join(
                f"{r.dataset} {r.method} ε = {r.value:g} ({r.unfit})" for r in unfit.itertuples())]
    mean = frame.set_index(["dataset", "method", "value"])["accuracy_mean"]
    for dataset, value in dict.fromkeys(zip(frame["dataset"], frame["value"], strict=True)):
        base = mean.get((dataset, "adaptive", value))
        for rows in (50, 100, 500):
            prior = mean.get((dataset, f"adaptive-public{rows}", value))
            alone = mean.get((dataset, f"public{rows}-only", value))
            if base is None or prior is None or alone is None or np.isnan([base, prior, alone]).any():
                continue
            lines.append(f"| {dataset} | {value:g} | {rows} | {100 * base:.1f} | {100 * prior:.1f} | {100 * alone:.1f} "
                         f"| {100 * (prior - base):+.1f} | {100 * (prior - alone):+.1f} |")
    return "\n".join(lines)


FIGURES: list[Figure] = [
    _curves("000-fig2", "LDP Naive Bayes on discrete data: accuracy over ε per frequency oracle",
            "seed 000 (Yilmaz, Al-Rubaie & Chang), Fig. 2 — on mushroom (as the paper), vote and breast_cancer (the "
            "paper's Car, Chess and Connect-4 are not bundled)",
            Curves(("mushroom", "vote", "breast_cancer"), LDP_ORACLES, EPSILONS_000), reps=100),
    _curves("000-defaults", "Our defaults against seed 000's own choices: the posterior-mean estimator (our default) "
            "vs the simplex projection alone (the default before, \"-normsub\") vs the paper's "
            "negative→1 post-processing (\"-neg1\") for DE, OUE and OLH, and THE's variance-optimal threshold vs "
            "its 0.25",
            "seed 000, §2.2 and §4 (its post-processing and THE threshold) — on mushroom and vote",
            Curves(("mushroom", "vote"), ("de", "de-normsub", "de-neg1", "oue", "oue-normsub", "oue-neg1", "olh",
                                          "olh-normsub", "olh-neg1", "the", "the-0.25"), EPSILONS_000), reps=100),
    _curves("013-allocation", "Adaptive allocation of respondents: OUE with the uniform assignment, with the "
            "assignment a held-out public pilot of 100 rows sets, and with the one re-estimated after a first wave "
            "(privacy.allocation)",
            "beyond the seeds: at a fixed number of respondents, spend them where they reduce the "
            "classification error most",
            Curves(("mushroom", "vote", "breast_cancer"), ("oue", "oue-pilot", "oue-rounds"), EPSILONS_000), reps=100),
    _curves("000-fig2-adult", "LDP Naive Bayes on adult (13 questions + class, numeric ones in 4 equal-width bins): "
            "accuracy over ε per frequency oracle",
            "seed 000, Fig. 2 — on adult (a separate key, adult having 48,842 rows)",
            Curves(("adult",), LDP_ORACLES, EPSILONS_000), reps=100),
    _curves("000-defaults-adult", "Our defaults against seed 000's own choices on adult: our estimator vs its "
            "negative→1 post-processing (DE, OUE, OLH) and THE's variance-optimal threshold vs its 0.25",
            "seed 000, §2.2 and §4 — on adult",
            Curves(("adult",), ("de", "de-neg1", "oue", "oue-neg1", "olh", "olh-neg1", "the", "the-0.25"),
                   EPSILONS_000), reps=100),
    _curves("nb-estimators", "LDP Naive Bayes estimators under noise: posterior means from each "
            "estimate's standard error (bayes, the default) against Norm-Sub alone (the old default) and seed 000's "
            "negative→1, all with OUE, one report per respondent",
            "seed 000's grid and protocol (80/20 splits, 100 repetitions) — on mushroom, vote, breast_cancer and adult",
            Curves(("mushroom", "vote", "breast_cancer", "adult"), tuple(ESTIMATORS), EPSILONS_000), reps=100,
            notes=notes_estimators),
    _curves("nb-estimators-mrr", "MRR Naive Bayes estimators under noise: posterior means (bayes, the "
            "default) against Norm-Sub alone and seed 000's negative→1, over θ",
            "seed 004's grid and protocol (80/20 splits; 100 repetitions here, the paper used 1,000) — on mushroom, "
            "vote, breast_cancer and adult",
            Curves(("mushroom", "vote", "breast_cancer", "adult"), tuple(estimators("mrr")), THETAS_004), reps=100,
            notes=notes_estimators),
    _curves("mixed", "A survey mixing categorical and numeric questions on adult: LDP Naive Bayes with the numeric "
            "questions kept as numbers (Gaussian Approach 3, gauss-sample; one report per respondent) against the "
            "numeric questions cut into 4 equal-width bins (OUE, and the adaptive oracle choice)",
            "beyond the seeds: seed 000's protocol (80/20 splits) on adult, 8 categorical + 5 "
            "numeric questions; 100 repetitions",
            Curves(("adult",), MIXED_METHODS, EPSILONS_MIXED), reps=100, notes=notes_mixed),
    _curves("000-fig3", "LDP Naive Bayes on continuous data, discretized into 4 bins: DE and OUE on the original "
            "features, on 6 PCA and on 1 DCA component",
            "seed 000, Fig. 3 (c, d) — Diabetes (Australian is not bundled)",
            Curves(("diabetes",), ("de", "oue", "de-pca6", "oue-pca6", "de-dca1", "oue-dca1"), EPSILONS_000), reps=100),
    _curves("000-fig4", "LDP Gaussian Naive Bayes, Approaches 1–3, on the original features and on one PCA or DCA "
            "component", "seed 000, Fig. 4 — Diabetes",
            Curves(("diabetes",), ("gauss-laplace", "gauss-onebit", "gauss-sample", "gauss-laplace-pca1",
                                   "gauss-onebit-pca1", "gauss-sample-pca1", "gauss-laplace-dca1", "gauss-onebit-dca1",
                                   "gauss-sample-dca1"), EPSILONS_000), reps=100),
    _curves("004-fig2-3", "MRR (unrelated question): mean accuracy over θ",
            "seed 004 (Du & Zhan), Figs. 2–3 — breast_cancer (as the paper's Fig. 3) and vote (the paper's Adult "
            "is not bundled)", Curves(("breast_cancer", "vote"), ("mrr",), THETAS_004), reps=1000),
    Figure("004-fig4-5", "MRR (unrelated question): variance of the accuracy over θ", "seed 004, Figs. 4–5",
           Curves(("breast_cancer", "vote"), ("mrr",), THETAS_004).compute, _plot_variance, 1000),
    Figure("004-fig6", "PSE before mining of a binary attribute over θ, for W_a = 0.1 … 0.5 (W_y = 0.5)",
           "seed 004, Fig. 6", _pse_table, _plot_pse, 1),
    _curves("004-fig7", "Unrelated-question (MRR) vs related-question (Warner) model: mean accuracy over θ",
            "seed 004, Fig. 7 (the paper shows Adult; here breast_cancer and vote)",
            Curves(("breast_cancer", "vote"), ("mrr", "warner"), THETAS_004, skip=_is_warner_at_half), reps=1000),
    _curves("004-fig2-3-adult", "MRR (unrelated question) on adult: mean accuracy over θ, with the paper's "
            "preprocessing (numeric attributes split at the median; or at the midpoint of the range) and ours (4 "
            "equal-width bins)",
            "seed 004, Fig. 2 — on adult, as the paper (40 repetitions by default, the paper used 1,000)",
            DatasetCurves(ADULT_004, ("mrr",), THETAS_004), reps=40),
    Figure("004-fig4-5-adult", "MRR (unrelated question) on adult: variance of the accuracy over θ",
           "seed 004, Fig. 4 — on adult (40 repetitions by default; the same points as 004-fig2-3-adult)",
           DatasetCurves(ADULT_004, ("mrr",), THETAS_004).compute, _plot_variance, 40),
    _curves("004-fig7-adult", "Unrelated-question (MRR) vs related-question (Warner) model on adult: mean accuracy "
            "over θ, the paper's preprocessing (median) and ours (4 equal-width bins)",
            "seed 004, Fig. 7 — on adult, as the paper (20 repetitions by default, the paper used 1,000)",
            DatasetCurves(ADULT_004_FIG7, ("mrr", "warner"), THETAS_004, skip=_is_warner_at_half), reps=20),
    _curves("003-fig2", "Central ε-DP Naive Bayes, SVM and decision tree over seed 003's ε grid (10-fold CV), with "
            "the non-private counterparts; Table 2, Fig. 3 and the Wilcoxon tests below",
            "seed 003 (SECRYPT 2021), Fig. 2, Fig. 3, Table 2 and the Wilcoxon test of §4 — on Mushroom and Congress "
            "(vote), the two of its six data sets we have",
            Curves(("mushroom", "vote"), ("central-laplace", "dp-svm", "dp-tree", "nonprivate-add1", "svm", "tree"),
                   EPSILONS_003, folds=10), reps=6, log_x=True, notes=notes_003),
    _curves("002-smooth", "Central ε-DP Gaussian Naive Bayes: global sensitivity (Laplace) vs smooth sensitivity "
            "(Cauchy) over ε", "seed 002 (Zafarani & Clifton), §7.2: five repetitions of 10-fold CV, as the paper — on "
            "diabetes and glass (numeric attributes)",
            Curves(("diabetes", "glass"), ("central-laplace", "central-smooth"), EPSILONS_CENTRAL, folds=10), reps=5,
            log_x=True),
    _curves("001-synthetic", "Naive Bayes trained on DP synthetic data over ε: the published exponential-mechanism "
            "algorithm and sampling from a central ε-DP model", "seed 001 — on mushroom, vote and breast_cancer",
            Curves(("mushroom", "vote", "breast_cancer"), ("synthetic-em", "synthetic-post", "central-laplace"),
                   EPSILONS_001), reps=50),
    Figure("regret", "No regret against the old rules: the default estimator (adaptive oracle choice) "
           "against the best of the private majority rule, Norm-Sub, negative→1 and the flat-Dirichlet posterior "
           "means, paired, on every bundled table and six tables scikit-learn ships",
           "the regret table — seed 000's grid and protocol (80/20 splits; 100 repetitions for the committed figure)",
           RegretCurves().compute, plot_regret, 100, notes_regret),
    Figure("regret-share", "No regret, the candidate without the floor: posterior means with κ averaged over the "
           "class-explained share and the class prior shrunk alike (adaptive oracle choice), against the same old "
           "rules",
           "the regret table — seed 000's grid and protocol (80/20 splits)",
           RegretCurves(families=("adaptive-share",)).compute, plot_regret, 100, notes_regret),
    Figure("regret-oracles", "No regret, explicitly chosen oracles and Gaussian NB: DE and OUE against "
           "their own old rules, gauss-sample against itself without the floor and its private majority rule",
           "the regret table — seed 000's grid and protocol (80/20 splits)",
           RegretCurves(families=("de", "oue", "gauss-sample")).compute, plot_regret, 100, notes_regret),
    Figure("regret-validated", "Choosing with the validation share: the default, the private majority rule or "
           "negative→1, whichever the validation respondents (10 % of all, assigned at random among the three) find "
           "better beyond its interval, against the default trained on everyone and negative→1",
           "the regret table — seed 000's grid and protocol (80/20 splits)",
           RegretCurves(families=("adaptive-validated",)).compute,
           lambda frame: plot_regret(frame, ("adaptive-validated",)), 20, notes_validated),
    Figure("public-prior", "A public reference sample as the conditionals' prior: the default with 50, 100 or 500 "
           "held-out rows as its prior (their weight decided by the reports), the default alone and Naive Bayes from "
           "the sample alone, over ε",
           "beyond the seeds: more signal at small ε from what the designer already has (cf. Ma & Yang)",
           _public_prior_table, lambda frame: plot_curves(frame, log_x=True), 20, _notes_public_prior),
]
