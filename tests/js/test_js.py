"""The browser randomizer against the Python reference: committed vectors are current, and `node --test` passes."""
import json
import math
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from aggregator.privacy import protocol as survey_protocol
from tests.js.make_vectors import OUT, generate

HERE = Path(__file__).resolve().parent


def same(a, b) -> bool:
    """Equal JSON, floats up to a relative 10⁻¹² — the last bits of estimated model parameters depend on the machine
    (numpy's BLAS picks its kernels, so its summation order, by CPU). Randomness, reports and integers: exact."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def test_committed_vectors_match_the_python_client_halves():
    fresh = generate()
    committed = {p.stem: json.loads(p.read_text()) for p in OUT.glob("*.json")}
    assert sorted(committed) == sorted(fresh), "run `python tests/js/make_vectors.py`"
    for name, content in fresh.items():
        assert same(committed[name], content), f"{name}: vectors are stale — run `python tests/js/make_vectors.py`"


def test_the_vector_comparison_tolerates_only_the_last_bits():
    assert same({"p": [0.33627781026042264]}, {"p": [0.33627781026042275]})
    assert not same({"p": [0.33627781026]}, {"p": [0.33627781027]})
    assert not same({"u": 1}, {"u": 1.0}) and not same([1, 2], [1, 2, 3]) and not same({"a": 1}, {"b": 1})


def test_mixed_vectors_are_reports_the_server_takes():
    """The browser's mixed reports (the same bytes as the vectors' — tests/js/vectors.test.mjs) pass the survey's
    report schema, parse and fold: every input of each mixed survey, validation reports included."""
    files = sorted(OUT.glob("*mixed-*.json"))
    assert len(files) >= 6
    for path in files:
        content = json.loads(path.read_text())
        protocol = survey_protocol.build(content["config"])
        assert type(protocol).__name__ == "MixedProtocol"
        validator = jsonschema.Draft202012Validator(protocol.report_schema())
        reports = [c["report"] for c in content["cases"]]
        for report in reports:
            assert not list(validator.iter_errors(report)), (path.name, report)
            protocol.parse_one(report)
        training = [r for r in reports if not protocol.is_validation(r)]
        assert {r["input"] for r in training} <= set(range(len(protocol.public()["ldp"]["inputs"]) + 2))
        assert protocol.fold(training).n == len(training)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_node_suite_passes():
    result = subprocess.run(["node", "--test", str(HERE)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_committed_skip_vectors_match_the_python_client_half():
    """Skip logic's vectors (aggregator/privacy/skip.py, then the protocol's encode) are current; tests/js/skip.test.mjs
    holds static/js/skip.mjs to them."""
    from tests.js.make_vectors import SKIP_OUT, skip_vectors

    assert same(json.loads(SKIP_OUT.read_text()), skip_vectors()), "run `python tests/js/make_vectors.py`"
