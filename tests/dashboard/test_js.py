"""The dashboard's browser modules under `node --test` (tests/dashboard/charts.test.mjs), fed with the chart JSON that
charts.py makes for simulated MRR, LDP and Gaussian surveys."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aggregator.dashboard import charts
from aggregator.privacy import protocol as sp

HERE = Path(__file__).resolve().parent
SICK = {"kind": "categorical", "name": "sick", "values": ["no", "yes"]}
SMOKER = {"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]}
AGE = {"kind": "numeric", "name": "age", "low": 18, "high": 98}
CONFIGS = {
    "mrr": {"mode": "mrr", "class": SICK, "features": [SMOKER, AGE], "mrr": {"theta": 0.7}},
    "ldp": {"mode": "ldp", "class": SICK, "features": [SMOKER, AGE], "ldp": {"epsilon": 1.0, "encoding": "oue"}},
    "gaussian": {"mode": "ldp", "class": SICK, "features": [AGE, {**AGE, "name": "weight", "low": 40, "high": 160}],
                 "ldp": {"epsilon": 2.0}, "numeric": {"handling": "gaussian", "approach": 3}},
}


def chart_json(config, rng) -> dict:
    protocol = sp.build(config)
    n = 3000
    y = rng.integers(0, 2, n)
    first = rng.integers(0, 3, n) if config["features"][0]["kind"] == "categorical" else rng.uniform(18, 98, n)
    X = np.column_stack([first, rng.uniform(40 if protocol.numeric_handling == "gaussian" else 18, 98, n)])
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    return {"distributions": charts.attribute_distributions(model.to_dict(), protocol),
            "privacy": charts.privacy_per_attribute(protocol.model_privacy(model))}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_node_suite_passes(tmp_path, rng):
    fixture = tmp_path / "charts.json"
    fixture.write_text(json.dumps({name: chart_json(config, rng) for name, config in CONFIGS.items()}))
    result = subprocess.run(["node", "--test", str(HERE / "charts.test.mjs")], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "DASHBOARD_FIXTURE": str(fixture)})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# skipped 0" in result.stdout and "# fail 0" in result.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_planner_chart_suite_passes(tmp_path):
    from aggregator.lab.datasets import DATASETS_DIR
    from aggregator.lab.planner import plan
    from aggregator.privacy.jsonable import json_safe
    from survey_app.tables import load_table

    result = plan(load_table(DATASETS_DIR / "vote.csv"), ["oue", "mrr"], [1.0, 4.0], [0.7, 0.9], reps=2, seed=0)
    fixture = tmp_path / "plan.json"
    fixture.write_text(json.dumps(json_safe(result.to_dict())))
    run = subprocess.run(["node", "--test", str(HERE / "planner_charts.test.mjs")], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PLANNER_FIXTURE": str(fixture)})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# pass 5" in run.stdout and "# fail 0" in run.stdout
