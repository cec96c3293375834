"""Mixed surveys (issue 13 item 4; ``aggregator.privacy.protocol.mixed``): categorical questions through the
class-joint oracles, numeric ones through Approach 3's class-hiding vectors, one report per respondent."""
import json

import jsonschema
import numpy as np
import pytest

from aggregator.privacy import protocol as sp
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol import ConfigError, GaussianProtocol, LDPProtocol, MixedProtocol, ReportError

#: Tolerance of every recovery check, in the estimate's own standard errors (fixed seeds).
Z = 5.0


def config(encoding="oue", epsilon=2.0, share=0.0, **numeric) -> dict:
    return {
        "mode": "ldp",
        "class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
        "features": [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
                     {"kind": "numeric", "name": "age", "low": 0, "high": 100},
                     {"kind": "categorical", "name": "sport", "values": ["no", "yes"]},
                     {"kind": "numeric", "name": "bmi", "low": 10, "high": 50}],
        "numeric": {"handling": "gaussian", "approach": 3, **numeric},
        "ldp": {"epsilon": epsilon, "encoding": encoding},
        "validation": {"share": share},
    }


SMOKER = np.array([[0.6, 0.2], [0.3, 0.3], [0.1, 0.5]])  # P(smoker | sick), columns: no, yes
SPORT = np.array([[0.4, 0.8], [0.6, 0.2]])


def population(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Question-order records (smoker, age, sport, bmi) and classes; age and bmi well inside their bounds."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    smoker = np.array([rng.choice(3, p=SMOKER[:, c]) for c in y])
    sport = (rng.random(n) < SPORT[1, y]).astype(np.int64)
    age = np.clip(np.where(y == 1, rng.normal(60, 8, n), rng.normal(40, 8, n)), 0, 100)
    bmi = np.clip(np.where(y == 1, rng.normal(30, 3, n), rng.normal(24, 3, n)), 10, 50)
    return np.column_stack([smoker, age, sport, bmi]).astype(np.float64), y


def test_build_routes_by_the_kinds_of_the_questions():
    assert isinstance(sp.build(config()), MixedProtocol)
    numeric_only = config()
    numeric_only["features"] = [f for f in numeric_only["features"] if f["kind"] == "numeric"]
    assert isinstance(sp.build(numeric_only), GaussianProtocol)
    discretized = config()
    discretized["numeric"] = {"handling": "discretize", "bins": 4}
    assert isinstance(sp.build(discretized), LDPProtocol)


@pytest.mark.parametrize("change, field", [
    (lambda c: c["numeric"].update(approach=1), "numeric.approach"),
    (lambda c: c["numeric"].update(approach=2), "numeric.approach"),
    (lambda c: c["ldp"].update(strategy="split"), "ldp.strategy"),
    (lambda c: c["ldp"].update(allocation="adaptive"), "ldp.allocation"),
])
def test_what_a_mixed_survey_cannot_do_is_refused_naming_the_setting(change, field):
    c = config()
    change(c)
    with pytest.raises(ConfigError) as error:
        sp.build(c)
    assert error.value.field == field


def test_assignment_is_uniform_over_the_inputs_and_moments():
    p = sp.build(config())
    # class, smoker × class, sport × class: 1/7 each; mean and square groups: 2/7 each (then one of 2 attributes).
    np.testing.assert_allclose(p.assignment, [1 / 7, 1 / 7, 1 / 7, 2 / 7, 2 / 7])
    public = p.public()["ldp"]
    assert public["mixed"] and public["categorical"] == [0, 2] and public["numeric"] == [1, 3]
    assert len(public["inputs"]) == 3 and public["vectors"]["approach"] == 3


@pytest.mark.parametrize("encoding", ["oue", "de", "olh"])
def test_estimates_recover_the_population_within_their_standard_errors(encoding):
    """Raw P(a | c) of the categorical questions and μ_c of the numeric ones within Z of their published standard
    errors (which include the sampling of the reporting groups) of the population values; the class prior too."""
    X, y = population(60_000, seed=7)
    protocol = sp.build(config(encoding=encoding, epsilon=3.0))
    stats = protocol.fold(protocol.encode(X, y, np.random.default_rng(11)))
    model = protocol.estimate(stats)
    meta = model.metadata
    assert [a.name for a in model.attributes] == ["smoker", "age", "sport", "bmi"]
    prior_z = np.abs(np.asarray(meta["prior_raw"]) - [0.6, 0.4]) / np.asarray(meta["prior_standard_errors"])
    assert prior_z.max() < Z, prior_z
    for position, truth in ((0, SMOKER), (2, SPORT)):
        raw = np.asarray(meta["conditional_raw"][position])
        se = np.asarray(meta["conditional_standard_errors"][position])
        assert np.max(np.abs(raw - truth) / se) < Z, (position, raw, se)
    for position in (1, 3):
        true_means = [X[y == c, position].mean() for c in (0, 1)]
        mu, se = model.conditionals[position][0], np.asarray(meta["mean_standard_errors"][position])
        assert np.max(np.abs(mu - true_means) / se) < Z, (position, mu, true_means, se)
        assert meta["joint_raw"][position] is None and meta["mean_standard_errors"][position - 1] is None
    method, ses = protocol.conditional_standard_errors(model.to_dict())
    assert method == "delta" and [s.shape for s in ses] == [(3, 2), (2,), (2, 2), (2,)]
    accuracy = model.accuracy(protocol.to_model_input(X[:5000]), y[:5000])
    assert accuracy > 0.9  # the classes are well separated: the Bayes rule on the true model is above 0.97


def test_the_numeric_means_are_scaled_by_the_published_pooled_prior():
    """μ̃_c = m_c / P̂(c) with the model's own (pooled) P̂(c), not the class input's alone (SPEC §5b with SPEC §4's
    pooled prior): checked exactly from the published moments."""
    X, y = population(20_000, seed=9)
    protocol = sp.build(config(epsilon=2.0))
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, np.random.default_rng(10))))
    for position in (1, 3):  # the numeric features; their mean moments m_c are in normalised units
        attr, moments = model.attributes[position], np.asarray(model.metadata["mean_moments"][position])
        expected = attr.denormalise(np.clip(moments / model.prior, -1.0, 1.0))
        np.testing.assert_allclose(model.conditionals[position][0], expected, rtol=1e-12)


