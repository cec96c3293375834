"""Adding a frequency oracle is one Python class and one JavaScript module (issue 10, docs/engine.md "Adding a
frequency oracle"): a throwaway oracle defined here and registered with ``oracles.register`` — plus
tests/js/uniform_rr_oracle.mjs registered with the browser's ``register`` — works through every generic path
without touching another file: the registry, the client and server halves, the wire codec, the plausibility checks,
the covariance, the browser arithmetic, a survey protocol built with it as ``ldp.encoding`` (fold, estimate,
privacy), the browser's randomizer and texts (bit for bit with the Python client half), the lab's data poisoning
and ``evaluate``.

The throwaway is uniform-mix randomized response (URR): keep the true value with probability
λ = (e^ε − 1)/(e^ε + d − 1), else send a value drawn uniformly from all d. Its channel is DE's (p = e^ε/(e^ε + d − 1),
q = 1/(e^ε + d − 1)), drawn differently and with its own wire form {"v": value}.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aggregator.lab import methods, poisoning
from aggregator.lab.datasets import DATASETS_DIR, load_table
from aggregator.lab.evaluate import evaluate
from aggregator.privacy import oracles, plausibility
from aggregator.privacy.browser_arithmetic import (
    MIN_PROBABILITY,
    check_supported_epsilon,
    max_supported_epsilon,
    realized_oracle_epsilon,
)
from aggregator.privacy.bytestream import ByteStream
from aggregator.privacy.naive_bayes.ldp import count_covariance
from aggregator.privacy.oracles import wire
from aggregator.privacy.survey_protocol import build
from tests.toy_oracle import UniformMixRR

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def urr():
    oracles.register(UniformMixRR)
    yield UniformMixRR
    oracles.unregister("urr")
    assert "urr" not in oracles.names()


CLASS = {"kind": "categorical", "name": "sick", "values": ["no", "yes", "unsure"]}
FEATURES = [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
            {"kind": "categorical", "name": "diet", "values": [f"d{i}" for i in range(5)]}]


def config(strategy: str = "one-report", epsilon: float = 2.0) -> dict:
    return {"mode": "ldp", "class": CLASS, "features": FEATURES,
            "ldp": {"epsilon": epsilon, "encoding": "urr", "strategy": strategy}}


# -- the registry and the oracle's own halves -----------------------------------------------------------------------

def test_the_registry_finds_it_and_forgets_it(urr):
    fo = oracles.get("URR", epsilon=1.0, domain=5)
    assert isinstance(fo, urr) and "urr" in oracles.names() and oracles.oracle_class("urr") is urr
    with pytest.raises(ValueError, match="unexpected parameter"):
        oracles.get("urr", epsilon=1.0, domain=5, threshold=0.5)
    oracles.unregister("urr")
    with pytest.raises(ValueError, match="unknown frequency oracle"):
        oracles.get("urr", epsilon=1.0, domain=5)
    oracles.register(urr)  # for the fixture's teardown


def test_estimates_are_unbiased_within_5_standard_errors(urr):
    """Ê_v − n_v within 5·√(exact_variance) per value (fixed seed; PureProtocol's estimator and variance)."""
    fo = oracles.get("urr", epsilon=1.0, domain=5)
    counts = np.array([50_000, 30_000, 15_000, 5_000, 0])
    values = np.repeat(np.arange(5), counts)
    est = fo.estimate(fo.aggregate(fo.perturb(values, np.random.default_rng(1))))
    se = np.sqrt(fo.exact_variance(counts.sum(), counts))
    assert np.all(np.abs(est - counts) <= 5 * se), (est - counts) / se


def test_wire_codec_round_trips_and_refuses_malformed_values(urr):
    fo = oracles.get("urr", epsilon=1.0, domain=4)
    reports = fo.perturb(np.arange(4).repeat(5), np.random.default_rng(2))
    values = json.loads(json.dumps(wire.to_wire(fo, reports)))
    assert values[0].keys() == {"v"}
    assert np.array_equal(wire.from_wire(fo, values), reports)
    for bad, message in (([{"v": 1.5}], "a URR report is"), ([{"v": 1, "w": 0}], "a URR report is"),
                         ([3], "a URR report is"), ([{"v": 4}], r"values must lie in \[0, 4\)"),
                         ({"v": 1}, "reports must be a list")):
        with pytest.raises(ValueError, match=message):
            wire.from_wire(fo, bad)


def test_count_covariance_is_the_oracles_own(urr):
    """One support per report: Σ_v Ê_v is constant, so every row of the covariance sums to 0 (1e-9 of the largest
    entry, floating point); and the channel is DE's, so the covariance equals DE's (1e-12 relative)."""
    fo = oracles.get("urr", epsilon=1.0, domain=6)
    counts = np.array([400.0, 300, 200, 60, 30, 10])
    cov = count_covariance(fo, 1000, counts)
    assert np.abs(cov.sum(axis=1)).max() <= 1e-9 * np.abs(cov).max()
    de = oracles.get("de", epsilon=1.0, domain=6)
    assert np.allclose(cov, count_covariance(de, 1000, counts), rtol=1e-12, atol=0)


def test_plausibility_and_poisoning_use_its_supports(urr):
    """Honest reports raise no warning; MGA on values nobody holds is flagged by estimates below zero — the same
    channel as DE, so test_poisoning's DE numbers hold: z ≈ β√(N/(e^ε + d − 2)) ≈ 5.5 > Z_WARN = 4."""
    rng = np.random.default_rng(21)
    fo = oracles.get("urr", epsilon=1.0, domain=8)
    true = rng.choice(5, size=100_000, p=[0.4, 0.3, 0.15, 0.1, 0.05])
    honest = fo.perturb(true, rng)
    stats = plausibility.sums(fo, honest)
    assert stats.n == 100_000 and plausibility.support_matrix(fo, honest[:3]).sum() == 3
    assert not [f for f in plausibility.check(stats, fo) if f["warning"]]
    out = poisoning.simulate(fo, true, "mga", [7], 0.05, rng)
    (found,) = [f for f in out.findings if f["check"] == "range"]
    assert found["warning"] and found["min"] < 0
    assert abs(out.gain - out.expected_gain) <= 5 * out.gain_standard_error


# -- browser arithmetic -----------------------------------------------------------------------------------------------

def test_browser_arithmetic_asks_the_class(urr):
    """The realized ε stays within 4·2^-52/2^-40 of ε up to the bound (test_browser_arithmetic's tolerance), and
    ε above the bound is refused."""
    d = 5
    bound = max_supported_epsilon("urr", d)
    assert bound == pytest.approx(math.log(d * (2.0**40 - 1) + 1))
    for eps in np.linspace(0.05, bound, 200):
        real = realized_oracle_epsilon(oracles.get("urr", epsilon=float(eps), domain=d).params())
        assert abs(real - eps) <= 4 * 2.0**-52 / MIN_PROBABILITY, (eps, real)
    with pytest.raises(ValueError, match="honour"):
        check_supported_epsilon("urr", bound + 0.5, domain=d)


# -- a survey protocol with it as ldp.encoding ------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["one-report", "split"])
def test_a_survey_protocol_runs_on_it(urr, strategy):
    protocol = build(config(strategy))
    rng = np.random.default_rng(3)
    n = 3000
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 5, n)]).astype(np.float64)
    y = rng.integers(0, 3, n)
    payloads = json.loads(json.dumps(protocol.encode(X, y, rng)))
    model = protocol.estimate(protocol.fold(payloads))
    assert model.predict(protocol.to_model_input(X[:10])).shape == (10,)
    privacy = protocol.privacy()
    assert set(privacy["encodings"].values()) == {"urr"}
    assert privacy["epsilon_per_respondent"] == pytest.approx(2.0, abs=1e-9)
    assert {i["name"] for i in protocol.public()["ldp"]["inputs"]} == {"urr"}
    with pytest.raises(ValueError):
        protocol.parse([{"input": 0, "report": 1}] if strategy == "one-report" else [{"reports": [1, 2, 3]}])


