"""End to end on the mushroom data: survey from the table → simulated respondents (randomized by the survey's
protocol) → the pipeline (fold, estimate, publish) → the published model, queried through the predict API, classifies
held-out rows; its private accuracy estimate covers the true held-out accuracy.

Wave 1: 5,000 respondents drawn from the training rows; wave 2: 3,000 drawn from the held-out rows, of whom the
validation share (10 %) validates version 1 (LDP: "right?" through binary RR; MRR: randomized test records).

* The published models equal the engine's offline result for the same seed bit for bit (same draws, same statistics).
* Accuracy > majority + 0.25. The majority class ("edible") is 50.8 % of the 2,031 held-out rows; the accuracy's
  binomial standard error over those rows is ≤ √(0.25/2031) ≈ 0.011, so 0.25 is > 20 standard errors: a model that
  learned nothing cannot pass. Measured over simulation seeds 1–5 and 7: LDP ε=2 OUE 0.853–0.914, MRR θ=0.7
  0.950–0.985, so the threshold 0.758 sits ≥ 4 seed-spreads below the worst LDP run.
* Version 1's accuracy estimate lies within 5 standard errors of its true accuracy on the held-out rows the
  validation respondents were drawn from (the standard error covers randomization and sampling; SPEC §2 for MRR,
  privacy/validation.py for LDP).
"""
import time

import numpy as np
import pytest
from django.core.management import call_command
from django.utils.text import slugify
from rest_framework.test import APIClient

from aggregator.lab.datasets import DATASETS_DIR, load_table, read_csv
from aggregator.management.commands.simulate import records_from_csv
from aggregator.models import ModelVersion
from aggregator.privacy import survey_protocol
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.services import accuracy_by_version
from survey_app.models import PREFER_NOT_TO_SAY
from survey_app.protocol import get_protocol, protocol_config
from survey_app.services import create_survey_from_table
from tests.factories import days_pass, informative_mushroom

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MARGIN = 0.25
TOLERANCE_SE = 5


def offline_models(survey, train_csv, test_csv, seeds, counts):
    """The same two waves run through the engine alone (no database, no API): (version 1, version 2) models."""
    protocol = survey_protocol.build(protocol_config(survey))
    stats, published = protocol.zero_stats(), None
    models = []
    for csv, seed, n in zip((train_csv, test_csv), seeds, counts, strict=True):
        X, y = records_from_csv(survey, csv)
        rng = np.random.default_rng(seed)
        rows = rng.integers(0, len(y), n)
        training, _ = protocol.split(protocol.encode_respondents(X[rows], y[rows], rng, published=published))
        stats = stats + protocol.fold(training)
        model = protocol.estimate(stats)
        published = (len(models) + 1, model)
        models.append(model)
    return models


@pytest.mark.parametrize("mode, kwargs", [("ldp", {"epsilon": 2.0, "encoding": "oue"}), ("mrr", {"theta": 0.7})])
def test_mushroom_survey_learns_from_simulated_respondents(tmp_path, mode, kwargs):
    path = DATASETS_DIR / "mushroom.csv"
    survey = create_survey_from_table(load_table(informative_mushroom(tmp_path)), slug=f"mushroom-{mode}", mode=mode,
                                      open_now=True, **kwargs)
    frame = read_csv(path)
    rng = np.random.default_rng(20261123)
    order = rng.permutation(len(frame))
    test_rows, train_rows = order[:len(frame) // 4], order[len(frame) // 4:]
    train_csv, test_csv = tmp_path / "train.csv", tmp_path / "test.csv"
    frame.iloc[train_rows].to_csv(train_csv, index=False)
    frame.iloc[test_rows].to_csv(test_csv, index=False)
    test = frame.iloc[test_rows].fillna(PREFER_NOT_TO_SAY)  # a missing answer is the survey's "Prefer not to say"

    started = time.perf_counter()
    call_command("simulate", survey.slug, str(train_csv), "--respondents", "5000", "--seed", "7")
    days_pass(survey)  # a model includes whole days only: version 1 once the first wave's day has ended
    call_command("retrain", survey.slug)
    # The second wave comes on the next day: LDP validation respondents evaluate the newest version published before
    # the current day (issue 11) — the time a real survey waits.
    days_pass(survey, 1)
    call_command("simulate", survey.slug, str(test_csv), "--respondents", "3000", "--seed", "8")
    days_pass(survey)
    call_command("retrain", survey.slug)
    elapsed = time.perf_counter() - started
    v1, v2 = ModelVersion.objects.filter(survey=survey).order_by("version")
    assert v1.report_count + v1.metrics["validation_count"] == 5000
    assert v2.report_count + v2.metrics["validation_count"] == 8000

    # The pipeline publishes exactly what the engine computes offline from the same draws.
    offline = offline_models(survey, train_csv, test_csv, seeds=(7, 8), counts=(5000, 3000))
    for published, model in zip((v1, v2), offline, strict=True):
        assert NaiveBayesModel.from_dict(published.model).to_dict()["conditionals"] == model.to_dict()["conditionals"]
        assert NaiveBayesModel.from_dict(published.model).to_dict()["prior"] == model.to_dict()["prior"]

    features = [q for q in survey.questions.all() if not q.is_class]
    columns = {q.name: next(c for c in test.columns if slugify(c) == q.name) for q in features}
    records = [{name: row[col] for name, col in columns.items()} for _, row in test.iterrows()]
    response = APIClient().post(f"/api/surveys/{survey.slug}/predict/", {"records": records}, format="json")
    assert response.status_code == 200, response.content
    predictions = np.array(response.json()["predictions"])
    truth = test["class"].to_numpy()
    accuracy = float(np.mean(predictions == truth))
    majority = float(test["class"].value_counts(normalize=True).max())
    assert accuracy > majority + MARGIN

    # The private accuracy estimate of version 1 against its true accuracy on the held-out rows.
    X_test, y_test = records_from_csv(survey, test_csv)
    protocol = get_protocol(survey)
    true_v1 = NaiveBayesModel.from_dict(v1.model).accuracy(protocol.to_model_input(X_test), y_test)
    estimates = accuracy_by_version(survey)
    # LDP respondents of wave 2 evaluated version 1. MRR stores each version's estimate on every validation record
    # folded by then: version 2's on both waves' (validation respondents never train, so all are held out).
    version, estimate = (1, estimates[1]) if mode == "ldp" else (2, estimates[2])
    if mode == "ldp":
        true = true_v1
    else:
        true = NaiveBayesModel.from_dict(v2.model).accuracy(protocol.to_model_input(X_test), y_test)
    print(f"\n{mode}: held-out accuracy {accuracy:.3f} (majority {majority:.3f}); version {version}: estimated "
          f"{estimate['estimate']:.3f} ± {estimate['standard_error']:.3f} "
          f"[{estimate['low']:.3f}, {estimate['high']:.3f}] "
          f"from {estimate['reports']} validation reports, true {true:.3f}; pipeline {elapsed:.1f} s")
    assert abs(estimate["estimate"] - true) <= TOLERANCE_SE * estimate["standard_error"]
    assert estimate["low"] <= estimate["estimate"] <= estimate["high"] or not 0 <= estimate["estimate"] <= 1

    body = APIClient().get(f"/api/surveys/{survey.slug}/model/").json()
    assert body["version"] == 2 and body["accuracy"]["version"] == version
