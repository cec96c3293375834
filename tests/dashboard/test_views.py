"""The dashboard's pages, actions and downloads against the test database: staff only, per-survey permissions, key
figures on the pages, the chart JSON handed to the page, "retrain now" jobs (eager Celery, unreachable broker), the
reports CSV, model downloads (JSON, scikit-learn) and the prediction form."""
import csv
import io
import json

import joblib
import numpy as np
import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from kombu.exceptions import OperationalError

from aggregator import services, tasks
from aggregator.dashboard import charts
from aggregator.dashboard import urls as dashboard_urls
from aggregator.models import Job, ModelVersion
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from survey_app.models import PendingReport, Question, Report, Survey
from survey_app.protocol import get_protocol
from tests.factories import add_reports, after_midnight, make_survey, pass_days

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss():
    return User.objects.create_superuser("boss", "boss@example.invalid", "pw")


@pytest.fixture
def trained(boss):
    """An MRR survey with 1,500 training and 300 validation reports and one published version."""
    survey = make_survey(mode="mrr", validation_share=0.2)
    reports = add_reports(survey, 1800)
    for report in reports[:300]:  # the validation share sends the same randomized records, marked as validation
        PendingReport.objects.filter(pk=report.pk).update(payload={"validation": report.payload})
    services.retrain(survey, now=after_midnight())
    return survey


@pytest.fixture
def job(trained):
    return Job.objects.create(kind="retrain", survey=trained)


def dashboard_urls_for(survey, job) -> list[tuple[str, str]]:
    """(method, URL) for every dashboard URL pattern."""
    slug = survey.slug
    return [
        ("get", reverse("dashboard:index")),
        ("get", reverse("dashboard:survey", args=[slug])),
        ("post", reverse("dashboard:retrain", args=[slug])),
        ("get", reverse("dashboard:predict", args=[slug])),
        ("get", reverse("dashboard:reports-csv", args=[slug])),
        ("get", reverse("dashboard:model-json", args=[slug, 1])),
        ("get", reverse("dashboard:model-sklearn", args=[slug, 1])),
        ("get", reverse("dashboard:frequencies-csv", args=[slug, 1])),
        ("get", reverse("dashboard:frequencies-xlsx", args=[slug, 1])),
        ("get", reverse("dashboard:model-card", args=[slug, 1])),
        ("get", reverse("dashboard:model-card-md", args=[slug, 1])),
        ("get", reverse("dashboard:job", args=[job.pk])),
        # not about one survey (tests/dashboard/test_planner_views.py has their own rules)
        ("get", reverse("dashboard:planner")),
        ("get", reverse("dashboard:planner-result", args=[job.pk])),
        ("post", reverse("dashboard:planner-apply", args=[job.pk])),
        ("get", reverse("dashboard:glossary")),
    ]


URL_COUNT = 16
SURVEY_URL_COUNT = 12  # the first ones: a survey's pages and its job


def test_the_access_tests_cover_every_dashboard_url(trained, job):
    assert len(dashboard_urls.urlpatterns) == URL_COUNT == len(dashboard_urls_for(trained, job))


# -- access -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(URL_COUNT))
def test_anonymous_visitors_are_sent_to_the_admin_login(client, trained, job, index):
    method, url = dashboard_urls_for(trained, job)[index]
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login") + "?next=")
    assert Job.objects.count() == 1  # nothing started


@pytest.mark.parametrize("index", range(URL_COUNT))
def test_signed_in_users_who_are_not_staff_are_refused(client, trained, job, index):
    user = User.objects.create_user("carol", password="pw")
    trained.designers.add(user)  # designing a survey does not make anyone staff
    client.force_login(user)
    method, url = dashboard_urls_for(trained, job)[index]
    assert getattr(client, method)(url).status_code == 403
    assert Job.objects.count() == 1


@pytest.mark.parametrize("index", range(1, SURVEY_URL_COUNT))
def test_staff_see_only_the_surveys_they_design(client, trained, job, index):
    other = User.objects.create_user("dave", password="pw", is_staff=True)
    client.force_login(other)
    method, url = dashboard_urls_for(trained, job)[index]
    assert getattr(client, method)(url).status_code == 404
    assert trained.title not in client.get(reverse("dashboard:index")).content.decode()
    trained.designers.add(other)
    assert trained.title in client.get(reverse("dashboard:index")).content.decode()


