"""Subset selection (SS; Wang et al. 2016, Ye & Barg 2018; SPEC §3, aggregator/privacy/oracles/ss.py).

Its definitions (ω, p, q), the channel its client half realizes (enumerated exactly), unbiasedness, its exact
variance and covariance (fixed seeds, tolerances from theory: 5 standard errors), the wire form, the browser's
arithmetic, the adaptive choice among DE, OLH, SS and OUE, the browser's module (bit for bit), the survey protocol,
plausibility, poisoning and the lab.
"""
from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from aggregator.lab import methods, poisoning
from aggregator.lab.datasets import DATASETS_DIR
from aggregator.lab.evaluate import evaluate
from aggregator.privacy import bits, oracles, plausibility
from aggregator.privacy.browser_arithmetic import MIN_PROBABILITY
from aggregator.privacy.browser_epsilon import check_supported_epsilon, max_supported_epsilon, realized_oracle_epsilon
from aggregator.privacy.bytestream import ByteStream
from aggregator.privacy.oracles.adaptive import mean_exact_variance
from aggregator.privacy.oracles.ss import SubsetSelection, optimal_subset_size, ss_probabilities
from aggregator.privacy.protocol import build
from survey_app.tables import load_table

ROOT = Path(__file__).resolve().parents[2]


def ss(epsilon: float, d: int) -> SubsetSelection:
    fo = oracles.get("ss", epsilon=epsilon, domain=d)
    assert isinstance(fo, SubsetSelection)
    return fo


# -- definitions ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("eps, d", [(0.5, 8), (1.0, 16), (2.0, 33), (0.1, 5), (3.0, 64), (1.0, 2)])
def test_probabilities_follow_spec(eps, d):
    """p = ωe^ε/(ωe^ε + d − ω), q = ω((ω−1)e^ε + d − ω)/((d−1)(ωe^ε + d − ω)) (SPEC §3), p + (d−1)q = ω, and
    p(d−ω)/((1−p)ω) = e^ε (the channel's ratio); the published params carry them and ω."""
    fo = ss(eps, d)
    w, e = fo.subset_size, math.exp(eps)
    assert 1 <= w < d
    assert fo.p == pytest.approx(w * e / (w * e + d - w), rel=1e-14)
    assert fo.q == pytest.approx(w * ((w - 1) * e + d - w) / ((d - 1) * (w * e + d - w)), rel=1e-14)
    assert fo.p + (d - 1) * fo.q == pytest.approx(w, rel=1e-13)
    assert fo.p * (d - w) / ((1 - fo.p) * w) == pytest.approx(e, rel=1e-12)
    params = json.loads(json.dumps(fo.params()))
    assert params == {"name": "ss", "epsilon": eps, "domain": d, "p": fo.p, "q": fo.q, "subset_size": w,
                      "encoding": "packed-bits-le"}


def test_subset_size_is_the_variance_optimum_near_d_over_e_eps_plus_1():
    """ω minimises the domain-mean exact variance over every integer in [1, d−1] (checked against SubsetSelection
    instances of each ω), and lies within 1 of d/(e^ε + 1) (at least 1)."""
    for d in (2, 3, 5, 8, 12, 16, 24, 33, 64, 100):
        for eps in (0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0):
            w = optimal_subset_size(eps, d)
            assert abs(w - max(1.0, d / (math.exp(eps) + 1))) <= 1, (d, eps, w)
            variances = []
            for k in range(1, d):
                p, q = ss_probabilities(eps, d, k)
                variances.append(q * (1 - q) / (p - q) ** 2 + (1 - p - q) / (d * (p - q)))
            assert variances[w - 1] <= min(variances) * (1 + 1e-12)
            assert ss(eps, d).subset_size == w


def test_subset_size_one_is_direct_encoding():
    """At ω = 1 SS's channel, p, q, variance and covariance are DE's."""
    fo, de = ss(3.0, 8), oracles.get("de", epsilon=3.0, domain=8)
    assert fo.subset_size == 1
    assert fo.p == pytest.approx(de.p, rel=1e-14) and fo.q == pytest.approx(de.q, rel=1e-14)
    counts = np.array([400.0, 300, 150, 80, 40, 20, 10, 0])
    assert np.allclose(fo.count_covariance(1000, counts), de.count_covariance(1000, counts), rtol=1e-12, atol=1e-9)


