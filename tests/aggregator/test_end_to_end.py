"""End to end on the mushroom data: survey from the table → 5,000 simulated respondents (training rows, randomized by
the survey's protocol) → retrain → the published model, queried through the predict API, classifies held-out rows.

Threshold: accuracy > majority + 0.25. The majority class ("edible") is 50.8 % of the 2,031 held-out rows; the
accuracy's binomial standard error over those rows is ≤ √(0.25/2031) ≈ 0.011, so 0.25 is > 20 standard errors: a
model that learned nothing cannot pass. Measured over simulation seeds 1–5 and 7 (same split): LDP ε=2 OUE
0.853–0.914 (spread ≈ 0.02), MRR θ=0.7 0.950–0.985, so the threshold 0.758 sits ≥ 4 seed-spreads below the worst
LDP run.
"""
import time

import numpy as np
import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from aggregator.lab.datasets import DATASETS_DIR, MISSING, load_table, read_csv
from aggregator.models import ModelVersion
from survey_app.services import create_survey_from_table

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MARGIN = 0.25


@pytest.mark.parametrize("mode, kwargs", [("ldp", {"epsilon": 2.0, "encoding": "oue"}), ("mrr", {"theta": 0.7})])
def test_mushroom_survey_learns_from_simulated_respondents(tmp_path, mode, kwargs):
    path = DATASETS_DIR / "mushroom.csv"
    survey = create_survey_from_table(load_table(path), slug=f"mushroom-{mode}", mode=mode, open_now=True, **kwargs)
    frame = read_csv(path)
    rng = np.random.default_rng(20261123)
    order = rng.permutation(len(frame))
    test_rows, train_rows = order[:len(frame) // 4], order[len(frame) // 4:]
    train_csv = tmp_path / "train.csv"
    frame.iloc[train_rows].to_csv(train_csv, index=False)
    test = frame.iloc[test_rows].fillna(MISSING)  # a missing answer is the survey's "?" choice

    started = time.perf_counter()
    call_command("simulate", survey.slug, str(train_csv), "--respondents", "5000", "--seed", "7")
    simulated = time.perf_counter() - started
    call_command("retrain", survey.slug)
    retrained = time.perf_counter() - started - simulated
    version = ModelVersion.objects.get(survey=survey)
    assert version.report_count == 5000

    features = [q for q in survey.questions.all() if not q.is_class]
    columns = {q.name: (q.name if q.name in test.columns else q.text) for q in features}
    records = [{name: row[col] for name, col in columns.items()} for _, row in test.iterrows()]
    response = APIClient().post(f"/api/surveys/{survey.slug}/predict/", {"records": records}, format="json")
    assert response.status_code == 200, response.content
    predictions = np.array(response.json()["predictions"])
    truth = test["class"].to_numpy()
    accuracy = float(np.mean(predictions == truth))
    majority = float(test["class"].value_counts(normalize=True).max())
    print(f"\n{mode}: accuracy {accuracy:.3f} vs majority {majority:.3f} on {len(test)} held-out rows; "
          f"simulate {simulated:.1f} s, retrain {retrained:.2f} s; ε/respondent {version.privacy['epsilon_per_respondent']:.3f}")
    assert accuracy > majority + MARGIN