@pytest.mark.parametrize("who", ["superuser", "designer"])
@pytest.mark.parametrize("index", [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11])  # every GET; "retrain now": tests below
def test_superusers_and_designers_get_every_page(client, boss, trained, job, index, who):
    if who == "designer":
        designer = User.objects.create_user("erin", password="pw", is_staff=True)
        trained.designers.add(designer)
        client.force_login(designer)
    else:
        client.force_login(boss)
    method, url = dashboard_urls_for(trained, job)[index]
    assert getattr(client, method)(url).status_code == 200


# -- pages ------------------------------------------------------------------------------------------------------
def test_survey_list_shows_counts_model_accuracy_and_privacy(client, boss, trained):
    make_survey(slug="empty", mode="ldp")
    client.force_login(boss)
    html = client.get(reverse("dashboard:index")).content.decode()
    version = ModelVersion.objects.get(survey=trained)
    accuracy = services.latest_accuracy(trained)[1]
    summary = charts.privacy_summary(version.privacy)
    assert "1500 / 300" in html and "v1" in html
    assert f"{100 * accuracy['estimate']:.1f} %" in html
    assert f"{summary['epsilon_per_respondent']:.2f}" in html
    assert f"{summary['pse_before']:.3f} / {summary['pse_after']:.3f}" in html
    assert reverse("admin:survey_app_survey_change", args=[trained.pk]) in html
    assert reverse("dashboard:survey", args=["empty"]) in html and "none yet" in html


def chart_data(response) -> dict:
    html = response.content.decode()
    tag = '<script id="dashboard-data" type="application/json">'
    start = html.index(tag) + len(tag)
    return json.loads(html[start:html.index("</script>", start)])


def test_survey_page_shows_key_figures_and_hands_the_chart_json_over(client, boss, trained):
    add_reports(trained, 40, seed=3)  # received, not yet folded
    client.force_login(boss)
    response = client.get(reverse("dashboard:survey", args=[trained.slug]))
    html = response.content.decode()
    version = ModelVersion.objects.get(survey=trained)
    assert "1500 training · 300 validation" in html and "(and 40 not yet folded)" in html
    assert "1540 training · 300 validation" in html  # received
    assert "version 1" in html and f"from {version.report_count} reports" in html
    data = chart_data(response)
    assert data["reports"]["training"] == [1540] and data["reports"]["validation"] == [300]
    assert data["accuracy"] == charts.accuracy_series([1], services.accuracy_by_version(trained))
    assert data["distributions"] == charts.attribute_distributions(version.model, get_protocol(trained))
    assert {attr["interval_method"] for attr in data["distributions"]} == {"bound"}  # MRR: the conservative bound
    assert data["privacy"] == charts.privacy_per_attribute(version.privacy)
    assert 'style="' not in html and " onclick=" not in html  # CSP: no inline styles or handlers
    assert html.count("<script") == 3  # Chart.js, the page module, and the JSON data (not executed)
    assert reverse("dashboard:model-json", args=[trained.slug, 1]) in html
    assert reverse("dashboard:model-sklearn", args=[trained.slug, 1]) in html
    assert "only files from a source you trust" in html


def test_survey_page_lists_warnings_with_parameter_version_and_size(client, boss, trained):
    first = ModelVersion.objects.get(survey=trained)
    metrics = {"validation_count": 300, "out_of_range": [],
               "jumps": [{"parameter": "P(a ∧ c) smoker", "entries": 2, "worst_z": 9.24, "from": 0.1, "to": 0.4,
                          "warning": True}]}
    ModelVersion.objects.create(survey=trained, version=2, model=first.model, report_count=first.report_count + 1,
                                privacy=first.privacy, metrics=metrics)
    client.force_login(boss)
    html = client.get(reverse("dashboard:survey", args=[trained.slug])).content.decode()
    assert "jumped since v1" in html and "P(a ∧ c) smoker" in html and ">9.2<" in html
    assert "largest move from 0.1000 to 0.4000" in html
    assert '<a href="#warnings" class="badge-warning">1</a>' in html
    assert "<span class=\"badge-warning\">1</span>" in client.get(reverse("dashboard:index")).content.decode()


def test_pages_of_a_survey_without_reports_or_model(client, boss):
    survey = make_survey(slug="fresh")
    client.force_login(boss)
    response = client.get(reverse("dashboard:survey", args=["fresh"]))
    assert response.status_code == 200 and "none published yet" in response.content.decode()
    assert chart_data(response)["distributions"] == [] and chart_data(response)["reports"]["labels"] == []
    expected = get_protocol(survey).privacy()["epsilon_per_respondent"]
    assert chart_data(response)["privacy"]["epsilon_per_respondent"] == expected
    assert "No model has been published" in client.get(reverse("dashboard:predict", args=["fresh"])).content.decode()
    assert client.get(reverse("dashboard:survey", args=["fresh"]) + "?version=3").status_code == 404


