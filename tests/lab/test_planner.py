"""The planner's engine (aggregator/lab/planner.py): intervals, the recommendation rule, respondents needed, privacy
figures per setting, reproducibility and refusals; the majority rule, the "beats the majority rule" rule and the
expectation at the planned number of respondents; the engine's default estimator."""
import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from aggregator.lab import methods as registry
from aggregator.lab.datasets import DATASETS_DIR
from aggregator.lab.evaluate import evaluate
from aggregator.lab.planner import (
    beats_majority,
    interval,
    plan,
    respondents_needed,
    respondents_to_beat_majority,
    survey_methods,
)
from aggregator.privacy.jsonable import json_safe
from aggregator.privacy.postprocess import DEFAULT as DEFAULT_ESTIMATOR
from survey_app.tables import load_table


@pytest.fixture(scope="module")
def vote():
    return load_table(DATASETS_DIR / "vote.csv")


def test_the_t_interval_covers_the_mean_95_percent_of_the_time():
    """5 normal draws per interval, 4,000 intervals: coverage 0.95 within 5 standard errors (√(0.95·0.05/4000))."""
    rng = np.random.default_rng(7)
    draws = rng.normal(0.8, 0.05, size=(4000, 5))
    covered = [low <= 0.8 <= high for _, low, high in map(interval, draws)]
    assert abs(np.mean(covered) - 0.95) <= 5 * math.sqrt(0.95 * 0.05 / 4000)


def test_one_repetition_has_no_interval():
    mean, low, high = interval([0.7])
    assert mean == 0.7 and math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize("accuracies, needed", [
    ([0.5, 0.9, 0.7, 0.82, 0.85], 120),   # the lucky 0.9 at 30 does not count: 0.7 follows it
    ([0.81, 0.82, 0.83, 0.84, 0.85], 10),
    ([0.5, 0.6, 0.7, 0.75, 0.79], None),
])
def test_respondents_needed_is_where_every_larger_sample_reaches_the_target(accuracies, needed):
    curve = [{"n_train": n, "accuracy": a} for n, a in zip([10, 30, 60, 120, 240], accuracies, strict=True)]
    assert respondents_needed(curve, 0.8) == needed


def test_plan_on_vote(vote):
    result = plan(vote, ["oue", "mrr"], [0.5, 4.0], [0.6, 0.9], reps=4, seed=3, target=0.8)
    assert [(s.method, s.value) for s in result.settings] == [("oue", 0.5), ("oue", 4.0), ("mrr", 0.6), ("mrr", 0.9)]
    for s in result.settings:
        assert s.low <= s.accuracy <= s.high
        assert s.config == ({"mode": "ldp", "ldp": {"epsilon": s.value, "encoding": "oue"}} if s.method == "oue"
                            else {"mode": "mrr", "mrr": {"theta": s.value}})
    oue = [s for s in result.settings if s.method == "oue"]
    # the exact ε of the probabilities the browser realizes (issue 11 item 4): within 1e-12 of the configured ε here
    assert [s.epsilon_per_respondent for s in oue] == pytest.approx([0.5, 4.0], abs=1e-12)
    assert all(s.min_pse is None for s in oue)
    mrr = [s for s in result.settings if s.method == "mrr"]
    assert mrr[0].min_pse > mrr[1].min_pse > 0  # θ closer to ½ hides more
    assert mrr[0].epsilon_per_respondent < mrr[1].epsilon_per_respondent
    reaching = [s for s in result.settings if s.low >= 0.8]
    assert result.reached == bool(reaching)
    if reaching:
        assert result.recommendation.epsilon_per_respondent == min(s.epsilon_per_respondent for s in reaching)
    else:
        assert result.recommendation.accuracy == max(s.accuracy for s in result.settings)
    sizes = [p["n_train"] for p in result.learning_curve]
    assert sizes == sorted(sizes) and sizes[-1] == result.n_train
    assert result.respondents_needed == respondents_needed(result.learning_curve, 0.8)
    assert result.to_dict() == plan(vote, ["oue", "mrr"], [0.5, 4.0], [0.6, 0.9], reps=4, seed=3, target=0.8).to_dict()


