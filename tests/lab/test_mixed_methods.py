"""The lab and the planner on tables that mix categorical and numeric columns (issue 13 item 4): ``gauss-sample``
(Approach 3) runs them as a mixed survey (``MixedProtocol``), Approaches 1 and 2 refuse them naming Approach 3, and
the planner plans such a survey (``Plan.mixed``) beside the majority rule."""
import math

import numpy as np
import pandas as pd
import pytest

from aggregator.lab import methods as registry
from aggregator.lab.evaluate import evaluate
from aggregator.lab.planner import plan
from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.protocol import MixedProtocol
from survey_app.tables import load_table


def health_frame(n: int, seed: int) -> pd.DataFrame:
    """smoker (3 labels), age (numbers), sport (yes/no) and the class sick (30 %), strongly related."""
    rng = np.random.default_rng(seed)
    sick = rng.random(n) < 0.3
    smoker = np.where(sick, rng.choice(3, n, p=[0.1, 0.2, 0.7]), rng.choice(3, n, p=[0.7, 0.2, 0.1]))
    age = np.clip(np.where(sick, 65, 35) + 8 * rng.standard_normal(n), 18, 98).round(1)
    sport = np.where(rng.random(n) < np.where(sick, 0.15, 0.7), "yes", "no")
    return pd.DataFrame({"smoker": np.array(["never", "sometimes", "daily"])[smoker], "age": age, "sport": sport,
                         "sick": np.where(sick, "yes", "no")})


@pytest.fixture(scope="module")
def mixed():
    table = load_table(health_frame(6000, seed=3))
    assert [type(a).__name__ for a in table.attributes] == ["Categorical", "Numeric", "Categorical"]
    return table


def test_gauss_sample_trains_a_mixed_survey_through_the_mixed_protocol(mixed):
    method = registry.get("gauss-sample")
    assert method.prepare(mixed) is mixed  # the table as loaded: codes and numbers side by side
    protocol = survey_protocol.build({"class": mixed.class_attribute.to_dict(),
                                      "features": [a.to_dict() for a in mixed.attributes], **method.survey(1.0)})
    assert isinstance(protocol, MixedProtocol)
    result = evaluate(mixed, method, 4.0, reps=5, seed=0)
    assert result.features == "gaussian"
    # 5 splits of 1,200 test rows: the mean's standard error is below 1 point; the true model is ≈ 95 % accurate
    # and the majority rule 70 %, so 85 % is far from both
    assert np.mean(result.accuracies) > 0.85 > result.majority_accuracy


@pytest.mark.parametrize("name", ["gauss-laplace", "gauss-onebit"])
def test_approaches_1_and_2_refuse_a_mixed_table_naming_approach_3(mixed, name):
    with pytest.raises(ValueError, match=r"numeric features only, but 2 are categorical.*use gauss-sample \(Gaussian "
                                         r"Approach 3: one report per respondent; Approaches 1 and 2 report every "
                                         r"numeric answer at once\)"):
        evaluate(mixed, registry.get(name), 1.0, reps=1, seed=0)


def test_gauss_sample_needs_a_numeric_column(mixed):
    categorical = load_table(health_frame(500, seed=1).drop(columns=["age"]))
    with pytest.raises(ValueError, match="at least one numeric feature"):
        evaluate(categorical, registry.get("gauss-sample"), 1.0, reps=1, seed=0)


def test_the_planner_plans_a_mixed_survey_beside_the_majority_rule(mixed):
    result = plan(mixed, ["gauss-sample", "oue"], [1.0, 4.0], [], reps=3, seed=0, target=0.8)
    assert result.mixed
    by = {(s.method, s.value): s for s in result.settings}
    assert set(by) == {("gauss-sample", 1.0), ("gauss-sample", 4.0), ("oue", 1.0), ("oue", 4.0)}
    gauss = by[("gauss-sample", 4.0)]
    assert gauss.config["numeric"] == {"handling": "gaussian", "approach": 3}
    assert math.isinf(gauss.epsilon_per_respondent)  # Approach 3's bounded Laplace draws (as numeric-only surveys)
    assert gauss.accuracy > result.majority_accuracy and result.majority_class == "no"
    assert math.isclose(result.majority_accuracy, 0.7, abs_tol=0.02)
    numeric_only = load_table(health_frame(600, seed=2)[["age", "sick"]])
    assert not plan(numeric_only, ["gauss-sample"], [4.0], [], reps=2, seed=0).mixed
