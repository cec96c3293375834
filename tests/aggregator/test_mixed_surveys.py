"""A survey that mixes categorical and numeric questions with the Gaussian numeric handling (issue 13 item 4;
``aggregator.privacy.protocol.mixed``) through the whole web app: the protocol API, report POSTs (bad ones refused
with nothing stored), the fold and a published version, the model near the truth, the plausibility checks, the
dashboard page, the exports, the prediction form and API, the settings check and ``manage.py simulate``.

Statistical tolerance: every estimate lies within 5 of its own standard errors (the model's delta-method SEs,
``MixedProtocol.conditional_standard_errors``) of the truth it estimates — the respondents' true class-conditional
answer shares and mean answers (the LDP noise and the random assignment of inputs are what the SEs cover). For a
Gaussian error the chance of a miss beyond 5 SE is 6·10⁻⁷ per parameter; the seeds are fixed. The SEs themselves are
bounded (a test with huge SEs could not fail).
"""
from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook

from aggregator import services
from aggregator.models import ModelVersion
from aggregator.privacy import monitoring
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol import MixedProtocol
from survey_app.models import Choice, PendingReport, Question, Report, Survey
from survey_app.protocol import get_protocol
from tests.factories import after_midnight

pytestmark = pytest.mark.django_db

SMOKER = ("never", "sometimes", "daily")
SPORT = ("no", "yes")
#: P(smoker | sick = no), P(smoker | sick = yes); P(sport = yes | class); age ~ N(μ_c, 10²) clipped to [18, 98].
SMOKER_GIVEN = ((0.6, 0.3, 0.1), (0.2, 0.3, 0.5))
SPORT_YES = (0.6, 0.2)
AGE_MEAN = (40.0, 60.0)
N = 20_000
EPSILON = 2.0
Z_TOL = 5.0


def make_mixed_survey(slug="mixed", **fields) -> Survey:
    """An open LDP survey: smoker (3 choices), age (numeric 18–98), sport (yes/no), class sick; Gaussian Approach 3
    (the numeric handling's default approach), ε = 2, OUE, validation share 0.1."""
    settings = dict(title="Mixed", slug=slug, mode="ldp", epsilon=EPSILON, encoding="oue", status="open",
                    numeric_handling="gaussian", validation_share=0.1)
    survey = Survey.objects.create(**{**settings, **fields})
    for position, (name, labels) in enumerate((("smoker", SMOKER), ("sport", SPORT))):
        question = Question.objects.create(survey=survey, name=name, text=name.capitalize() + "?",
                                           kind="categorical" if len(labels) > 2 else "binary",
                                           position=2 * position)
        if len(labels) > 2:
            Choice.objects.bulk_create([Choice(question=question, label=label, position=i)
                                        for i, label in enumerate(labels)])
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=1)
    Question.objects.create(survey=survey, name="sick", text="Sick?", kind="binary", is_class=True, position=9)
    return survey


def respondents(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n true records in question order (smoker code, age, sport code) and their classes (30 % sick)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    smoker = np.array([rng.choice(3, p=SMOKER_GIVEN[c]) for c in y])
    age = np.clip(np.asarray(AGE_MEAN)[y] + 10 * rng.standard_normal(n), 18, 98)
    sport = (rng.random(n) < np.asarray(SPORT_YES)[y]).astype(np.int64)
    return np.column_stack([smoker, age, sport]).astype(np.float64), y


def store(survey: Survey, X, y, seed: int) -> list[dict]:
    reports = get_protocol(survey).encode_respondents(X, y, np.random.default_rng(seed))
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=r) for r in reports])
    return reports


@pytest.fixture
def boss():
    return User.objects.create_superuser("boss", "boss@example.invalid", "pw")


@pytest.fixture
def published():
    """The mixed survey with N simulated respondents stored and version 1 published; (survey, version, X, y)."""
    survey = make_mixed_survey()
    X, y = respondents(N, seed=11)
    store(survey, X, y, seed=12)
    version = services.retrain(survey, now=after_midnight())
    return survey, version, X, y


