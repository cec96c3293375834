"""What a survey protocol tells the web app instead of a mode string (aggregator/privacy/protocol/base.py), for each
of the three protocols: validation behaviour, plausibility inputs, assignment, and the conditionals' standard
errors (SPEC §2, §4, §5b). Fixed seeds; the SE checks are exact identities with the published metadata."""
import json

import numpy as np
import pytest

from aggregator.privacy import plausibility
from aggregator.privacy.mrr import conditional_standard_error_bound
from aggregator.privacy.naive_bayes.fit import fit_nonprivate
from aggregator.privacy.naive_bayes.model import PROB_FLOOR
from aggregator.privacy.protocol import ConfigError, GaussianProtocol, LDPProtocol, MRRProtocol, SurveyProtocol, build

CLASS = {"kind": "categorical", "name": "sick", "values": ["no", "yes"]}
CATEGORICAL = [{"kind": "categorical", "name": "odor", "values": ["0", "1", "2"]},
               {"kind": "categorical", "name": "cap", "values": ["0", "1"]}]
NUMERIC = [{"kind": "numeric", "name": "age", "low": 0.0, "high": 10.0},
           {"kind": "numeric", "name": "weight", "low": -1.0, "high": 1.0}]


def config(kind: str) -> dict:
    base = {"class": CLASS, "validation": {"share": 0.2}}
    if kind == "mrr":
        return {**base, "mode": "mrr", "features": CATEGORICAL, "mrr": {"theta": 0.7}}
    ldp = {"epsilon": 2.0, "encoding": "oue", "strategy": "split" if kind == "ldp-split" else "one-report"}
    if kind == "gaussian":
        return {**base, "mode": "ldp", "features": NUMERIC, "ldp": ldp, "numeric": {"handling": "gaussian"}}
    return {**base, "mode": "ldp", "features": CATEGORICAL, "ldp": ldp}


KINDS = ["mrr", "ldp", "ldp-split", "gaussian"]


def data(kind: str, rng, n: int):
    y = (rng.random(n) < 0.4).astype(np.int64)
    if kind == "gaussian":
        return np.column_stack([rng.normal(3 + 4 * y, 1.5), rng.normal(0.3 * y - 0.1, 0.3)]), y
    return np.column_stack([np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n)),
                            np.where(rng.random(n) < 0.7, y, 1 - y)]).astype(np.float64), y


def fitted(kind: str, n: int = 6000):
    rng = np.random.default_rng(5)
    protocol = build(config(kind))
    X, y = data(kind, rng, n)
    wire = json.loads(json.dumps(protocol.encode(X, y, rng)))
    return protocol, wire, protocol.estimate(protocol.fold(wire)), (X, y)


@pytest.mark.parametrize("kind", KINDS)
def test_validation_capabilities(kind):
    protocol = build(config(kind))
    mrr = kind == "mrr"
    assert protocol.accuracy_at_publication is mrr
    assert protocol.validation_needs_model is not mrr
    training = protocol.encode(*data(kind, np.random.default_rng(1), 1), np.random.default_rng(2))[0]
    assert protocol.validated_version(training) is None
    if mrr:
        assert protocol.validated_version({"validation": {"answers": [0, 1, 1]}}) is None
    else:
        assert protocol.validated_version({"validation": {"version": 3, "report": 1}}) == 3
        assert protocol.validated_version({"validation": {"version": "3", "report": 1}}) is None


@pytest.mark.parametrize("kind", KINDS)
def test_validation_draws_follow_validation_needs_model(kind):
    """Without a published model, only protocols that do not need one make validation respondents."""
    protocol = build(config(kind))
    X, y = data(kind, np.random.default_rng(3), 400)
    payloads = protocol.encode_respondents(X, y, np.random.default_rng(4))
    validating = sum(protocol.is_validation(p) for p in payloads)
    if protocol.validation_needs_model:
        assert validating == 0
    else:  # Binomial(400, 0.2): 80 ± 8; 5 SE
        assert abs(validating - 80) <= 5 * 8


@pytest.mark.parametrize("kind", KINDS)
def test_checked_oracles_and_reports(kind):
    protocol, wire, _, _ = fitted(kind, 600)
    checked = protocol.checked_oracles()
    reports = protocol.parse(wire)
    per_input = protocol.checked_reports(reports)
    assert len(per_input) == len(checked)
    if kind == "mrr":
        assert checked == [] and per_input == ()
        assert plausibility.protocol_checks(protocol, wire) is None
        return
    if kind == "gaussian":
        assert checked == [("class sick: ", protocol.gnb.prior_oracle)]
        assert per_input[0] is reports.prior
    else:
        assert [label for label, _ in checked] == ["class sick: ", "odor × sick: ", "cap × sick: "]
        assert [fo for _, fo in checked] == list(protocol.nb.oracles)
        assert all(a is b for a, b in zip(per_input, reports.per_input, strict=True))
    stats = plausibility.protocol_checks(protocol, wire)
    assert [s.n for s in stats.per_input] == [fo.validate(r).shape[0] for (_, fo), r in zip(checked, per_input,
                                                                                            strict=True)]


