"""The regret figure (issue 26 item 2): the paired table it computes and the tables packages ship."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aggregator.lab.datasets import PACKAGE_TABLES, load_dataset
from aggregator.lab.figures import write
from aggregator.lab.papers import FIGURES
from aggregator.lab.regret import BOUND, TARGET, PackageCurves, RegretCurves, notes_regret, regret_table


def frame_of(points):
    """A curve frame from {(dataset, method, ε): accuracies}."""
    rows = [{"dataset": d, "method": m, "parameter": "epsilon", "value": e, "reps": len(a),
             "accuracy_mean": float(np.mean(a)), "accuracies": " ".join(f"{x:.6f}" for x in a)}
            for (d, m, e), a in points.items()]
    return pd.DataFrame(rows)


def test_regret_is_the_paired_interval_against_the_best_rival():
    default = np.array([0.80, 0.82, 0.79, 0.81])
    neg1 = np.array([0.81, 0.84, 0.80, 0.83])
    points = {("t", "adaptive", 1.0): default, ("t", "adaptive-majority", 1.0): np.full(4, 0.6),
              ("t", "adaptive-normsub", 1.0): np.full(4, 0.7), ("t", "adaptive-neg1", 1.0): neg1,
              ("t", "adaptive-postmean", 1.0): np.full(4, 0.75)}
    row = regret_table(frame_of(points)).iloc[0]
    diff = 100 * (default - neg1)
    half = stats.t.ppf(0.975, 3) * diff.std(ddof=1) / 2
    assert row["best"] == "adaptive-neg1"
    assert row["regret"] == pytest.approx(diff.mean())
    assert row["regret_low"] == pytest.approx(diff.mean() - half)
    assert row["regret_high"] == pytest.approx(diff.mean() + half)
    assert row["floor"] == pytest.approx(100 * (default.mean() - 0.6))
    assert row["target"] == (row["regret_high"] >= TARGET) and row["bound"] == (row["regret_high"] >= BOUND)
    assert not row["below_floor"]
    assert "adaptive-neg1" in notes_regret(frame_of(points))


def test_regret_figure_runs_end_to_end(tmp_path):
    figure = next(f for f in FIGURES if f.key == "regret")
    frame = RegretCurves(datasets=("vote",), grid=(2.0,)).compute(2, 0)
    assert set(frame["method"]) == {"adaptive", "adaptive-majority", "adaptive-normsub", "adaptive-neg1",
                                    "adaptive-postmean"}
    csv, png, md = write(figure, frame, tmp_path, 2, 0)
    assert "Regret per point" in md.read_text() and png.stat().st_size > 0


def test_the_validated_choice_runs_by_name_with_its_regret_table_and_the_respondents_it_takes(tmp_path):
    figure = next(f for f in FIGURES if f.key == "regret-validated")
    frame = RegretCurves(datasets=("vote",), families=("adaptive-validated",), grid=(2.0,)).compute(2, 0)
    assert set(frame["method"]) == {"adaptive-validated", "adaptive-majority", "adaptive", "adaptive-neg1"}
    csv, png, md = write(figure, frame, tmp_path, 2, 0)
    text = md.read_text()
    assert "### adaptive-validated" in text and "## Validation respondents it takes" in text
    from aggregator.privacy.validation import respondents_to_separate
    per = respondents_to_separate(0.05, 1.0, accuracy=0.7, candidates=3)
    assert "| 1 | " in text and f"{per:,} ({math.ceil(per * 3 / 0.1):,})" in text


@pytest.mark.parametrize("key, rows, questions, classes", [
    ("sklearn-breast_cancer", 569, 30, 2), ("sklearn-wine", 178, 13, 3), ("sklearn-iris", 150, 4, 3),
    ("sklearn-digits", 1797, 64, 10), ("sklearn-digits17", 1797, 64, 10), ("sklearn-diabetes", 442, 10, 4)])
def test_package_tables_ship_with_scikit_learn(key, rows, questions, classes):
    table = load_dataset(key)
    assert key in PACKAGE_TABLES
    assert (table.n, len(table.attributes), table.class_attribute.size) == (rows, questions, classes)
    if key == "sklearn-diabetes":  # mixed: sex categorical, the rest numeric; quartile classes
        assert len(table.numeric_indices) == 9
        assert np.bincount(table.y).min() >= 100
    elif key == "sklearn-digits17":
        assert table.numeric_indices == [] and max(a.size for a in table.attributes) == 17
    else:
        assert len(table.numeric_indices) == questions


def test_the_public_prior_methods_run_by_name_and_the_figure_says_what_a_sample_buys(tmp_path):
    """The lab's methods for a public sample (``adaptive-public<N>``, ``public<N>-only``) by name, and the figure's
    table on a small grid; a table too small for the sample is refused with a clear error."""
    from aggregator.lab.evaluate import evaluate
    from aggregator.lab.papers import _notes_public_prior

    vote = load_dataset("vote")
    for name in ("adaptive-public50", "public50-only", "adaptive-public100"):
        e = evaluate(vote, name, 1.0, reps=2, seed=0)
        assert all(0 <= a <= 1 for a in e.accuracies)
    with pytest.raises(ValueError, match="public sample of 500 rows"):
        evaluate(vote, "adaptive-public500", 1.0, reps=1, seed=0)
    frame = PackageCurves(("vote",), ("adaptive", "adaptive-public50", "public50-only"), (1.0,)).compute(2, 0)
    notes = _notes_public_prior(frame)
    assert "| vote | 1 | 50 |" in notes


def test_a_point_the_engine_cannot_fit_is_named_not_a_crash():
    """Wine's 142 training rows over 13 numeric questions leave, in some of 30 repetitions, a question fewer than two
    reports in a Gaussian group: gauss-sample refuses the fit; the regret figure records why and goes on."""
    frame = RegretCurves(datasets=("sklearn-wine",), families=("gauss-sample",), grid=(1.0,)).compute(30, 0)
    unfit = frame[frame["unfit"].notna()]
    assert len(unfit) and unfit["unfit"].str.contains("at least two reports").all()
    assert regret_table(frame).empty
    assert "Points the engine could not fit" in notes_regret(frame)
    with pytest.raises(ValueError, match="at least two reports"):  # outside the figure: a plain, clear error
        from aggregator.lab.evaluate import evaluate
        evaluate(load_dataset("sklearn-wine"), "gauss-sample", 1.0, reps=30, seed=0)