def chart_data(response) -> dict:
    import json

    html = response.content.decode()
    tag = '<script id="dashboard-data" type="application/json">'
    start = html.index(tag) + len(tag)
    return json.loads(html[start:html.index("</script>", start)])


# -- the protocol and the report API -----------------------------------------------------------------------------
def test_a_mixed_gaussian_survey_runs_the_mixed_protocol(client):
    survey = make_mixed_survey()
    survey.full_clean()
    protocol = get_protocol(survey)
    assert isinstance(protocol, MixedProtocol)
    body = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    ldp = body["protocol"]["ldp"] if "protocol" in body else body["ldp"]
    assert ldp["mixed"] is True and ldp["categorical"] == [0, 2] and ldp["numeric"] == [1]


def test_reports_post_and_bad_ones_are_refused_with_nothing_stored(client):
    survey = make_mixed_survey(validation_share=0)
    X, y = respondents(40, seed=1)
    reports = get_protocol(survey).encode(X, y, np.random.default_rng(2))
    inputs = {r["input"] for r in reports}
    assert {0, 1, 2, 3, 4} <= inputs  # the class, smoker, sport, the mean and the square groups all occur
    url = f"/api/surveys/{survey.slug}/reports/"
    for report in reports:
        response = client.post(url, {"report": report}, content_type="application/json")
        assert response.status_code == 201, response.content
    assert PendingReport.objects.filter(survey=survey).count() == len(reports)
    numeric = next(r for r in reports if r["input"] == 3)["report"]
    bad = [
        {"input": 5, "report": numeric},  # no such input
        {"input": 3, "report": [1, numeric[1]]},  # only one numeric question: attribute 1 does not exist
        {"input": 3, "report": [0, numeric[1][:1]]},  # a vector of the wrong length
        {"input": 3, "report": [0, ["x", 1.0]]},  # not numbers
        {"input": 1, "report": numeric},  # a numeric report on the smoker oracle's input
        {"input": 0},  # no report
    ]
    for report in bad:
        response = client.post(url, {"report": report}, content_type="application/json")
        assert response.status_code == 400, (report, response.content)
    assert PendingReport.objects.filter(survey=survey).count() == len(reports)
    assert Report.objects.filter(survey=survey).count() == 0


# -- fold, estimate, publish -------------------------------------------------------------------------------------
def test_the_published_model_is_near_the_truth_within_its_standard_errors(published):
    survey, version, X, y = published
    assert version is not None and version.version == 1
    model = NaiveBayesModel.from_dict(version.model)
    assert [a.name for a in model.attributes] == ["smoker", "age", "sport"]
    method, standard_errors = get_protocol(survey).conditional_standard_errors(model)
    assert method == "delta"
    training = np.array(["validation" not in r.payload for r in Report.objects.filter(survey=survey)])
    assert version.report_count == training.sum() > 0.85 * N
    for j, attribute in enumerate(model.attributes):
        se = np.asarray(standard_errors[j])
        if j == 1:  # age: μ per class against the respondents' mean age per class
            truth = np.array([X[y == c, 1].mean() for c in (0, 1)])
            # 5 SE below the 20 years between the classes' true means: swapped or merged means would fail
            assert se.shape == (2,) and np.all((se > 0) & (se < 4))
            assert np.all(np.abs(model.conditionals[j][0] - truth) <= Z_TOL * se), (model.conditionals[j][0], truth)
        else:
            values = len(attribute.values)
            truth = np.array([[np.mean(X[y == c, j] == a) for c in (0, 1)] for a in range(values)])
            # 5 SE below the 0.4 between the classes' shares of "never"/"daily" smokers and of sport
            assert se.shape == (values, 2) and np.all((se > 0) & (se < 0.05))
            assert np.all(np.abs(model.conditionals[j] - truth) <= Z_TOL * se), (model.conditionals[j], truth)
    assert abs(model.prior[1] - y.mean()) <= Z_TOL * model.metadata["prior_standard_errors"][1]
    accuracy = model.accuracy(get_protocol(survey).to_model_input(X[:4000]), y[:4000])
    assert accuracy > 0.8  # the true model's Bayes accuracy is about 0.86 (majority rule: 0.70)