# -- the client half's channel, enumerated ------------------------------------------------------------------------

class Scripted:
    """An rng replaying one outcome: ``random()`` gives ``u``, then ``integers(i, d−1)`` the listed values."""

    def __init__(self, u: float, ints):
        self.u, self.ints = u, list(ints)

    def random(self, size=None):
        return np.full(size, self.u) if size is not None else self.u

    def integers(self, low, high=None, size=None, dtype=np.int64):
        value = self.ints.pop(0)
        assert low <= value < high
        return np.full(size, value, dtype=dtype) if size is not None else value


@pytest.mark.parametrize("eps, d", [(0.5, 6), (0.3, 7), (0.4, 5)])
def test_client_half_realizes_the_subset_channel_exactly(eps, d):
    """Every outcome of the draws (keep or not × every Fisher–Yates sequence, each equally likely) run through
    ``perturb``: P(S | v) = p/C(d−1, ω−1) for S ∋ v and (1−p)/C(d−1, ω) otherwise, with exactly ω values, so the
    largest likelihood ratio over values is e^ε exactly (up to p's rounding)."""
    fo = ss(eps, d)
    w = fo.subset_size
    assert w >= 2
    sequences = list(itertools.product(*[range(i, d - 1) for i in range(w)]))
    for v in range(d):
        law: dict[frozenset, Fraction] = {}
        for keep, weight in ((True, Fraction(fo.p)), (False, 1 - Fraction(fo.p))):
            for seq in sequences:
                report = fo.perturb(np.array([v]), Scripted(0.0 if keep else 1.0 - 1e-16, seq))
                subset = frozenset(np.flatnonzero(bits.unpack(report, d)[0]).tolist())
                assert len(subset) == w
                law[subset] = law.get(subset, Fraction(0)) + weight / len(sequences)
        assert sum(law.values()) == 1
        assert len(law) == math.comb(d, w)
        for subset, prob in law.items():
            expected = (Fraction(fo.p) / math.comb(d - 1, w - 1) if v in subset
                        else (1 - Fraction(fo.p)) / math.comb(d - 1, w))
            assert prob == expected
    ratio = Fraction(fo.p) * (d - w) / ((1 - Fraction(fo.p)) * w)
    assert math.log(ratio) == pytest.approx(eps, rel=1e-12)


# -- unbiasedness, exact variance and covariance (fixed seeds, 5 standard errors) -----------------------------------

@pytest.mark.parametrize("eps, d, seed", [(1.0, 16, 1), (0.5, 33, 2), (2.0, 24, 3)])
def test_estimates_are_unbiased_within_5_standard_errors(eps, d, seed):
    """n = 200,000 reports of skewed data: Ê_v − n_v within 5·√(exact_variance) for every value, and Σ_v Ê_v = n."""
    fo = ss(eps, d)
    assert fo.subset_size > 1
    probs = 0.8 ** np.arange(d)
    counts = np.random.default_rng(seed).multinomial(200_000, probs / probs.sum())
    values = np.repeat(np.arange(d), counts)
    est = fo.estimate(fo.aggregate(fo.perturb(values, np.random.default_rng(seed))))
    se = np.sqrt(fo.exact_variance(counts.sum(), counts))
    assert np.all(np.abs(est - counts) <= 5 * se), np.round((est - counts) / se, 2)
    assert est.sum() == pytest.approx(counts.sum(), rel=1e-9)


def _repeated_estimates(fo, counts, reps: int, seed: int) -> np.ndarray:
    """(reps, d) estimates, each from fresh randomization of the same true values (one perturb call for all)."""
    n = int(counts.sum())
    values = np.tile(np.repeat(np.arange(fo.domain), counts), reps)
    reports = fo.perturb(values, np.random.default_rng(seed))
    support = bits.unpack(reports, fo.domain).reshape(reps, n, fo.domain).sum(axis=1, dtype=np.int64)
    return (support - n * fo.q) / (fo.p - fo.q)


