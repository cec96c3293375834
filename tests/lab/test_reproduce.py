"""``manage.py reproduce`` and the figures framework (aggregator/lab/figures.py, papers.py) on small grids: the files
written, the table's columns, reproducibility from the seed, seed 004's PSE figure and seed 003's derived tables."""
import io

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from aggregator.lab.datasets import load_dataset
from aggregator.lab.figures import COLUMNS, Curves, Figure, plot_curves, write
from aggregator.lab.papers import FIGURES, DatasetCurves, notes_003
from aggregator.privacy.pse import pse_binary
from aggregator.privacy.schema import Categorical

SMALL = Curves(("vote",), ("oue", "nonprivate-add1"), (1.0, 4.0))


def test_every_figure_is_listed():
    out = io.StringIO()
    call_command("reproduce", "--list", stdout=out)
    assert [line.split()[0] for line in out.getvalue().splitlines()] == [f.key for f in FIGURES]
    assert {"000-fig2", "000-defaults", "000-fig3", "000-fig4", "004-fig2-3", "004-fig4-5", "004-fig6", "004-fig7",
            "003-fig2", "002-smooth", "001-synthetic", "nb-estimators", "nb-estimators-mrr", "000-fig2-adult",
            "000-defaults-adult", "004-fig2-3-adult", "004-fig4-5-adult", "004-fig7-adult", "013-allocation",
            "mixed", "regret", "regret-share", "regret-oracles", "regret-validated", "public-prior"} == {
        f.key for f in FIGURES}


def test_bad_arguments_are_refused():
    with pytest.raises(CommandError, match="unknown figure"):
        call_command("reproduce", "fig-99")
    with pytest.raises(CommandError, match="name a figure"):
        call_command("reproduce")
    with pytest.raises(CommandError, match="--reps"):
        call_command("reproduce", "004-fig6", "--reps", "0")


def test_curves_compute_one_row_per_point_with_the_documented_columns():
    frame = SMALL.compute(reps=3, seed=5)
    assert [c for c in COLUMNS if c not in frame.columns] == []
    assert list(zip(frame["method"], frame["value"].fillna(-1), strict=True)) == [
        ("oue", 1.0), ("oue", 4.0), ("nonprivate-add1", -1)]
    accuracies = np.array([list(map(float, a.split())) for a in frame["accuracies"]])  # written to 6 decimals
    assert frame["accuracy_mean"].to_numpy() == pytest.approx(accuracies.mean(axis=1), abs=1e-6)
    assert frame["accuracy_se"].to_numpy() == pytest.approx(accuracies.std(axis=1, ddof=1) / np.sqrt(3), abs=1e-6)
    pd.testing.assert_frame_equal(frame, SMALL.compute(reps=3, seed=5))  # the seed fixes everything


def test_write_stores_csv_png_and_markdown(tmp_path):
    figure = Figure("test-fig", "A test", "nowhere", SMALL.compute, plot_curves, 2, notes=lambda f: "Extra notes.")
    frame = figure.compute(2, 0, None)
    csv, png, md = write(figure, frame, tmp_path, 2, 0)
    assert pd.read_csv(csv).shape == frame.shape
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = md.read_text()
    assert "--reps 2 --seed 0" in page and "![test-fig](test-fig.png)" in page and "Extra notes." in page
    assert page.count("\n| vote |") == 3


def test_the_pse_figure_through_the_command(tmp_path):
    out = io.StringIO()
    call_command("reproduce", "004-fig6", "--out", str(tmp_path), "--progress", "off", stdout=out)
    frame = pd.read_csv(tmp_path / "004-fig6.csv")
    assert len(frame) == 5 * 11
    row = frame[(frame["method"] == "W_a = 0.3") & (frame["value"] == 0.6)].iloc[0]
    assert row["pse"] == pytest.approx(float(pse_binary(0.3, 0.6, 0.5)))
    assert (frame[frame["value"] == 1.0]["pse"] == 0).all()  # θ = 1 discloses everything
    assert "004-fig6: 55 points" in out.getvalue()


