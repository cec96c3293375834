"""The management API (``/api/manage/``): token-authenticated staff create, edit, open, close and clone the surveys
they design and generate invitations; the models' and the engine's rules apply as in the admin."""
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from survey_app.models import InvitationToken, Survey
from tests.factories import add_reports, make_survey
from tests.manage_support import COMMUTE, designer

pytestmark = pytest.mark.django_db

def test_a_designer_creates_opens_and_closes_a_survey():
    api = designer()
    created = api.post("/api/manage/surveys/", COMMUTE, format="json")
    assert created.status_code == 201, created.json()
    survey = Survey.objects.get(slug="commute")
    assert survey.status == "draft" and survey.designers.get().username == "alice"
    assert [c.label for c in survey.questions.get(name="mode").choices.all()] == ["Walk", "Bike", "Bus or train",
                                                                                   "Car"]
    assert created.json()["questions"][0]["choices"] == ["Walk", "Bike", "Bus or train", "Car"]
    assert api.post("/api/manage/surveys/commute/open/").json()["status"] == "open"
    assert [s["slug"] for s in api.get("/api/manage/surveys/").json()] == ["commute"]
    assert api.post("/api/manage/surveys/commute/close/").json()["status"] == "closed"


@pytest.mark.parametrize("change, field", [
    ({"epsilon": -1}, "epsilon"),
    ({"mode": "mrr", "theta": None}, "theta"),
    ({"questions": [{"name": "mode", "text": "?", "kind": "categorical", "choices": ["Walk", "Walk"]}]}, "questions"),
    ({"quota": 0}, "quota"),
])
def test_bad_surveys_are_refused_with_the_field_and_nothing_is_stored(change, field):
    response = designer().post("/api/manage/surveys/", {**COMMUTE, **change}, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not Survey.objects.exists()


def test_a_survey_that_cannot_run_does_not_open():
    api = designer()
    api.post("/api/manage/surveys/", {**COMMUTE, "questions": COMMUTE["questions"][:1]}, format="json")
    response = api.post("/api/manage/surveys/commute/open/")
    assert response.status_code == 409 and "cannot open" in response.json()["detail"]
    assert Survey.objects.get(slug="commute").status == "draft"


def test_privacy_settings_are_frozen_once_reports_exist_and_a_clone_can_change_them():
    api = designer()
    survey = make_survey()
    survey.designers.add(User.objects.get(username="alice"))
    add_reports(survey, 10)
    response = api.patch("/api/manage/surveys/health/", {"epsilon": 2.0}, format="json")
    assert response.status_code == 400 and Survey.objects.get(slug="health").epsilon == 1.0
    assert api.patch("/api/manage/surveys/health/", {"title": "Health 2026"}, format="json").status_code == 200
    copy = api.post("/api/manage/surveys/health/clone/").json()
    assert copy["status"] == "draft"
    assert api.patch(f"/api/manage/surveys/{copy['slug']}/", {"epsilon": 2.0}, format="json").json()["epsilon"] == 2


def test_invitations_for_a_token_survey():
    api = designer()
    survey = make_survey(access="tokens")
    survey.designers.add(User.objects.get(username="alice"))
    response = api.post("/api/manage/surveys/health/invitations/", {"count": 3, "batch": "March"}, format="json")
    assert response.status_code == 201 and len(response.json()["links"]) == 3
    tokens = InvitationToken.objects.filter(survey=survey, batch="March")
    assert sorted(f"http://testserver/s/health/i/#{t.token}" for t in tokens) == sorted(response.json()["links"])
    assert api.post("/api/manage/surveys/health/invitations/", {"count": 0}, format="json").status_code == 400
    make_survey(slug="open-link").designers.add(User.objects.get(username="alice"))
    assert api.post("/api/manage/surveys/open-link/invitations/", {"count": 1}, format="json").status_code == 400


def test_only_token_holders_who_design_the_survey_and_hold_the_permission_get_in():
    make_survey()  # designed by nobody
    assert APIClient().get("/api/manage/surveys/").status_code == 401
    api = designer()
    assert api.get("/api/manage/surveys/").json() == []
    assert api.get("/api/manage/surveys/health/").status_code == 404
    assert api.post("/api/manage/surveys/health/close/").status_code == 404
    reader = designer("bob", perms=("view",))
    assert reader.post("/api/manage/surveys/", COMMUTE, format="json").status_code == 403
    survey = Survey.objects.get(slug="health")
    survey.designers.add(User.objects.get(username="bob"))
    assert reader.get("/api/manage/surveys/health/").status_code == 200
    assert reader.post("/api/manage/surveys/health/close/").status_code == 403
    assert Survey.objects.get(slug="health").status == "open"
    # A session (the admin's login) is not enough: the API takes tokens only, so no CSRF question arises.
    session = APIClient()
    session.force_login(User.objects.create_superuser("root"))
    session.handler.enforce_csrf_checks = True
    assert session.get("/api/manage/surveys/").status_code in (401, 403)


def test_the_schema_documents_the_management_api(client):
    schema = client.get("/api/schema/").content.decode()
    for path in ("/api/manage/surveys/", "/api/manage/surveys/{slug}/open/", "/api/manage/surveys/{slug}/invitations/"):
        assert path in schema
    assert "A two-question LDP survey" in schema


def test_a_survey_with_skip_logic_is_created_and_a_condition_on_a_later_question_refused():
    from survey_app.protocol import protocol_config

    late = {"name": "delay", "text": "How late?", "kind": "categorical", "choices": ["minutes", "hours"],
            "show_if": {"question": "mode", "answers": ["Bus or train", "Car"]}}
    questions = [COMMUTE["questions"][0], late, COMMUTE["questions"][1]]
    api = designer()
    created = api.post("/api/manage/surveys/", {**COMMUTE, "questions": questions}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["questions"][1]["show_if"] == {"question": "mode", "answers": ["Bus or train", "Car"]}
    assert protocol_config(Survey.objects.get(slug="commute"))["features"][1]["values"] == ["minutes", "hours",
                                                                                            "Not asked"]
    refused = api.post("/api/manage/surveys/", {**COMMUTE, "slug": "again", "questions": [late, *COMMUTE["questions"]]},
                       format="json")
    assert refused.status_code == 400 and "must come before it" in str(refused.json()["questions"])
    assert not Survey.objects.filter(slug="again").exists()