def test_plausibility_checks_skip_the_other_kind_and_a_second_version_compares(published):
    survey, version, X, y = published
    model = NaiveBayesModel.from_dict(version.model)
    assert model.metadata["joint_raw"][1] is None and model.metadata["mean_standard_errors"][0] is None
    assert set(monitoring.raw_parameters(model)) == {"P(c)", "P(a ∧ c) smoker", "P(a ∧ c) sport", "mean age"}
    for name, (raw, se, _) in monitoring.raw_parameters(model).items():
        assert np.all(np.isfinite(raw)) and np.all(np.isfinite(se)) and np.all(se > 0), name
    X2, y2 = respondents(4000, seed=21)
    store(survey, X2, y2, seed=22)
    second = services.retrain(survey, now=after_midnight(2))
    assert second.version == 2
    jumps = [f for f in second.metrics["jumps"]]
    assert {f["parameter"] for f in jumps} <= {"P(c)", "P(a ∧ c) smoker", "P(a ∧ c) sport", "mean age"}
    assert not [f for f in second.metrics["jumps"] + second.metrics["out_of_range"] if f.get("warning")]


# -- the dashboard, exports and predictions ------------------------------------------------------------------------
def test_the_dashboard_page_shows_both_kinds_with_intervals_and_the_privacy_figures(client, boss, published):
    survey, version, X, y = published
    client.force_login(boss)
    response = client.get(reverse("dashboard:survey", args=[survey.slug]))
    assert response.status_code == 200
    data = chart_data(response)
    kinds = [d["kind"] for d in data["distributions"]]
    assert kinds == ["categorical", "numeric", "categorical"]
    smoker, age, _ = data["distributions"]
    assert smoker["interval_method"] == age["interval_method"] == "delta"
    assert all(low is not None and low <= est <= high for s in smoker["series"]
               for low, est, high in zip(s["low"], s["estimate"], s["high"], strict=True))
    assert all(low < est < high for low, est, high in zip(age["low"], age["estimate"], age["high"], strict=True))
    privacy = data["privacy"]
    infinite = dict(zip(privacy["labels"], privacy["epsilon_infinite"], strict=True))
    assert infinite == {"sick": True, "smoker": False, "age": True, "sport": False}
    epsilon = dict(zip(privacy["labels"], privacy["epsilon"], strict=True))
    assert epsilon["smoker"] == pytest.approx(EPSILON, rel=0.05) and epsilon["age"] is None
    assert privacy["epsilon_per_respondent_infinite"]
    assert "Each categorical question's ε is exact" in privacy["epsilon_note"]
    html = response.content.decode()
    # no scikit-learn estimator holds both kinds: no such download, and the page says why
    assert reverse("dashboard:model-sklearn", args=[survey.slug, 1]) not in html
    assert "scikit-learn has no single Naive Bayes estimator for such a model" in html
    assert client.get(reverse("dashboard:model-sklearn", args=[survey.slug, 1])).status_code == 409
    with translation.override("de"):
        html_de = client.get(reverse("dashboard:survey", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE="de").content
    assert "scikit-learn has no single" not in html_de.decode()


def test_exports_hold_both_kinds_with_their_standard_errors(client, boss, published):
    survey, version, X, y = published
    client.force_login(boss)
    response = client.get(reverse("dashboard:frequencies-csv", args=[survey.slug, 1]))
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    smoker = [r for r in rows if r["question"] == "smoker"]
    age = [r for r in rows if r["question"] == "age"]
    assert {r["parameter"] for r in smoker} == {"P(a | c)"} and len(smoker) == 6
    assert all(r["standard_error_kind"] == "delta" and float(r["standard_error"]) > 0 for r in smoker)
    assert [r["parameter"] for r in age] == ["mean", "sd"] * 2
    model = NaiveBayesModel.from_dict(version.model)
    assert float(age[0]["estimate"]) == model.conditionals[1][0, 0] and age[0]["standard_error_kind"] == "delta"
    workbook = load_workbook(io.BytesIO(client.get(reverse("dashboard:frequencies-xlsx",
                                                           args=[survey.slug, 1])).content))
    assert workbook.sheetnames == ["Summary", "sick", "smoker", "age", "sport"]
    card = client.get(reverse("dashboard:model-card", args=[survey.slug, 1])).content.decode()
    assert "∞" in card and "Approach 3" in card
    assert "Frequency oracle for the class and every question with choices" in card
    assert "for each numeric question (Gaussian Naive Bayes) and the share of each answer per class" in card
    markdown = client.get(reverse("dashboard:model-card-md", args=[survey.slug, 1])).content.decode()
    assert "Each categorical question's ε is exact" in markdown
    assert client.get(reverse("dashboard:model-json", args=[survey.slug, 1])).status_code == 200
    reports = client.get(reverse("dashboard:reports-csv", args=[survey.slug]))
    assert reports.status_code == 200 and len(b"".join(reports.streaming_content).splitlines()) == N + 1


def test_prediction_form_and_api_agree_with_the_model(client, boss, published):
    survey, version, X, y = published
    client.force_login(boss)
    model = NaiveBayesModel.from_dict(version.model)
    records = [{"smoker": "daily", "age": 70, "sport": "no"}, {"smoker": "never", "age": 25, "sport": "yes"}]
    api = client.post(f"/api/surveys/{survey.slug}/predict/", {"records": records},
                      content_type="application/json")
    assert api.status_code == 200
    expected = model.predict_labels(get_protocol(survey).to_model_input([[2, 70, 0], [0, 25, 1]]))
    assert api.json()["predictions"] == list(expected) == ["yes", "no"]
    form = client.post(reverse("dashboard:predict", args=[survey.slug]), records[0]).content.decode()
    assert '<output id="predicted">yes</output>' in form
    assert client.get(f"/api/surveys/{survey.slug}/model/").json()["version"] == 1


# -- settings ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("field, value, message", [
    ("gaussian_approach", 1, "uses Approach 3 (one report per respondent)"),
    ("gaussian_approach", 2, "uses Approach 3 (one report per respondent)"),
    ("strategy", "split", "sends one report per respondent"),
])
def test_settings_a_mixed_survey_cannot_take_are_refused_on_their_field(field, value, message):
    survey = make_mixed_survey(status="draft")
    setattr(survey, field, value)
    with pytest.raises(ValidationError) as caught:
        survey.full_clean()
    assert list(caught.value.message_dict) == [field] and message in caught.value.message_dict[field][0]
    with translation.override("de"):
        with pytest.raises(ValidationError) as german:
            survey.full_clean()
    assert message not in german.value.message_dict[field][0]  # translated (locale/de)
    survey.numeric_handling = "discretize"  # binned numbers: every approach setting is moot
    survey.full_clean()