def test_an_unreachable_target_recommends_the_most_accurate_setting(vote):
    result = plan(vote, ["oue"], [0.5, 8.0], [], reps=3, seed=1, target=1.0)
    assert not result.reached and result.recommendation.value == max(
        result.settings, key=lambda s: s.accuracy).value


@pytest.mark.parametrize("kwargs, message", [
    ({"methods": []}, "at least one method"),
    ({"methods": ["dp-svm"]}, "not a survey method"),
    ({"methods": ["oue"], "epsilons": []}, "grid is empty"),
    ({"target": 0.0}, "target accuracy"),
    ({"respondents": 0}, "planned number of respondents"),
    ({"respondents": 10.5}, "planned number of respondents"),
])
def test_plan_refuses_bad_settings(vote, kwargs, message):
    args = {"methods": ["oue"], "epsilons": [1.0], "thetas": [], "target": 0.8} | kwargs
    with pytest.raises(ValueError, match=message):
        plan(vote, args.pop("methods"), args.pop("epsilons"), args.pop("thetas"), reps=2, **args)


def test_survey_methods_are_the_ones_a_survey_can_run():
    assert survey_methods() == ["mrr", "de", "sue", "oue", "she", "the", "olh", "ss", "adaptive", "gauss-laplace",
                                "gauss-onebit", "gauss-sample"]


# -- usefulness: the majority rule (issue 13 item 7) ---------------------------------------------------------------
def test_the_majority_figure_is_the_most_frequent_class_share(vote):
    result = plan(vote, ["oue"], [2.0], [], reps=2, seed=0)
    assert result.majority_accuracy == 267 / 435 and result.majority_class == "democrat"  # vote: 267 of 435
    # on the test rows the settings are scored on (53 democrats of 87): the share up to the split's rounding
    assert result.majority_test_accuracy == 53 / 87
    frame = pd.DataFrame({"colour": ["red", "blue"] * 50, "label": ["edible"] * 52 + ["poisonous"] * 48})
    skewed = plan(load_table(frame, class_column="label"), ["de"], [1.0], [], reps=2, seed=0)
    assert skewed.majority_accuracy == 0.52 and skewed.majority_class == "edible"
    assert skewed.to_dict()["majority_accuracy"] == 0.52


@pytest.mark.parametrize("accuracy, low, majority, beats", [
    (0.80, 0.70, 0.69, True),    # the whole interval above the majority rule
    (0.80, 0.70, 0.70, False),   # the lower end touching it: not clearly above
    (0.72, 0.66, 0.70, False),   # the interval straddles it
    (0.60, 0.55, 0.70, False),   # entirely below (the upper end too)
    (0.71, math.nan, 0.70, True),  # one repetition, no interval: the mean decides
    (0.70, None, 0.70, False),
])
def test_a_setting_beats_the_majority_rule_only_when_its_interval_lies_above_it(accuracy, low, majority, beats):
    assert beats_majority(accuracy, low, majority) is beats


def test_respondents_to_beat_the_majority_rule_is_where_every_larger_interval_clears_it():
    lows = [0.55, 0.66, 0.60, 0.65, 0.67]
    curve = [{"n_train": n, "accuracy": low + 0.05, "low": low} for n, low in zip([10, 30, 60, 120, 240], lows,
                                                                                     strict=True)]
    assert respondents_to_beat_majority(curve, 0.62) == 120  # the lucky 0.66 at 30 does not count: 0.60 follows
    assert respondents_to_beat_majority(curve, 0.70) is None
    assert respondents_to_beat_majority(curve, 0.50) == 10
    own = [p | {"majority": m} for p, m in zip(curve, [0.5, 0.7, 0.5, 0.5, 0.5], strict=True)]
    assert respondents_to_beat_majority(own) == 60  # each point against its own test rows' majority rule