def test_statistics_add_up_and_survive_json():
    X, y = population(3000, seed=1)
    protocol = sp.build(config(share=0.1))
    payloads = protocol.encode(X, y, np.random.default_rng(2))
    whole = protocol.fold(payloads)
    parts = protocol.fold(payloads[:1234]) + protocol.fold(payloads[1234:])
    assert whole == parts and whole.n == 3000
    again = protocol.stats_from_dict(json.loads(json.dumps(protocol.stats_to_dict(whole))))
    assert again == whole
    model = protocol.estimate(again)
    assert NaiveBayesModel.from_dict(json.loads(json.dumps(model.to_dict()))).to_dict() == model.to_dict()


def test_every_encoded_report_matches_the_served_schema_and_parses():
    X, y = population(400, seed=3)
    protocol = sp.build(config(encoding="de", share=0.2))
    validator = jsonschema.Draft202012Validator(protocol.report_schema())
    payloads = protocol.encode(X, y, np.random.default_rng(4))
    assert {p["input"] for p in payloads} == {0, 1, 2, 3, 4}
    for payload in payloads:
        validator.validate(payload)
        protocol.parse_one(payload)
    bad = [{"input": 5, "report": 0}, {"input": 3, "report": [2, [0.0, 0.0]]}, {"input": 3, "report": 1},
           {"input": 0}, {"input": 1, "report": 0, "extra": 1}, {"input": True, "report": 0}]
    for payload in bad:
        assert not validator.is_valid(payload), payload
        with pytest.raises(ReportError):
            protocol.parse_one(payload)


@pytest.mark.parametrize("share", [0.0, 0.1])
def test_privacy_gives_categorical_questions_their_input_and_numeric_ones_infinity(share):
    """A categorical question's ε is what an LDP survey of the categorical questions alone shows for it (its input's
    exact ε: the input is public, and no other input depends on that answer); the rest is ∞."""
    c = config(encoding="oue", epsilon=1.5, share=share)
    figures = sp.build(c).privacy()
    alone = sp.build({**c, "features": [f for f in c["features"] if f["kind"] == "categorical"],
                      "numeric": {"handling": "discretize", "bins": 4}}).privacy()
    per_question = figures["epsilon_per_question"]
    for name in ("smoker", "sport"):
        assert per_question[name] == alone["epsilon_per_question"][name]
    assert per_question["smoker"] == pytest.approx(1.5, rel=1e-6)  # OUE's browser probabilities realise ε
    assert per_question["age"] == per_question["bmi"] == per_question["sick"] == "Infinity"
    assert figures["epsilon_per_respondent"] == "Infinity" and figures["epsilon_exact"] is False
    note = figures["epsilon_note"]
    assert "Approach 3" in note and "Each categorical question's ε is exact" in note
    assert 0 < figures["epsilon_edge_mass"] < 1e-6


@pytest.mark.parametrize("encoding", ["she", "the"])
def test_with_bounded_laplace_oracles_the_categorical_questions_are_infinite_too_and_the_note_says_so(encoding):
    figures = sp.build(config(encoding=encoding, epsilon=1.0)).privacy()
    assert set(figures["epsilon_per_question"].values()) == {"Infinity"}
    note = figures["epsilon_note"]
    assert encoding.upper() in note and "their ε is ∞ too" in note and "is exact" not in note
    assert not note.endswith(".")  # a note is a sentence without its full stop (pages and exports add it)


def test_the_model_input_keeps_numbers_and_codes():
    protocol = sp.build(config())
    X, y = population(5, seed=5)
    np.testing.assert_array_equal(protocol.to_model_input(X), X)
