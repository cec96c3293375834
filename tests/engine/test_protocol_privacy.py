"""The privacy figures a survey protocol publishes (``SurveyProtocol.privacy`` / ``model_privacy``) are the exact ones
of issue 11 items 4 and 5: ε per question of the whole report as the browser runs it (``exact_epsilon``; its closed
forms are checked against enumeration in test_exact_epsilon.py), the known-personal figures beside the others, and
the informative PSE after mining (``pse.pse_after_mining_bayes``; tests in test_pse_bayes.py) with the paper-literal
one kept. Figures are JSON values: ∞ is "Infinity" (``jsonable.json_safe``), as stored with a model version."""
import json
import math

import numpy as np
import pytest

from aggregator.privacy import oracles
from aggregator.privacy.browser_arithmetic import grid_laplace_unmatched_mass
from aggregator.privacy.browser_epsilon import realized_oracle_epsilon
from aggregator.privacy.channel import mrr_epsilon, mrr_group_epsilon
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol import build
from aggregator.privacy.pse import pse_after_mining, pse_after_mining_bayes
from aggregator.privacy.schema import Categorical
from aggregator.privacy.validation import correct_oracle

CLASS = {"kind": "categorical", "name": "y", "values": ["0", "1"]}
A = {"kind": "categorical", "name": "a", "values": ["0", "1", "2"]}
B = {"kind": "categorical", "name": "b", "values": ["0", "1"]}
PERSONAL = {"a": [0.2, 0.3, 0.5], "b": [0.4, 0.6], "y": [0.5, 0.5]}


def mrr(theta=0.7, groups=None, personal_mode=None, share=0.0):
    return {"mode": "mrr", "class": CLASS, "features": [A, B], "validation": {"share": share},
            "mrr": {"theta": theta, "groups": groups, "personal": PERSONAL, "personal_mode": personal_mode or {}}}


def ldp(encoding="oue", strategy="one-report", epsilon=1.0, share=0.0):
    return {"mode": "ldp", "class": CLASS, "features": [A, B], "validation": {"share": share},
            "ldp": {"epsilon": epsilon, "encoding": encoding, "strategy": strategy}}


def strict_json(privacy: dict) -> dict:
    """The figures survive strict JSON (the API's renderer refuses NaN/∞) unchanged."""
    return json.loads(json.dumps(privacy, allow_nan=False))


def test_mrr_one_group_every_question_has_the_group_epsilon():
    """Issue 11: with one group the record is sent true or replaced whole, so changing one answer has the group's ε
    (the per-attribute formula was lower)."""
    privacy = strict_json(build(mrr()).privacy())
    group = mrr_group_epsilon(0.7, [PERSONAL["a"], PERSONAL["b"], PERSONAL["y"]])  # ln(1 + 0.7/(0.3·0.2·0.4·0.5))
    assert group == pytest.approx(math.log(1 + 0.7 / (0.3 * 0.04)), rel=1e-12)
    assert privacy["epsilon_per_question"] == pytest.approx({"a": group, "b": group, "y": group}, rel=1e-12)
    assert privacy["epsilon_per_question"]["a"] > mrr_epsilon(0.7, PERSONAL["a"])  # the old, too-low figure
    assert privacy["epsilon_per_respondent"] == pytest.approx(group, rel=1e-12)
    assert privacy["groups"][0]["epsilon"] == pytest.approx(group, rel=1e-12)
    # no real personal question: the known-personal figures are the same ones, and no note is needed
    assert privacy["epsilon_per_question_known_personal"] == privacy["epsilon_per_question"]
    assert privacy["real_personal"] == [] and "epsilon_note" not in privacy and privacy["epsilon_exact"] is True


def test_mrr_groups_compose():
    privacy = build(mrr(groups=[["a"], ["b", "y"]])).privacy()
    g0 = mrr_group_epsilon(0.7, [PERSONAL["a"]])
    g1 = mrr_group_epsilon(0.7, [PERSONAL["b"], PERSONAL["y"]])
    assert privacy["epsilon_per_question"] == pytest.approx({"a": g0, "b": g1, "y": g1}, rel=1e-12)
    assert privacy["epsilon_per_respondent"] == pytest.approx(g0 + g1, rel=1e-12)


def test_mrr_real_personal_question_is_infinite_against_someone_who_knows_it():
    """Issue 11 item 4: ∞ against someone who knows the personal answer, beside the figure against someone who does
    not, with a sentence saying which is which."""
    privacy = strict_json(build(mrr(groups=[["a"], ["b", "y"]], personal_mode={"a": "real"})).privacy())
    assert privacy["epsilon_per_question_known_personal"]["a"] == "Infinity"
    assert privacy["epsilon_per_respondent_known_personal"] == "Infinity"
    assert privacy["groups"][0]["epsilon_known_personal"] == "Infinity"
    assert privacy["epsilon_per_question_known_personal"]["b"] == privacy["epsilon_per_question"]["b"]  # other group
    assert privacy["epsilon_per_question"]["a"] == pytest.approx(mrr_group_epsilon(0.7, [PERSONAL["a"]]), rel=1e-12)
    assert privacy["real_personal"] == ["a"]
    assert "knows" in privacy["epsilon_note"] and "does not know" in privacy["epsilon_note"]


def test_mrr_theta_one_is_infinite_and_json_ready():
    privacy = strict_json(build(mrr(theta=1.0)).privacy())
    assert privacy["epsilon_per_respondent"] == "Infinity" and float(privacy["epsilon_per_question"]["a"]) == math.inf