def test_the_protocol_refuses_an_epsilon_the_browser_cannot_honour(urr):
    with pytest.raises(ValueError, match="honour"):
        build(config(epsilon=40.0))


# -- the browser: the throwaway JS module, registered ------------------------------------------------------------------

NODE_SCRIPT = """
import * as registry from "{root}/static/js/oracles/index.mjs";
import * as urr from "{root}/tests/js/uniform_rr_oracle.mjs";
import {{ describe }} from "{root}/static/js/explain.mjs";
import {{ randomize }} from "{root}/static/js/protocol.mjs";
import {{ ByteSource }} from "{root}/static/js/random.mjs";
import {{ readFileSync }} from "node:fs";

registry.register("urr", urr);
const {{ protocol, cases }} = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map((c) => {{
  const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
  const report = randomize(protocol, c.answers, c.class, rng);
  return {{ report, consumed: rng.consumed }};
}});
const words = describe(protocol, {{ epsilon_per_respondent: 2 }}, []);
const texts = [words.overview, ...out.map((o) => words.review({{ report: o.report }}))].flat(2).join("\\n");
registry.unregister("urr");
let refused = false;
try {{ registry.describe(protocol.ldp.inputs[0]); }}
catch (e) {{ refused = /unknown frequency oracle urr/.test(e.message); }}
console.log(JSON.stringify({{ out, texts, refused }}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
@pytest.mark.parametrize("strategy", ["one-report", "split"])
def test_the_browser_module_agrees_bit_for_bit_and_describes_it(urr, strategy):
    """Same random bytes → same wire report and bytes consumed (tests/js/vectors.test.mjs's criterion), through
    static/js/protocol.mjs; the respondent's texts are the module's ``describe`` and ``describeWire``."""
    protocol = build(config(strategy))
    rng = np.random.default_rng(4)
    cases = []
    for _ in range(12):
        data = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
        answers, cls = [int(rng.integers(0, 3)), int(rng.integers(0, 5))], int(rng.integers(0, 3))
        stream = ByteStream(data)
        report = protocol.encode(np.asarray([answers], dtype=np.float64), np.asarray([cls]), stream)[0]
        cases.append({"bytes": data[:stream.consumed].hex(), "answers": answers, "class": cls,
                      "report": json.loads(json.dumps(report)), "consumed": stream.consumed})
    public = json.loads(json.dumps(protocol.public()))
    result = subprocess.run(["node", "--input-type=module", "-e", NODE_SCRIPT.format(root=ROOT.as_uri())],
                            input=json.dumps({"protocol": public, "cases": cases}), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    got = json.loads(result.stdout)
    assert [o["report"] for o in got["out"]] == [c["report"] for c in cases]
    assert [o["consumed"] for o in got["out"]] == [c["consumed"] for c in cases]
    assert "otherwise your browser sends one of the 3 possible values, picked at random (possibly your own)." \
        in got["texts"]
    assert "the value sent, as a number counting from 0" in got["texts"]
    assert got["refused"]


# -- the lab ----------------------------------------------------------------------------------------------------------

def test_the_lab_evaluates_it(urr):
    method = methods.get("urr")
    assert method.summary.startswith("LDP Naive Bayes, one report per respondent, uniform-mix randomized response")
    assert method.survey(1.5)["ldp"]["encoding"] == "urr"
    result = evaluate(load_table(DATASETS_DIR / "vote.csv"), "urr", 2.0, reps=2, seed=5)
    assert result.method == "urr" and len(result.accuracies) == 2
    assert all(0.0 <= a <= 1.0 for a in result.accuracies)