@pytest.mark.parametrize("kind", KINDS)
def test_assignment_probabilities(kind):
    protocol = build(config(kind))
    probabilities = protocol.assignment_probabilities()
    if kind == "ldp":
        assert isinstance(protocol, LDPProtocol)
        np.testing.assert_array_equal(probabilities, protocol.nb.assignment)
        assert probabilities.sum() == pytest.approx(1.0)
    elif kind == "gaussian":  # the prior, mean and square groups' published shares
        assert isinstance(protocol, GaussianProtocol)
        np.testing.assert_array_equal(probabilities, protocol.gnb.shares)
        assert probabilities.shape == (3,) and probabilities.sum() == pytest.approx(1.0)
    else:
        assert probabilities is None


def test_findings_include_the_assignment_check_only_with_assignment_probabilities():
    for kind in ("ldp", "ldp-split"):
        protocol, wire, _, _ = fitted(kind, 2000)
        found = plausibility.findings(protocol, plausibility.protocol_checks(protocol, wire))
        assert any(f["check"] == "assignment" for f in found) is (kind == "ldp")


def test_mrr_conditional_standard_errors_are_the_bound():
    protocol, _, model, _ = fitted("mrr")
    assert isinstance(protocol, MRRProtocol)
    method, se = protocol.conditional_standard_errors(model)
    assert method == "bound"
    meta = model.metadata
    for i, table in enumerate(model.conditionals):
        joint_se = np.asarray(meta["joint_standard_errors"][i])
        prior_se = np.asarray(meta["prior_standard_errors"])
        expected = (joint_se + table * prior_se[None, :]) / model.prior[None, :]
        np.testing.assert_allclose(se[i], expected, rtol=1e-15)
    same_method, from_dict = protocol.conditional_standard_errors(json.loads(json.dumps(model.to_dict())))
    assert same_method == "bound"
    for a, b in zip(se, from_dict, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_the_bound_dominates_the_delta_method_for_any_covariance():
    """(SE_J + r·SE_P)/P ≥ √(SE_J² − 2rρ·SE_J·SE_P + r²SE_P²)/P for every correlation ρ ∈ [−1, 1]; a class below
    PROB_FLOOR gets an infinite SE."""
    rng = np.random.default_rng(0)
    r = rng.random((4, 3))
    joint_se, prior, prior_se = rng.random((4, 3)) / 10, np.array([0.5, 0.5 - PROB_FLOOR / 2, PROB_FLOOR / 2]), \
        rng.random(3) / 10
    bound = conditional_standard_error_bound(r, joint_se, prior, prior_se)
    assert np.all(np.isinf(bound[:, 2])) and np.all(np.isfinite(bound[:, :2]))
    for rho in np.linspace(-1, 1, 21):
        delta = np.sqrt(joint_se**2 - 2 * r * rho * joint_se * prior_se + r**2 * prior_se**2) / prior
        assert np.all(bound[:, :2] >= delta[:, :2] - 1e-15)
    assert np.allclose(bound[:, :2], np.sqrt(joint_se**2 + 2 * r * joint_se * prior_se + r**2 * prior_se**2)[:, :2]
                       / prior[:2])  # equality at ρ = −1


@pytest.mark.parametrize("kind", ["ldp", "ldp-split"])
def test_ldp_conditional_standard_errors_are_the_published_delta_method(kind):
    protocol, _, model, _ = fitted(kind)
    method, se = protocol.conditional_standard_errors(model)
    assert method == "delta"
    for a, b in zip(se, model.metadata["conditional_standard_errors"], strict=True):
        np.testing.assert_array_equal(a, np.asarray(b, dtype=np.float64))


def test_gaussian_conditional_standard_errors_are_those_of_the_means():
    protocol, _, model, _ = fitted("gaussian", 20000)
    assert isinstance(protocol, GaussianProtocol)
    method, se = protocol.conditional_standard_errors(model)
    assert method == "delta"
    assert [s.shape for s in se] == [(2,), (2,)]
    for a, b in zip(se, model.metadata["mean_standard_errors"], strict=True):
        np.testing.assert_array_equal(a, np.asarray(b, dtype=np.float64))


@pytest.mark.parametrize("kind", KINDS)
def test_models_without_standard_errors_have_none(kind):
    protocol, _, _, (X, y) = fitted(kind, 300)
    attributes = protocol.features if kind == "gaussian" else protocol.engine_features()
    model = fit_nonprivate(protocol.class_attribute, attributes, protocol.to_model_input(X), y)
    assert protocol.conditional_standard_errors(model) == ("none", None)


@pytest.mark.parametrize("kind", KINDS)
def test_privacy_settings_and_grouping_follow_the_mode_and_the_figures(kind):
    """``for_mode`` (for drafts that cannot build) agrees with the built protocol; the settings are keys of the mode's
    configuration section; ``grouped_privacy`` is exactly when ``privacy()`` has per-group ε and PSE (SPEC §2)."""
    protocol = build(config(kind))
    by_mode = SurveyProtocol.for_mode(protocol.mode)
    assert (by_mode.privacy_settings, by_mode.grouped_privacy) == (protocol.privacy_settings, protocol.grouped_privacy)
    section = {"mrr": {"theta": 0.7}, "ldp": {"epsilon": 2.0, "encoding": "oue"}}[protocol.mode]
    assert set(protocol.privacy_settings) <= set(section) and protocol.privacy_settings[0] in ("theta", "epsilon")
    figures = protocol.privacy()
    assert protocol.grouped_privacy == ("groups" in figures and "pse_per_question" in figures)
    with pytest.raises(ConfigError) as exc:
        SurveyProtocol.for_mode("dp")
    assert exc.value.field == "mode"