def test_ldp_accuracy_says_which_version_respondents_evaluated(client, boss):
    survey = make_survey(slug="ldp", mode="ldp", validation_share=0.2)
    add_reports(survey, 1500)
    first = services.retrain(survey, now=after_midnight())
    protocol = get_protocol(survey)
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 3, 400), rng.uniform(18, 98, 400)])
    y = (X[:, 0] == 2).astype(np.int64)
    validation = protocol.encode_validation(X, y, rng, published=(1, NaiveBayesModel.from_dict(first.model)))
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=v) for v in validation])
    add_reports(survey, 100, seed=2)
    assert services.retrain(survey, now=after_midnight(2)).version == 2
    client.force_login(boss)
    html = client.get(reverse("dashboard:index")).content.decode()
    assert "of v1" in html  # the newest estimate concerns version 1, older than the latest model
    data = chart_data(client.get(reverse("dashboard:survey", args=["ldp"])))
    assert data["accuracy"]["labels"] == ["v1", "v2"] and data["accuracy"]["estimate"][1] is None
    assert data["accuracy"]["reports"][0] == 400


def test_gaussian_survey_page_has_numeric_distributions(client, boss):
    survey = Survey.objects.create(title="Body", slug="body", mode="ldp", epsilon=2.0, status="open",
                                   numeric_handling="gaussian", gaussian_approach=3, validation_share=0)
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=0)
    Question.objects.create(survey=survey, name="weight", text="Weight", kind="numeric", low=40, high=160, position=1)
    Question.objects.create(survey=survey, name="sick", text="Sick?", kind="binary", is_class=True, position=2)
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    X = np.column_stack([np.where(y == 1, 65, 35) + 8 * rng.standard_normal(3000), 60 + 30 * rng.random(3000)])
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p)
                                       for p in get_protocol(survey).encode(X, y, rng)])
    version = services.retrain(survey, now=after_midnight())
    client.force_login(boss)
    data = chart_data(client.get(reverse("dashboard:survey", args=["body"])))
    assert [d["kind"] for d in data["distributions"]] == ["numeric", "numeric"]
    assert data["distributions"][0]["estimate"] == pytest.approx(version.model["conditionals"][0][0])
    response = client.get(reverse("dashboard:model-sklearn", args=["body", 1]))
    estimator = joblib.load(io.BytesIO(response.content))
    assert type(estimator).__name__ == "GaussianNB"


# -- retrain now ------------------------------------------------------------------------------------------------
def test_retrain_now_runs_a_job_and_the_page_follows_it(client, boss, trained, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    add_reports(trained, 60, seed=4)
    pass_days(monkeypatch, 2)  # their day has ended (the trained fixture closed today)
    client.force_login(boss)
    response = client.post(reverse("dashboard:retrain", args=[trained.slug]))
    job = Job.objects.get(survey=trained)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('dashboard:survey', args=[trained.slug])}?job={job.pk}#retrain"
    assert job.created_by == boss and job.state == "done" and job.result == {"version": 2}
    status = client.get(reverse("dashboard:job", args=[job.pk]))
    assert status["Cache-Control"] == "no-store"
    assert status.json() == job.as_dict() and status.json()["finished"] is True
    assert "Published version 2 (1560 reports)" in status.json()["message"]
    html = client.get(response["Location"]).content.decode()
    assert 'data-job-url="' + reverse("dashboard:job", args=[job.pk]) + '"' in html
    assert "Published version 2" in html and "version 2" in html


def test_retrain_now_needs_post_and_csrf(boss, trained):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(boss)
    assert client.get(reverse("dashboard:retrain", args=[trained.slug])).status_code == 405
    assert client.post(reverse("dashboard:retrain", args=[trained.slug])).status_code == 403  # no CSRF token
    assert not Job.objects.exists()


