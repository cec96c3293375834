"""python manage.py evaluate (aggregator/management/commands/evaluate.py): output, determinism, errors, progress."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from aggregator.lab import methods
from aggregator.lab.datasets import DATASETS_DIR, read_csv

REQUIRED = {"method", "reps", "accuracy_mean", "accuracy_std", "nonprivate_accuracy", "n_train", "n_test"}


@pytest.fixture(scope="module")
def mushroom_csv(tmp_path_factory):
    """400 rows of mushroom (a fast stand-in with the real columns, missing values included)."""
    path = tmp_path_factory.mktemp("data") / "mushroom400.csv"
    read_csv(DATASETS_DIR / "mushroom.csv").sample(400, random_state=0).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def small_numeric_csv(tmp_path_factory):
    """Diabetes rows with ``preg`` clipped to 0..5: six distinct values, too few to be detected as numeric."""
    frame = read_csv(DATASETS_DIR / "diabetes.csv").head(300)
    frame["preg"] = frame["preg"].astype(int).clip(0, 5).astype(str)
    path = tmp_path_factory.mktemp("data") / "diabetes300.csv"
    frame.to_csv(path, index=False)
    return path


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("evaluate", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_json(*args) -> dict:
    out, _ = run(*args, "--json")
    return json.loads(out)


def test_json_shape(mushroom_csv):
    data = run_json(mushroom_csv, "--method", "oue", "--epsilon", "2", "--reps", "3", "--seed", "1")
    assert REQUIRED <= set(data)
    assert (data["method"], data["parameter"], data["epsilon"], data["reps"], data["protocol"]) == (
        "oue", "epsilon", 2.0, 3, "split")
    assert "theta" not in data
    assert len(data["accuracies"]) == 3 and 0 <= data["accuracy_mean"] <= 1 and data["accuracy_std"] >= 0
    assert (data["n_train"], data["n_test"], data["n_rows"], data["test_size"], data["bins"]) == (320, 80, 400, 0.2, 4)
    assert data["dataset"] == str(mushroom_csv) and data["seed"] == 1


def test_theta_method_reports_theta_and_defaults(mushroom_csv):
    data = run_json(mushroom_csv, "--method", "mrr", "--reps", "2", "--folds", "4")
    assert (data["theta"], data["folds"], data["protocol"], data["n_test"]) == (0.7, 4, "cross-validation", 100)
    assert isinstance(data["seed"], int)  # drawn and reported, so the run can be repeated


def test_readable_table(mushroom_csv):
    out, _ = run(mushroom_csv, "--method", "mrr", "--theta", "0.9", "--reps", "2", "--seed", "4", "--progress", "off")
    assert "mrr (θ = 0.9)" in out
    assert "2 × stratified split, 20 % tested; seed 4" in out
    for label in ("accuracy", "non-private NB", "majority rule", "per repetition", "time"):
        assert f"\n{label}" in out


def test_same_seed_same_output(mushroom_csv):
    args = (mushroom_csv, "--method", "olh", "--reps", "2", "--seed", "9")
    a, b = run_json(*args), run_json(*args)
    for d in (a, b):
        del d["seconds"], d["method_seconds"]
    assert a == b


def test_numeric_and_class_column_options(small_numeric_csv):
    with pytest.raises(CommandError, match=r"numeric features only, but 1 are categorical \('preg'\)"):
        run(small_numeric_csv, "--method", "gauss-laplace")
    data = run_json(small_numeric_csv, "--method", "gauss-laplace", "--reps", "1",
                    "--numeric", "preg", "plas", "pres", "skin", "insu", "mass", "pedi", "age")
    assert data["features"] == "numeric"
    # Any column can be the class: here the binned-looking "preg" (6 values).
    data = run_json(small_numeric_csv, "--method", "nonprivate", "--reps", "1", "--class-column", "preg")
    assert data["majority_accuracy"] < 0.5


@pytest.mark.parametrize("args, message", [
    (["--method", "mrr", "--epsilon", "1"], "method 'mrr' takes --theta, not --epsilon"),
    (["--method", "oue", "--theta", "0.7"], "method 'oue' takes --epsilon, not --theta"),
    (["--method", "nonprivate", "--epsilon", "1"], "method 'nonprivate' takes no privacy parameter, not --epsilon"),
    (["--method", "no-such-method"], "invalid choice: 'no-such-method'"),
    (["--method", "oue", "--epsilon", "-1"], "ε must be a finite number > 0"),
    (["--method", "warner", "--theta", "0.5"], r"2θ − 1 = 0"),
    (["--method", "oue", "--class-column", "nope"], "no column named 'nope'"),
    (["--method", "oue", "--folds", "3", "--test-size", "0.2"], "not allowed with argument --folds"),
    (["--method", "oue", "--reps", "0"], "reps must be a whole number ≥ 1"),
    (["--method", "gauss-onebit"], "numeric features only"),
])
def test_errors(mushroom_csv, args, message):
    with pytest.raises(CommandError, match=message):
        run(mushroom_csv, *args)


def test_missing_file(tmp_path):
    with pytest.raises(CommandError, match="no such file: .*absent.csv"):
        run(tmp_path / "absent.csv", "--method", "oue")


def test_method_choices_come_from_the_registry():
    from aggregator.management.commands.evaluate import Command

    parser = Command().create_parser("manage.py", "evaluate")
    with pytest.raises(CommandError) as refused:  # argparse names every choice when refusing another
        parser.parse_args(["data.csv", "--method", "no-such-method"])
    assert "(choose from " + ", ".join(repr(name) for name in methods.names()) + ")" in str(refused.value)


def test_progress_goes_to_stderr_only(mushroom_csv):
    args = (mushroom_csv, "--method", "de", "--reps", "3", "--seed", "0", "--json")
    out, err = run(*args, "--progress", "on")
    json.loads(out)  # stdout is the JSON object and nothing else
    assert "de ε=1" in err and "/3" in err
    assert run(*args, "--progress", "off")[1] == ""
    assert run(*args)[1] == ""  # auto: stderr is not a terminal here