@pytest.mark.parametrize("eps, d, seed", [(1.0, 16, 11), (2.0, 24, 12), (0.5, 9, 13), (1.5, 12, 14)])
def test_variance_is_the_exact_formula(eps, d, seed):
    """R = 2,000 repetitions of n = 1,000 skewed reports: every value's sample variance over the repetitions is within
    5 standard errors of ``exact_variance`` (a sample variance of R near-Gaussian draws has relative SE √(2/(R−1))),
    and so is the covariance matrix's every entry (SE of a sample covariance: √((σ_uσ_v)² + σ_uv²)/√(R−1)). On this
    data the frequency term matters: where it moves the top value's variance by more than twice the tolerance, Wang et
    al.'s approximation is rejected by the same test."""
    fo = ss(eps, d)
    reps = 2000
    probs = 0.7 ** np.arange(d)
    counts = np.random.default_rng(seed).multinomial(1000, probs / probs.sum())
    est = _repeated_estimates(fo, counts, reps, seed)
    assert np.all(np.abs(est.mean(axis=0) - counts) <= 5 * np.sqrt(fo.exact_variance(1000, counts) / reps))
    exact = fo.exact_variance(1000, counts)
    ratio = est.var(axis=0, ddof=1) / exact
    tol = 5 * math.sqrt(2 / (reps - 1))
    assert np.all(np.abs(ratio - 1) <= tol), np.round(ratio, 3)
    if exact[0] / fo.count_variance(1000) > 1 + 2 * tol:  # the approximation is off by more than the tolerance
        assert est[:, 0].var(ddof=1) / fo.count_variance(1000) > 1 + tol
    cov = fo.count_covariance(1000, counts)
    emp = np.cov(est, rowvar=False)
    sd = np.sqrt(np.diag(cov))
    se = np.sqrt((np.outer(sd, sd) ** 2 + cov**2) / (reps - 1))
    assert np.all(np.abs(emp - cov) <= 5 * se), np.round((emp - cov) / se, 1)
    assert np.abs(cov.sum(axis=1)).max() <= 1e-9 * np.abs(cov).max()  # Σ_v Ê_v = n exactly


# -- wire form and validation -----------------------------------------------------------------------------------------

def test_reports_hold_exactly_omega_values_and_round_trip():
    fo = ss(1.0, 20)  # a partial last byte
    reports = fo.perturb(np.arange(20).repeat(10), np.random.default_rng(4))
    assert reports.shape == (200, 3) and reports.dtype == np.uint8
    assert np.all(np.bitwise_count(reports).sum(axis=1) == fo.subset_size)
    wire = json.loads(json.dumps(fo.to_wire(reports)))
    assert all(isinstance(w, str) for w in wire)
    assert np.array_equal(fo.from_wire(wire), reports)
    assert np.array_equal(fo.report_totals(reports), np.full(200, fo.subset_size))
    assert np.array_equal(fo.support_matrix(reports).sum(axis=0), fo.aggregate(reports).support)


@pytest.mark.parametrize("values, message", [
    (["AAAA"], "SS reports must have exactly 5 of their 20 bits set"),         # no bit
    (["HwAA"], ""),                                                             # bits 0–4: valid (below)
    (["DwAA"], "SS reports must have exactly 5 of their 20 bits set"),         # 4 bits
    (["/wAA"], "SS reports must have exactly 5 of their 20 bits set"),         # 8 bits: supports more values
    (["AAAQ"], "SS reports have nonzero padding bits beyond domain 20"),
    ([1], "a SS report is a base64 string of 3 bytes"),
    (["AAA="], "a SS report must decode to 3 bytes, got 2"),
    ("x", "reports must be a list"),
])
def test_malformed_reports_are_refused(values, message):
    fo = ss(1.0, 20)
    assert fo.subset_size == 5
    if values == ["HwAA"]:
        assert fo.from_wire(values).tolist() == [[31, 0, 0]]  # exactly 5 bits: accepted
        return
    with pytest.raises(ValueError, match=message):
        fo.from_wire(values)


def test_wire_schema_is_the_packed_bits_base64():
    fo = ss(1.0, 20)
    schema = fo.wire_schema()
    assert schema["type"] == "string" and schema["minLength"] == schema["maxLength"] == 4