def test_every_setting_and_the_planned_size_are_judged_against_the_majority_rule(vote):
    result = plan(vote, ["oue", "mrr"], [0.1, 4.0], [0.9], reps=3, seed=2, target=0.8, respondents=100)
    for s in result.settings:  # against the majority rule on the same test rows
        assert s.beats_majority == (s.low > result.majority_test_accuracy)
    assert {s.beats_majority for s in result.settings} == {True, False}  # ε = 0.1 on 348 respondents does not
    expected = result.expected
    point = next(p for p in result.learning_curve if p["n_train"] == expected["n_train"])
    assert expected["respondents"] == 100 and expected["simulated"] and abs(expected["n_train"] - 100) <= 2
    assert (expected["accuracy"], expected["low"], expected["high"]) == (point["accuracy"], point["low"], point["high"])
    assert expected["majority"] == point["majority"] and abs(point["majority"] - result.majority_accuracy) < 0.02
    assert expected["beats_majority"] == (point["low"] > point["majority"])
    assert result.respondents_to_beat_majority == respondents_to_beat_majority(result.learning_curve)
    # more respondents than the reference table has training rows: the expectation is the whole table's, said so
    many = plan(vote, ["oue"], [4.0], [], reps=2, seed=2, respondents=5000)
    assert many.expected["respondents"] == 5000 and not many.expected["simulated"]
    assert many.expected["n_train"] == many.n_train == many.learning_curve[-1]["n_train"]
    # no planned number: the reference table's training rows
    default = plan(vote, ["oue"], [4.0], [], reps=2, seed=2)
    assert default.respondents is None and default.expected["respondents"] == default.n_train
    assert default.expected["simulated"]


def test_the_plan_uses_the_engines_default_estimator(vote):
    """No survey configuration pins a post-processing, so the settings, the learning curve and the respondents needed
    are what a live survey with the engine's default estimator would get: the curve's full-size point equals an
    evaluation with that estimator named explicitly."""
    result = plan(vote, ["oue", "mrr"], [1.0], [0.8], reps=2, seed=4, target=0.85)
    assert result.estimator == DEFAULT_ESTIMATOR
    assert all("postprocess" not in s.config.get("ldp", s.config.get("mrr", {})) for s in result.settings)
    rec = result.recommendation
    key = "mrr" if rec.method == "mrr" else "ldp"
    named = rec.config | {key: rec.config[key] | {"postprocess": DEFAULT_ESTIMATOR}}  # at the recommended value
    full = evaluate(vote, replace(registry.get(rec.method), fit=registry._survey(lambda value: named)), rec.value,
                    reps=2, seed=4)
    assert result.learning_curve[-1]["accuracy"] == full.accuracy_mean


def test_a_setting_infinite_only_at_the_grid_laplace_edge_is_ranked_by_its_configured_epsilon():
    """gauss-sample's exact ε is ∞ only through outputs of negligible probability (the engine's ``epsilon_note``):
    the planner carries the note and ranks it by the ε it asks for, so it can be recommended; an ∞ without a note
    ranks last."""
    from aggregator.lab.planner import Setting, _privacy

    diabetes = load_table(DATASETS_DIR / "diabetes.csv")
    method = registry.get("gauss-sample")
    privacy = _privacy(method.prepare(diabetes), method.survey(1.0))
    assert math.isinf(privacy["epsilon_per_respondent"]) and privacy["epsilon_note"]
    assert privacy["epsilon_configured"] == 1.0
    edge = Setting("gauss-sample", "epsilon", 1.0, 0.74, 0.72, 0.76, config={}, **privacy)
    finite = Setting("de", "epsilon", 2.0, 0.74, 0.72, 0.76, math.log(7) * 2, None, {})
    assert edge.epsilon_for_ranking == 1.0 and finite.epsilon_for_ranking == finite.epsilon_per_respondent
    assert min([finite, edge], key=lambda s: (s.epsilon_for_ranking, -s.accuracy)) is edge
    bare = replace(edge, epsilon_note=None)
    assert math.isinf(bare.epsilon_for_ranking)