def test_seed_003_tables_and_wilcoxon():
    """Two data sets × five ε: NB always 0.1 above DT, SVM equal to DT but for one point — the tests must say NB
    differs from both (every difference one-signed: exact p = 2/2¹⁰) and SVM not from DT."""
    rows = []
    for d, dataset in enumerate(("a", "b")):
        for i, eps in enumerate((0.01, 0.1, 0.5, 1.0, 2.0)):
            tree = 0.5 + 0.03 * i + 0.01 * d
            for method, acc in (("central-laplace", tree + 0.1 + 0.001 * i), ("dp-svm", tree + (0.05 if i == 0 else 0)),
                                ("dp-tree", tree)):
                rows.append({"dataset": dataset, "method": method, "value": eps, "accuracy_mean": acc})
        for method, acc in (("nonprivate-add1", 0.9), ("svm", 0.8), ("tree", 0.85)):
            rows.append({"dataset": dataset, "method": method, "value": None, "accuracy_mean": acc})
    notes = notes_003(pd.DataFrame(rows))
    lines = {line.split("|")[1].strip(): line for line in notes.splitlines()
             if line.startswith(("| NB vs", "| SVM vs"))}
    assert lines["NB vs DT"].split("|")[5].strip() == f"{2 / 2**10:.4g}" and "| yes |" in lines["NB vs DT"]
    assert "| no |" in lines["SVM vs DT"]
    assert "Table 2" in notes and "| NB | 0.9 |" in notes


def _small_csv(tmp_path):
    rows = ["age,color,class"] + [f"{a},{c},{k}" for a, c, k in
                                  zip(range(1, 13), "rgbrgbrgbrgb", ["x", "y"] * 6, strict=True)]
    (tmp_path / "toy.csv").write_text("\n".join(rows) + "\n")


def test_dataset_variants_binarize_numeric_columns_at_the_median_or_midrange(tmp_path):
    """Seed 004's preprocessing (issue 13): "toy-median" is toy.csv with age (1..12, median 6.5) split into ≤ / >;
    "toy-midrange" splits at (1 + 12) / 2 = 6.5 too here, so take a skewed column for the difference."""
    _small_csv(tmp_path)
    plain, median = load_dataset("toy", tmp_path), load_dataset("toy-median", tmp_path)
    assert median.attributes[0] == Categorical("age", ("<= 6.5", "> 6.5"))
    assert median.X[:, 0].tolist() == [0] * 6 + [1] * 6
    assert median.attributes[1] == plain.attributes[1] and (median.X[:, 1] == plain.X[:, 1]).all()
    (tmp_path / "skew.csv").write_text("v,class\n" + "".join(f"{v},{'ab'[i % 2]}\n" for i, v in
                                                            enumerate([0] * 14 + list(range(1, 12)) + [100])))
    assert load_dataset("skew-median", tmp_path).attributes[0].values == ("<= 0", "> 0")
    assert load_dataset("skew-midrange", tmp_path).attributes[0].values == ("<= 50", "> 50")
    with pytest.raises(FileNotFoundError, match="no data set"):
        load_dataset("toy-quartiles", tmp_path)


def test_dataset_curves_take_variant_keys(monkeypatch, tmp_path):
    _small_csv(tmp_path)
    monkeypatch.setattr("aggregator.lab.papers.load_dataset", lambda name: load_dataset(name, tmp_path))
    frame = DatasetCurves(("toy-median",), ("mrr",), (1.0,)).compute(reps=2, seed=0)
    assert [c for c in COLUMNS if c not in frame.columns] == []
    assert frame["accuracy_mean"].iloc[0] == pytest.approx(frame["nonprivate_accuracy"].iloc[0])  # θ = 1: no noise