# -- browser arithmetic -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [2, 5, 16, 64, 300])
def test_browser_arithmetic(d):
    """Realized ε within 4·2^-52/2^-40 of ε up to the bound (test_browser_arithmetic's tolerance); the bound is DE's,
    where ω = 1 and 1 − p = 2^-40; 1 − p ≥ 2^-40 on the way; ε above it is refused."""
    bound = max_supported_epsilon("ss", d)
    assert bound == pytest.approx(max_supported_epsilon("de", d), rel=1e-15)
    assert ss(bound, d).subset_size == 1
    for eps in np.concatenate([np.linspace(0.05, 4, 40), np.linspace(4, bound, 60)]):
        fo = ss(float(eps), d)
        assert 1 - fo.p >= MIN_PROBABILITY * (1 - 1e-3) and fo.p >= MIN_PROBABILITY  # 1 − p: cancellation
        real = realized_oracle_epsilon(fo.params())
        assert abs(real - eps) <= 4 * 2.0**-52 / MIN_PROBABILITY, (eps, real)
    with pytest.raises(ValueError, match="honour"):
        check_supported_epsilon("ss", bound + 0.5, domain=d)
    with pytest.raises(ValueError, match="domain"):
        max_supported_epsilon("ss")


# -- the adaptive choice ----------------------------------------------------------------------------------------------

def test_ss_never_loses_to_de_oue_olh_and_the_adaptive_choice_takes_it():
    """Domain-mean exact variance: SS ≤ min(DE, OUE, OLH) everywhere on the grid; the adaptive choice is the argmin
    (SS, or DE where ω = 1)."""
    for d in (2, 3, 4, 8, 12, 16, 24, 32, 48, 64, 128, 256, 1024):
        for eps in (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0):
            var = {n: mean_exact_variance(oracles.get(n, epsilon=eps, domain=d)) for n in ("de", "olh", "ss", "oue")}
            assert var["ss"] <= min(var.values()) * (1 + 1e-12), (d, eps, var)
            assert oracles.choose(eps, d) == ("de" if ss(eps, d).subset_size == 1 else "ss")


#: min(DE, OUE)/SS of the domain-mean exact variance (docs/engine.md "Subset selection"), 3 decimals.
RATIOS = {(8, 0.5): 1.329, (8, 1.0): 1.247, (16, 0.5): 1.147, (16, 1.0): 1.176, (16, 1.5): 1.241,
          (32, 2.0): 1.162, (32, 2.5): 1.240, (64, 0.5): 1.034, (64, 3.0): 1.191, (8, 3.0): 1.0}


@pytest.mark.parametrize("key", sorted(RATIOS))
def test_documented_variance_ratios(key):
    d, eps = key
    best = min(mean_exact_variance(oracles.get(n, epsilon=eps, domain=d)) for n in ("de", "oue"))
    assert best / mean_exact_variance(ss(eps, d)) == pytest.approx(RATIOS[key], abs=5e-4)


# -- the browser's module ---------------------------------------------------------------------------------------------

