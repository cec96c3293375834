"""The planner's engine (aggregator/lab/planner.py): intervals, the recommendation rule, respondents needed, privacy
figures per setting, reproducibility and refusals."""
import math

import numpy as np
import pytest

from aggregator.lab.datasets import DATASETS_DIR, load_table
from aggregator.lab.planner import interval, plan, respondents_needed, survey_methods


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
])
def test_plan_refuses_bad_settings(vote, kwargs, message):
    args = {"methods": ["oue"], "epsilons": [1.0], "thetas": [], "target": 0.8} | kwargs
    with pytest.raises(ValueError, match=message):
        plan(vote, args.pop("methods"), args.pop("epsilons"), args.pop("thetas"), reps=2, **args)


def test_survey_methods_are_the_ones_a_survey_can_run():
    assert survey_methods() == ["mrr", "de", "sue", "oue", "she", "the", "olh", "adaptive", "gauss-laplace",
                                "gauss-onebit", "gauss-sample"]