def test_an_unreachable_broker_fails_the_job_with_a_message_the_page_shows(client, boss, trained, monkeypatch):
    def unreachable(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(tasks.retrain_job, "delay", unreachable)
    client.force_login(boss)
    response = client.post(reverse("dashboard:retrain", args=[trained.slug]), follow=True)
    job = Job.objects.get(survey=trained)
    assert job.state == "failed" and "unreachable" in job.message
    html = response.content.decode()
    assert 'class="job failed"' in html and "The task queue is unreachable" in html
    assert client.get(reverse("dashboard:job", args=[job.pk])).json()["state"] == "failed"


def test_a_job_of_another_survey_is_not_shown(client, boss, trained):
    other = make_survey(slug="other")
    job = Job.objects.create(kind="retrain", survey=other, message="other-survey-job-7f3a")
    client.force_login(boss)
    html = client.get(reverse("dashboard:survey", args=[trained.slug]) + f"?job={job.pk}").content.decode()
    assert "other-survey-job-7f3a" not in html


# -- downloads --------------------------------------------------------------------------------------------------
def test_reports_csv_streams_every_report_and_nothing_else(client, boss, trained):
    add_reports(trained, 5, seed=9)  # still in the inbox: exported too
    client.force_login(boss)
    response = client.get(reverse("dashboard:reports-csv", args=[trained.slug]))
    assert response.streaming and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="health-reports.csv"'
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    stored = {str(r.pk): r for model in (Report, PendingReport) for r in model.objects.filter(survey=trained)}
    assert len(rows) == len(stored) == 1805
    assert set(rows[0]) == {"id", "received_on", "kind", "payload"}
    assert [r["id"] for r in rows] == sorted(stored)  # one day: by random key, no arrival order
    for row in rows:
        report = stored[row["id"]]
        assert json.loads(row["payload"]) == report.payload
        assert row["received_on"] == report.received_on.isoformat()
        assert row["kind"] == ("validation" if "validation" in report.payload else "training")
    assert sum(r["kind"] == "validation" for r in rows) == 300


def test_model_json_download_is_the_published_model(client, boss, trained):
    client.force_login(boss)
    response = client.get(reverse("dashboard:model-json", args=[trained.slug, 1]))
    assert response["Content-Disposition"] == 'attachment; filename="health-v1.json"'
    body = json.loads(response.content)
    assert body == ModelVersion.objects.get(survey=trained, version=1).model
    assert NaiveBayesModel.from_dict(body).classes == ("no", "yes")
    assert client.get(reverse("dashboard:model-json", args=[trained.slug, 9])).status_code == 404


def test_sklearn_download_predicts_as_the_published_model(client, boss, trained):
    client.force_login(boss)
    response = client.get(reverse("dashboard:model-sklearn", args=[trained.slug, 1]))
    assert response["Content-Disposition"] == 'attachment; filename="health-v1-sklearn.joblib"'
    estimator = joblib.load(io.BytesIO(response.content))
    model = NaiveBayesModel.from_dict(ModelVersion.objects.get(survey=trained, version=1).model)
    rng = np.random.default_rng(8)
    X = np.column_stack([rng.integers(0, a.size, 2000) for a in model.attributes])
    np.testing.assert_array_equal(estimator.predict(X), np.asarray(model.predict_labels(X), dtype=object))
    np.testing.assert_allclose(estimator.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-9)


# -- prediction form --------------------------------------------------------------------------------------------
def test_prediction_form_has_one_input_per_feature_question(client, boss, trained):
    client.force_login(boss)
    html = client.get(reverse("dashboard:predict", args=[trained.slug])).content.decode()
    assert '<select name="smoker"' in html and '<option value="daily">daily</option>' in html
    assert 'type="number" name="age"' in html and 'min="18.0"' in html and 'max="98.0"' in html
    assert 'name="sick"' not in html  # the class is what is predicted


def test_prediction_form_predicts_as_the_api(client, boss, trained):
    client.force_login(boss)
    response = client.post(reverse("dashboard:predict", args=[trained.slug]), {"smoker": "daily", "age": "30"})
    html = response.content.decode()
    api = client.post(f"/api/surveys/{trained.slug}/predict/", {"records": [{"smoker": "daily", "age": 30}]},
                      content_type="application/json").json()
    assert f'<output id="predicted">{api["predictions"][0]}</output>' in html
    model = NaiveBayesModel.from_dict(ModelVersion.objects.get(survey=trained).model)
    proba = model.predict_proba(get_protocol(trained).to_model_input([[2, 30]]))[0]
    for label, p in zip(model.classes, proba, strict=True):
        assert f"<td>{label}</td><td class=\"num\">{p:.4f}</td>" in html


def test_prediction_form_rejects_answers_outside_the_public_bounds(client, boss, trained):
    client.force_login(boss)
    response = client.post(reverse("dashboard:predict", args=[trained.slug]), {"smoker": "weekly", "age": "200"})
    html = response.content.decode()
    assert "Select a valid choice" in html and "less than or equal to 98" in html
    assert 'id="predicted"' not in html