NODE_SCRIPT = """
import * as registry from "{root}/static/js/oracles/index.mjs";
import {{ ByteSource }} from "{root}/static/js/random.mjs";
import {{ readFileSync }} from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map((c) => {{
  const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
  return {{ report: registry.perturb(c.params, c.value, rng), consumed: rng.consumed }};
}});
const texts = cases.map((c) => registry.describe(c.params) + " | " + registry.describeWire(c.params));
console.log(JSON.stringify({{ out, texts }}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_the_browser_module_agrees_bit_for_bit():
    """static/js/oracles/ss.mjs on the same random bytes gives the Python client half's wire report and consumes the
    same bytes, for ω from 1 to d/2 (domains 2 to 64, partial last bytes); its texts name ω and p."""
    rng = np.random.default_rng(8)
    cases = []
    for eps, d in ((1.0, 2), (0.5, 5), (1.0, 16), (0.5, 64), (2.0, 20), (0.1, 9), (3.0, 64), (0.05, 31)):
        fo = ss(eps, d)
        for _ in range(16):
            data = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
            value = int(rng.integers(0, d))
            stream = ByteStream(data)
            report = fo.to_wire(fo.perturb(np.array([value]), stream))[0]
            cases.append({"params": fo.params(), "value": value, "bytes": data[:stream.consumed].hex(),
                          "report": report, "consumed": stream.consumed})
    result = subprocess.run(["node", "--input-type=module", "-e", NODE_SCRIPT.format(root=ROOT.as_uri())],
                            input=json.dumps(cases), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    got = json.loads(result.stdout)
    assert [o["report"] for o in got["out"]] == [c["report"] for c in cases]
    assert [o["consumed"] for o in got["out"]] == [c["consumed"] for c in cases]
    text = got["texts"][16 * 2]  # d = 16, ε = 1: ω = 4
    assert "exactly 4 of them “yes”" in text and "the other 3 picked at random among the 15 other possible values" \
        in text and "packed into bytes and written in base64" in text
    assert "exactly one of them “yes”" in got["texts"][0]


# -- survey protocol, plausibility, poisoning, lab ---------------------------------------------------------------------

CLASS = {"kind": "categorical", "name": "sick", "values": ["no", "yes", "unsure"]}
FEATURES = [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
            {"kind": "categorical", "name": "diet", "values": [f"d{i}" for i in range(8)]}]


@pytest.mark.parametrize("strategy", ["one-report", "split"])
def test_a_survey_protocol_runs_on_it(strategy):
    protocol = build({"mode": "ldp", "class": CLASS, "features": FEATURES,
                      "ldp": {"epsilon": 1.0, "encoding": "ss", "strategy": strategy}})
    rng = np.random.default_rng(3)
    n = 3000
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 8, n)]).astype(np.float64)
    y = rng.integers(0, 3, n)
    payloads = json.loads(json.dumps(protocol.encode(X, y, rng)))
    model = protocol.estimate(protocol.fold(payloads))
    assert model.predict(protocol.to_model_input(X[:10])).shape == (10,)
    privacy = protocol.privacy()
    assert set(privacy["encodings"].values()) == {"ss"}
    assert privacy["epsilon_per_respondent"] == pytest.approx(1.0, abs=1e-9)
    inputs = protocol.public()["ldp"]["inputs"]
    assert {i["name"] for i in inputs} == {"ss"} and all("subset_size" in i for i in inputs)


def test_plausibility_and_poisoning():
    """Honest reports raise no warning; crafted reports are valid ω-subsets supporting ``crafted_support`` targets
    (MGA: min(r, ω) exactly; RPA: r·ω/d on average, within 5 SE); MGA on values nobody holds shows in the range
    check."""
    rng = np.random.default_rng(21)
    fo = ss(1.0, 16)
    true = rng.choice(6, size=100_000, p=[0.4, 0.3, 0.15, 0.1, 0.03, 0.02])
    honest = fo.perturb(true, rng)
    assert not [f for f in plausibility.check(plausibility.sums(fo, honest), fo) if f["warning"]]
    targets = np.array([12, 13, 14, 15, 11, 10])
    mga = fo.validate(fo.craft("mga", targets, 500, rng))
    assert fo.crafted_support("mga", 6) == fo.subset_size == 4
    assert np.all(fo.support_matrix(mga)[:, targets].sum(axis=1) == 4)
    rpa = fo.validate(fo.craft("rpa", targets, 4000, rng))
    hits = fo.support_matrix(rpa)[:, targets].sum(axis=1)
    assert abs(hits.mean() - fo.crafted_support("rpa", 6)) <= 5 * hits.std() / math.sqrt(4000)
    out = poisoning.simulate(fo, true, "mga", [12, 13, 14, 15], 0.05, rng)  # ω targets: every fake holds all of them
    (found,) = [f for f in out.findings if f["check"] == "range"]
    assert found["warning"] and found["min"] < 0
    assert abs(out.gain - out.expected_gain) <= 5 * out.gain_standard_error


def test_the_lab_method():
    method = methods.get("ss")
    assert method.summary.startswith("LDP Naive Bayes, one report per respondent, subset selection")
    assert method.parameter == "epsilon" and method.survey(1.5)["ldp"]["encoding"] == "ss"
    result = evaluate(load_table(DATASETS_DIR / "vote.csv"), "ss", 1.0, reps=2, seed=5)
    assert result.method == "ss" and len(result.accuracies) == 2
    assert all(0.0 <= a <= 1.0 for a in result.accuracies)