def test_a_mixed_survey_with_approach_1_cannot_open():
    survey = make_mixed_survey(status="draft")
    Survey.objects.filter(pk=survey.pk).update(gaussian_approach=1)  # saved without its checks
    survey.refresh_from_db()
    with pytest.raises(ValueError, match="Approach 3"):
        get_protocol(survey)


# -- manage.py simulate ------------------------------------------------------------------------------------------
def test_simulate_sends_mixed_reports_that_fold(tmp_path):
    survey = make_mixed_survey()
    X, y = respondents(300, seed=5)
    path = tmp_path / "mixed.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["smoker", "age", "sport", "sick"])
        for row, c in zip(X, y, strict=True):
            writer.writerow([SMOKER[int(row[0])], f"{row[1]:.1f}", SPORT[int(row[2])], ("no", "yes")[c]])
    out = io.StringIO()
    call_command("simulate", survey.slug, str(path), "--respondents", "300", "--seed", "1", stdout=out)
    assert "300 simulated reports" in out.getvalue()
    payloads = [r.payload for r in PendingReport.objects.filter(survey=survey)]
    assert len(payloads) == 300
    protocol = get_protocol(survey)
    training = [p for p in payloads if "validation" not in p]
    assert protocol.fold(training).n == len(training)
    services.retrain(survey, now=after_midnight())
    assert ModelVersion.objects.filter(survey=survey).count() == 1
    assert math.isfinite(ModelVersion.objects.get(survey=survey).model["conditionals"][1][0][0])
