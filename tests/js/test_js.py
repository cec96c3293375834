"""The browser randomizer against the Python reference: committed vectors are current, and `node --test` passes."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.js.make_vectors import OUT, generate

HERE = Path(__file__).resolve().parent


def test_committed_vectors_match_the_python_client_halves():
    fresh = generate()
    committed = {p.stem: json.loads(p.read_text()) for p in OUT.glob("*.json")}
    assert sorted(committed) == sorted(fresh), "run `python tests/js/make_vectors.py`"
    for name, content in fresh.items():
        assert committed[name] == content, f"{name}: vectors are stale — run `python tests/js/make_vectors.py`"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_node_suite_passes():
    result = subprocess.run(["node", "--test", str(HERE)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
