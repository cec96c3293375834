"""The retrain and simulate management commands (simulate both into the DB and over HTTP to a live server)."""
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from aggregator.models import ModelVersion
from survey_app.models import PendingReport
from tests.factories import add_reports, days_pass, folded, make_survey


@pytest.fixture
def health_csv(tmp_path):
    """Rows for tests.factories.make_survey: smoker label, age number, sick label."""
    rng = np.random.default_rng(4)
    smoker = rng.choice(["never", "sometimes", "daily"], 200)
    frame = pd.DataFrame({"smoker": smoker, "age": rng.integers(18, 99, 200),
                          "sick": np.where(smoker == "daily", "yes", "no")})
    path = tmp_path / "health.csv"
    frame.to_csv(path, index=False)
    return path


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_retrain_command_publishes_then_reports_nothing_new():
    survey = make_survey()
    assert "No model yet: no report has been received." in run("retrain", "health")[0]
    add_reports(survey, 120)
    out, _ = run("retrain", "health")
    assert "120 reports folded" in out and "join the model once their day (UTC) has ended" in out
    days_pass(survey)
    out, _ = run("retrain", "health")
    assert "version 1" in out and "120 reports" in out and "ε = 1" in out
    assert "Nothing new since version 1: the current model stands." in run("retrain", "health")[0]
    with pytest.raises(CommandError, match="no survey"):
        run("retrain", "nope")


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["ldp", "mrr"])
def test_simulate_into_the_database(health_csv, mode):
    survey = make_survey(mode=mode)
    out, _ = run("simulate", "health", str(health_csv), "--respondents", "500", "--seed", "1")
    assert "500 simulated reports" in out
    payloads = [r.payload for r in PendingReport.objects.filter(survey=survey)]  # in the inbox until a fold
    assert len(payloads) == 500
    run("retrain", "health")
    stats = folded(survey)
    assert stats.report_count + stats.validation_count == 500
    validating = sum("validation" in p for p in payloads)
    assert stats.validation_count == validating
    # The validation share (0.1): MRR respondents validate from the start; LDP ones only once a model is published.
    if mode == "mrr":
        assert abs(validating - 50) <= 5 * (500 * 0.1 * 0.9) ** 0.5
    else:
        assert validating == 0
    # Seeded: the same seed gives the same reports.
    other = make_survey(slug="other", mode=mode)
    run("simulate", "other", str(health_csv), "--respondents", "500", "--seed", "1")
    assert sorted(map(repr, PendingReport.objects.filter(survey=other).values_list("payload", flat=True))) == sorted(
        map(repr, payloads))


@pytest.mark.django_db
def test_simulate_errors_name_the_column_or_label(health_csv, tmp_path):
    make_survey()
    frame = pd.read_csv(health_csv)
    frame.drop(columns=["age"]).to_csv(tmp_path / "no_age.csv", index=False)
    with pytest.raises(CommandError, match="no column for question 'age'"):
        run("simulate", "health", str(tmp_path / "no_age.csv"), "--respondents", "5")
    frame.assign(smoker="weekly").to_csv(tmp_path / "bad_label.csv", index=False)
    with pytest.raises(CommandError, match="'weekly' is not an answer of question 'smoker'"):
        run("simulate", "health", str(tmp_path / "bad_label.csv"), "--respondents", "5")
    frame.assign(sick="maybe").to_csv(tmp_path / "bad_class.csv", index=False)
    with pytest.raises(CommandError, match="'maybe' is not an answer of question 'sick'"):
        run("simulate", "health", str(tmp_path / "bad_class.csv"), "--respondents", "5")
    with pytest.raises(CommandError, match="no such file"):
        run("simulate", "health", str(tmp_path / "missing.csv"), "--respondents", "5")
    with pytest.raises(CommandError, match="at least 1"):
        run("simulate", "health", str(health_csv), "--respondents", "0")
    assert PendingReport.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_simulate_over_http_to_a_live_server(health_csv, live_server):
    survey = make_survey(mode="ldp", encoding="olh")
    out, err = run("simulate", "health", str(health_csv), "--respondents", "40", "--seed", "2",
                   "--url", live_server.url)
    assert PendingReport.objects.filter(survey=survey).count() == 40
    assert "40/40 reports posted" in err
    days_pass(survey)
    run("retrain", "health")
    assert ModelVersion.objects.get(survey=survey).report_count == 40
    make_survey(slug="shut", status="closed")
    with pytest.raises(CommandError, match="answered 410"):
        run("simulate", "shut", str(health_csv), "--respondents", "3", "--url", live_server.url)