@pytest.mark.parametrize("strategy", ["one-report", "split"])
def test_ldp_exact_per_question(strategy):
    """One report: every figure is the realized ε of the oracles. Split (m + 1 = 3 inputs of ε/3): the class rides
    in every report (ε), a feature only in its own (ε/3) — issue 11 showed ε/(m+1) for the class."""
    protocol = build(ldp(strategy=strategy, epsilon=1.5))
    privacy = strict_json(protocol.privacy())
    per_input = [realized_oracle_epsilon(fo.params()) for fo in protocol.nb.oracles]
    if strategy == "one-report":
        assert privacy["epsilon_per_question"] == pytest.approx({"y": 1.5, "a": 1.5, "b": 1.5}, abs=1e-12)
        assert privacy["epsilon_per_respondent"] == pytest.approx(1.5, abs=1e-12)
    else:
        assert privacy["epsilon_per_question"]["y"] == pytest.approx(sum(per_input), rel=1e-12)
        assert privacy["epsilon_per_question"]["y"] == pytest.approx(1.5, abs=1e-12)
        assert privacy["epsilon_per_question"]["a"] == pytest.approx(0.5, abs=1e-12)
        assert privacy["epsilon_per_respondent"] == pytest.approx(1.5, abs=1e-12)
    assert privacy["epsilon_configured"] == 1.5


def test_ldp_validation_report_raises_a_split_feature_to_the_validation_epsilon():
    privacy = build(ldp(strategy="split", epsilon=1.5, share=0.1)).privacy()
    validation = realized_oracle_epsilon(correct_oracle(1.5).params())
    assert privacy["epsilon_per_question"]["a"] == pytest.approx(validation, rel=1e-12)
    assert validation == pytest.approx(1.5, abs=1e-12)


def test_ldp_grid_laplace_is_infinite_with_a_note():
    """SHE's noise is bounded as the browser draws it: no finite pure ε (``browser_arithmetic``); the note gives the
    probability of the revealing outputs and the ideal figure."""
    protocol = build(ldp(encoding="she", strategy="split", epsilon=2.0))
    privacy = strict_json(protocol.privacy())
    assert set(privacy["epsilon_per_question"].values()) == {"Infinity"}
    assert privacy["epsilon_per_respondent"] == "Infinity" and privacy["epsilon_configured"] == 2.0
    mass = sum(grid_laplace_unmatched_mass(fo.laplace_scale, fo.params()["grid"]) for fo in protocol.nb.oracles)
    assert 0 < mass < 1e-14 and f"{mass:.1g}" in privacy["epsilon_note"]


def test_gaussian_keeps_the_configured_epsilon_and_says_it_is_not_exact():
    config = {"mode": "ldp", "class": CLASS, "features": [{"kind": "numeric", "name": "x", "low": 0.0, "high": 1.0}],
              "numeric": {"handling": "gaussian", "approach": 2}, "ldp": {"epsilon": 1.0}, "validation": {"share": 0}}
    privacy = strict_json(build(config).privacy())
    assert privacy["epsilon_per_question"] == {"y": 1.0, "x": 1.0} and privacy["epsilon_exact"] is False


def _model(rng, sizes=(3, 2), k=2):
    attrs = [Categorical("a", ("0", "1", "2")), Categorical("b", ("0", "1"))]
    conds = [rng.dirichlet(np.ones(s), size=k).T for s in sizes]
    return NaiveBayesModel(Categorical("y", ("0", "1")), attrs, rng.dirichlet(np.ones(k)), conds)


def test_mrr_model_privacy_has_the_informative_pse_and_keeps_the_paper_variant():
    """Issue 11 item 5: ``pse_after_mining`` is now the Bayes adversary's (exact here: 12 records), the seed's
    variant is ``pse_after_mining_paper``; both with PSE before mining, per question and per group."""
    protocol = build(mrr(groups=[["a"], ["b", "y"]]))
    model = _model(np.random.default_rng(5))
    privacy = strict_json(protocol.model_privacy(model))
    bayes = pse_after_mining_bayes(protocol.scheme, model.prior, model.conditionals)
    paper = pse_after_mining(protocol.scheme, model.prior, model.conditionals)
    names = ["a", "b", "y"]
    assert privacy["pse_after_mining"] == pytest.approx(dict(zip(names, bayes["after"], strict=True)), rel=1e-12)
    assert privacy["pse_after_mining_paper"] == pytest.approx(dict(zip(names, paper["after"], strict=True)), rel=1e-12)
    assert privacy["pse_before_mining"] == pytest.approx(dict(zip(names, bayes["before"], strict=True)), rel=1e-12)
    assert privacy["pse_after_mining_method"] == "exact" and privacy["pse_after_mining_se"] == {n: 0.0 for n in names}
    for g, group in enumerate(privacy["groups"]):
        assert group["pse_after_mining"] == pytest.approx(bayes["group_after"][g], rel=1e-12)
        assert group["pse_after_mining_paper"] == pytest.approx(paper["group_after"][g], rel=1e-12)
        assert 0 <= group["pse_after_mining"] <= group["pse_before_mining"] + 1e-12
    assert any(v > 0 for v in privacy["pse_after_mining"].values())  # informative, unlike the paper's 0
    # the ε figures are those of privacy()
    assert {k: privacy[k] for k in ("epsilon_per_question", "epsilon_per_respondent")} == {
        k: strict_json(protocol.privacy())[k] for k in ("epsilon_per_question", "epsilon_per_respondent")}


def test_oracle_figures_are_realized_epsilons():
    """The ε shown for one-report LDP is the realized ε of the oracle the browser runs, within 1e-12 of the
    configured one well below the bound (test_browser_arithmetic.py bounds the difference)."""
    fo = oracles.get("oue", epsilon=1.0, domain=6)
    assert realized_oracle_epsilon(fo.params()) == pytest.approx(1.0, abs=1e-12)