# -- the floor and the old rules (SPEC §4; docs/results/regret.md) -------------------------------------------------
def test_every_setting_carries_its_private_majority_rule_and_regret_on_the_same_splits(vote):
    """The figures are the paired comparisons of the lab's own methods at the same seed: recomputed here from
    ``evaluate`` of the private majority rule and of each old rule."""
    from aggregator.lab.regret import family_of, paired_interval

    result = plan(vote, ["oue", "mrr"], [1.0], [0.7], reps=4, seed=5)
    for s in result.settings:
        family = family_of(s.method)
        mine = np.array(evaluate(vote, s.method, s.value, reps=4, seed=5).accuracies)
        floor = np.array(evaluate(vote, family.majority, s.value, reps=4, seed=5).accuracies)
        assert s.private_majority == pytest.approx(floor.mean(), abs=1e-12)
        assert s.floor["mean"] == pytest.approx((mine - floor).mean(), abs=1e-12)
        predicted_alike = evaluate(vote, s.method, s.value, reps=4, seed=5, compare=family.majority).identical
        assert s.matches_private_majority == sum(predicted_alike)
        highs = {r: paired_interval(mine - np.array(evaluate(vote, r, s.value, reps=4, seed=5).accuracies))
                 for r in family.rivals}
        assert s.best_rival == min(highs, key=lambda r: (highs[r][2], highs[r][0]))
        mean, low, high = highs[s.best_rival]
        assert (s.regret["mean"], s.regret["low"], s.regret["high"]) == pytest.approx((mean, low, high), abs=1e-12)
    assert all("private_majority" in p and p["reps"] == 4 for p in result.learning_curve)


def test_the_binding_old_rule_is_the_lowest_upper_end_not_the_best_mean():
    from aggregator.lab.evaluate import Evaluation
    from aggregator.lab.planner import against

    e = Evaluation("x", "epsilon", 1.0, "discrete", 4, None, 0.2, 4, 0, 100, 80, 20,
                   accuracies=[0.80, 0.80, 0.80, 0.80], compare_accuracies=[0.60, 0.80, 0.60, 0.60],
                   identical=[False, True, False, False])
    rivals = {"steady": [0.805, 0.805, 0.805, 0.805],   # 0.5 points ahead on every split: a tight interval
              "noisy": [0.95, 0.70, 0.95, 0.70]}      # 2.5 points ahead on average, but a wide interval
    out = against(e, rivals)
    assert out["best_rival"] == "steady" and out["best_rival_accuracy"] == pytest.approx(0.805)
    assert out["regret"] == {"mean": pytest.approx(-0.005), "low": pytest.approx(-0.005), "high": pytest.approx(-0.005)}
    assert out["private_majority"] == pytest.approx(0.65) and out["matches_private_majority"] == 1
    assert against(Evaluation("x", "epsilon", 1.0, "discrete", 1, None, 0.2, 4, 0, 100, 80, 20), {}) == {}


def test_answers_independent_of_the_class_make_the_model_the_private_majority_rule(tmp_path):
    """Questions drawn independently of a 70/30 class: the default's guard falls back to the private majority rule
    in most repetitions (it keeps the model with probability ≤ α = 5 % when the pooled test sees nothing, or when
    the model would cost at most the tolerance: ``privacy.dependence``), and the warning names the reason."""
    from aggregator import planning

    rng = np.random.default_rng(11)
    n = 400
    frame = pd.DataFrame({f"q{i}": rng.choice(["a", "b", "c"], size=n) for i in range(4)})
    frame["class"] = np.where(rng.random(n) < 0.7, "yes", "no")
    table = load_table(frame)
    result = plan(table, ["adaptive"], [1.0], [], reps=6, seed=2, target=0.9)
    (setting,) = result.settings
    assert setting.matches_private_majority >= 5
    assert result.expected["matches_private_majority"] >= 3 and result.expected["reps"] == 6
    assert not result.expected["beats_majority"]
    # Naive Bayes without privacy does not beat guessing either: that is the reason the warning names
    assert result.nonprivate_accuracy <= result.majority_test_accuracy
    warning = planning.usefulness_warning(json.loads(json.dumps(json_safe(result.to_dict()))))
    assert "Why: even without privacy, Naive Bayes on this reference data is right" in warning
