"""What each frequency oracle owns (issue 10): its wire codec, its plausibility facts and its covariance.

Codec: engine reports → ``to_wire`` → JSON → ``from_wire`` gives the validated reports back, for every oracle of
the registry (``adaptive`` resolves to a concrete one), and ``oracles.wire``'s module-level functions delegate.
Malformed wire values raise ``ValueError`` with the messages the API shows (tests/security check them end to end).
"""
import json

import numpy as np
import pytest

from aggregator.privacy import oracles
from aggregator.privacy.naive_bayes.ldp import count_covariance
from aggregator.privacy.oracles import wire
from aggregator.privacy.oracles.base import FrequencyOracle

CONCRETE = ["de", "sue", "oue", "she", "the", "olh", "ss"]
SETTINGS = [(1.0, 2), (1.0, 5), (0.5, 9), (3.0, 17), (6.0, 64)]


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))


@pytest.mark.parametrize("name", CONCRETE + ["adaptive"])
@pytest.mark.parametrize("eps, d", SETTINGS)
def test_wire_round_trip(name, eps, d):
    fo = oracles.get(name, epsilon=eps, domain=d)
    rng = np.random.default_rng(d)
    reports = fo.validate(fo.perturb(rng.integers(0, d, 40), rng))
    values = json.loads(json.dumps(fo.to_wire(reports)))
    assert isinstance(values, list) and len(values) == 40
    assert _same(fo.from_wire(values), reports)
    assert wire.to_wire(fo, reports) == fo.to_wire(reports) and _same(wire.from_wire(fo, values), reports)
    assert _same(fo.from_wire([]), fo.validate(fo.perturb(np.zeros(0, dtype=int), rng)))


@pytest.mark.parametrize("name, values, message", [
    ("de", {"0": 1}, "reports must be a list"),
    ("de", [1, True], r"a DE report is an integer in \[0, 4\)"),
    ("de", [2**63], r"a DE report is an integer in \[0, 4\)"),
    ("de", [4], r"values must lie in \[0, 4\)"),
    ("oue", [1], "a OUE report is a base64 string of 1 bytes"),
    ("sue", ["*"], "a SUE report must be valid base64"),
    ("oue", ["AAA="], "a OUE report must decode to 1 bytes, got 2"),
    ("oue", ["8A=="], "OUE reports have nonzero padding bits beyond domain 4"),
    ("she", [[0.0] * 3], "a SHE report is a list of 4 numbers"),
    ("the", [[0.0, 0.0, 0.0, float("inf")]], "a THE report holds finite numbers only"),
    ("she", [[0.0, 0.0, 0.0, 2.0**-11]], "SHE report components must be multiples of 2\\^-10"),
    ("the", [[0.0, 0.0, 0.0, 1e6]], "THE report components must lie within ±"),
    ("olh", [[1, 2]], r"an OLH report is \[a, b, y\] with three integers"),
    ("olh", [[0, 2, 1]], r"OLH report component a must lie in \[1, 2147483647\)"),
    ("olh", "[]", "reports must be a list"),
])
def test_malformed_wire_values_are_refused_with_a_readable_message(name, values, message):
    fo = oracles.get(name, epsilon=1.0, domain=4)
    with pytest.raises(ValueError, match=message):
        fo.from_wire(values)
    with pytest.raises(ValueError, match=message):
        wire.from_wire(fo, values)


def test_every_registered_oracle_implements_the_interface():
    """Instantiating checks the abstract methods (codec, honest moments, estimate_sum) are all implemented."""
    for name in oracles.names():
        fo = oracles.get(name, epsilon=1.0, domain=6)
        assert isinstance(fo, FrequencyOracle) and fo.name in CONCRETE
    flags = {n: (oracles.get(n, epsilon=1.0, domain=6).supports_pair_check,
                 oracles.get(n, epsilon=1.0, domain=6).honest_variance_exact) for n in CONCRETE}
    assert flags == {"de": (False, True), "sue": (True, True), "oue": (True, True), "she": (False, True),
                     "the": (True, True), "olh": (False, False), "ss": (False, True)}


@pytest.mark.parametrize("name", CONCRETE)
def test_report_totals_and_estimate_sum_agree_with_the_estimates(name):
    """Σ_v Ê_v / n = ``estimate_sum(S̄)`` (an identity of the estimators; 1e-9 relative for floating point), and
    ``report_totals`` are the row sums of the support matrix (SHE: of the components)."""
    fo = oracles.get(name, epsilon=1.0, domain=7)
    rng = np.random.default_rng(5)
    reports = fo.perturb(rng.integers(0, 7, 300), rng)
    totals = fo.report_totals(fo.validate(reports))
    counts = fo.aggregate(reports)
    assert fo.estimate_sum(float(totals.sum()) / 300) == pytest.approx(fo.estimate(counts).sum() / 300, rel=1e-9)
    if name == "she":
        assert np.array_equal(totals, fo.validate(reports).sum(axis=1))
        with pytest.raises(ValueError, match="no support sets"):
            fo.support_matrix(reports)
    else:
        B = fo.support_matrix(reports)
        assert np.array_equal(totals, B.sum(axis=1)) and np.array_equal(B.sum(axis=0), counts.support)


@pytest.mark.parametrize("name", CONCRETE)
def test_count_covariance_is_the_oracle_method(name):
    """ldp.count_covariance delegates; the diagonal is exact_variance; off the diagonal DE is negative, the
    independent-component protocols (and OLH's approximation) 0; SS's (tests/engine/test_ss.py) negative."""
    fo = oracles.get(name, epsilon=1.0, domain=4)
    counts = np.array([50.0, 30, 15, 5])
    cov = fo.count_covariance(100, counts)
    assert np.array_equal(cov, count_covariance(fo, 100, counts))
    assert np.allclose(np.diag(cov), fo.exact_variance(100, counts), rtol=0, atol=0)
    off = cov[~np.eye(4, dtype=bool)]
    assert np.all(off < 0) if name in ("de", "ss") else np.all(off == 0)  # SS: a fixed number of values per report
