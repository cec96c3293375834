"""The model and predict APIs: latest version, 404s, predictions, and 400s naming the record and field."""
import datetime

import pytest
from rest_framework.test import APIClient

from aggregator import services
from aggregator.models import SurveyStatistics
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from survey_app.protocol import get_protocol
from tests.factories import add_reports, after_midnight, make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    return APIClient()


@pytest.fixture
def trained():
    survey = make_survey(mode="mrr")
    add_reports(survey, 3000)
    services.retrain(survey, now=after_midnight())
    return survey


def predict(client, slug, records):
    return client.post(f"/api/surveys/{slug}/predict/", {"records": records}, format="json")


def test_model_endpoint_serves_the_latest_version(client, trained):
    add_reports(trained, 10, seed=1)
    assert services.retrain(trained, now=after_midnight()) is None  # today is closed: the 10 wait for tomorrow's end
    services.retrain(trained, now=after_midnight(2))
    body = client.get("/api/surveys/health/model/").json()
    assert (body["version"], body["report_count"]) == (2, 3010)
    assert set(body) == {"version", "report_count", "through_day", "model", "privacy", "accuracy", "warnings",
                         "created_at"}
    assert body["through_day"] == after_midnight(1).date().isoformat()
    model = NaiveBayesModel.from_dict(body["model"])
    assert model.classes == ("no", "yes")
    assert body["privacy"]["mode"] == "mrr"


def test_for_validation_the_model_endpoint_serves_the_newest_version_published_before_today(client, trained):
    """LDP validation respondents evaluate ``?for=validation`` (static/js/survey.mjs): the newest version published
    before the current UTC day, so the version in their report reveals only its day; the plain URL stays the latest."""
    import datetime

    from aggregator.models import ModelVersion

    url = "/api/surveys/health/model/"
    none_yet = client.get(url, {"for": "validation"})  # version 1 is today's: nothing to evaluate, and no error
    assert none_yet.status_code == 204 and none_yet.content == b""
    day = datetime.timedelta(days=1)
    ModelVersion.objects.filter(survey=trained, version=1).update(created_at=services.latest_version(
        trained).created_at - day)
    add_reports(trained, 10, seed=1)
    services.retrain(trained, now=after_midnight(2))  # version 2, today
    assert client.get(url).json()["version"] == 2
    body = client.get(url, {"for": "validation"}).json()
    assert body["version"] == 1 and body["report_count"] == 3000
    assert set(body) == {"version", "report_count", "through_day", "model", "privacy", "accuracy", "warnings",
                         "created_at"}
    response = client.get(url, {"for": "training"})
    assert response.status_code == 400 and "for" in response.json()["detail"]  # the documented {"detail"} body


def test_model_endpoint_404s(client):
    make_survey()
    assert client.get("/api/surveys/health/model/").status_code == 404  # nothing published
    assert client.get("/api/surveys/nope/model/").status_code == 404
    draft = make_survey(slug="draft", status="draft")
    add_reports(draft, 20)
    services.retrain(draft, now=after_midnight())
    assert client.get("/api/surveys/draft/model/").status_code == 404  # drafts are not public


def test_predict_matches_the_model(client, trained):
    records = [{"smoker": "daily", "age": 30}, {"smoker": "never", "age": 70.5},
               {"smoker": "sometimes", "age": 50, "sick": "yes"}]  # the class answer, if sent, is ignored
    response = predict(client, "health", records)
    assert response.status_code == 200, response.content
    body = response.json()
    protocol = get_protocol(trained)
    model = protocol.estimate(protocol.stats_from_dict(SurveyStatistics.objects.get(survey=trained).stats))
    expected = model.predict_labels(protocol.to_model_input([[2, 30], [0, 70.5], [1, 50]]))
    assert body == {"version": 1, "predictions": expected}
    assert body["predictions"][:2] == ["yes", "no"]  # daily smokers are sick in the simulated data


@pytest.mark.parametrize("records, field, message", [
    ([{"smoker": "daily", "age": 30}, {"smoker": "weekly", "age": 30}], "records[1].smoker", "Unknown answer 'weekly'"),
    ([{"smoker": "daily"}], "records[0].age", "Missing answer"),
    ([{"smoker": "daily", "age": "old"}], "records[0].age", "finite number"),
    ([{"smoker": "daily", "age": True}], "records[0].age", "finite number"),
    ([{"smoker": "daily", "age": 30, "height": 180}], "records[0].height", "No such question"),
])
def test_predict_400_names_record_and_field(client, trained, records, field, message):
    response = predict(client, "health", records)
    assert response.status_code == 400
    assert message in response.json()[field][0]


def test_predict_malformed_body_and_404s(client, trained):
    assert client.post("/api/surveys/health/predict/", {}, format="json").status_code == 400
    assert predict(client, "health", []).status_code == 400
    assert predict(client, "health", ["daily"]).status_code == 400
    assert predict(client, "nope", [{"smoker": "daily", "age": 30}]).status_code == 404
    make_survey(slug="fresh")
    assert predict(client, "fresh", [{"smoker": "daily", "age": 30}]).status_code == 404


def test_endpoints_are_in_the_openapi_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "/api/surveys/{slug}/model/" in schema and "/api/surveys/{slug}/predict/" in schema


def test_validation_reports_through_the_api(client):
    survey = make_survey(mode="ldp", encoding="oue")
    url = f"/api/surveys/{survey.slug}/reports/"
    body = {"report": {"validation": {"version": 1, "report": 1}}}
    response = client.post(url, body, format="json")
    assert response.status_code == 400 and "report.validation.version" in response.json()
    add_reports(survey, 300)
    services.retrain(survey, now=after_midnight())
    # Version 1 was published today: validation respondents evaluate it from tomorrow (UTC) on.
    response = client.post(url, body, format="json")
    assert response.status_code == 409 and response.json()["code"] == "stale_model_version"
    from aggregator.models import ModelVersion
    ModelVersion.objects.filter(survey=survey).update(created_at=services.latest_version(survey).created_at
                                                      - datetime.timedelta(days=1))
    assert client.post(url, body, format="json").status_code == 201
    response = client.post(url, {"report": {"validation": {"version": 1, "report": 3}}}, format="json")
    assert response.status_code == 400 and "report.validation.report" in response.json()
    services.fold_new_reports(survey)
    assert client.get(f"/api/surveys/{survey.slug}/model/").json()["accuracy"] is None  # its day has not ended
    services.publish_model(survey, now=after_midnight(2))
    accuracy = client.get(f"/api/surveys/{survey.slug}/model/").json()["accuracy"]
    assert accuracy["version"] == 1 and accuracy["reports"] == 1
    protocol = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    assert protocol["model_url"] == f"/api/surveys/{survey.slug}/model/"
