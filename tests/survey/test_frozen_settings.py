"""Once a survey has been opened, nothing its protocol covers changes (issue 27 item 4): the admin's survey page,
its question inlines and the question's own page refuse with a clear message (English and German), the services
that write refuse too, and the survey never goes back to draft; texts and translations stay editable. Clone to
change."""
import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from survey_app.models import Choice, Question, Survey
from survey_app.protocol import get_protocol
from survey_app.services import clone_survey, fit_projection, parse_choice_lines, sync_choices
from tests.admin_support import change_url, page_data, question_form
from tests.factories import make_draft_survey

pytestmark = pytest.mark.django_db


def opened(admin_client) -> Survey:
    survey = make_draft_survey()
    response = admin_client.post("/admin/survey_app/survey/", {"action": "open_surveys",
                                                               "_selected_action": [survey.pk]})
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.status == "open"
    return survey


def errors_of(response) -> str:
    return response.content.decode()


def test_the_admin_refuses_a_privacy_setting_change_after_opening(admin_client):
    survey = opened(admin_client)
    version = get_protocol(survey).version
    data = page_data(admin_client.get(change_url(survey)))
    data["epsilon"] = "0.5"
    response = admin_client.post(change_url(survey), data)
    assert response.status_code == 200  # the form again, with the message
    assert "This survey has been opened: its privacy settings can no longer change" in errors_of(response)
    assert "Changed: epsilon" in errors_of(response)
    survey.refresh_from_db()
    assert survey.epsilon == 1.0 and get_protocol(survey).version == version
    with translation.override("de"):
        response = admin_client.post(change_url(survey), data, HTTP_ACCEPT_LANGUAGE="de")
        assert "Diese Umfrage wurde geöffnet" in errors_of(response)


def test_the_admin_refuses_a_question_or_choice_change_but_not_a_text_change(admin_client):
    survey = opened(admin_client)
    page = admin_client.get(change_url(survey))
    data = page_data(page)
    prefix = question_form(data, survey, "smoker")
    # no question can be added or removed: no blank form, no delete box
    assert f"{prefix}-DELETE" not in data and 'id="questions-empty"' not in page.content.decode()
    changed = {**data, f"{prefix}-choices_text": "never\nsometimes\ndaily\nweekly"}
    response = admin_client.post(change_url(survey), changed)
    assert response.status_code == 200 and "its answers can no longer change" in errors_of(response)
    assert survey.questions.get(name="smoker").choices.count() == 3
    grouped = {**data, f"{prefix}-group": "1"}
    response = admin_client.post(change_url(survey), grouped)
    assert response.status_code == 200 and "what its questions send can no longer change (group)" in errors_of(response)
    assert survey.questions.get(name="smoker").group == 0
    reworded = {**data, f"{prefix}-text": "How often do you smoke?"}
    assert admin_client.post(change_url(survey), reworded).status_code == 302
    assert survey.questions.get(name="smoker").text == "How often do you smoke?"
    # the question's own page: the choice inline offers no new choice, and a new label is refused
    smoker = survey.questions.get(name="smoker")
    own = admin_client.get(f"/admin/survey_app/question/{smoker.pk}/change/")
    assert own.status_code == 200 and 'id="choices-empty"' not in own.content.decode()
    choice = smoker.choices.first()
    choice.label = "not at all"
    with pytest.raises(ValidationError, match="its answers can no longer change"):
        choice.full_clean()
    new = Question(survey=survey, name="weight", text="Weight", kind="numeric", low=30, high=200, position=5)
    with pytest.raises(ValidationError, match="no question can be added"):
        new.full_clean()


def test_an_opened_survey_never_goes_back_to_draft_and_the_services_refuse(admin_client):
    survey = opened(admin_client)
    data = page_data(admin_client.get(change_url(survey)))
    data["status"] = "draft"
    response = admin_client.post(change_url(survey), data)
    assert response.status_code == 200 and "cannot go back to draft" in errors_of(response)
    assert Survey.objects.get(pk=survey.pk).status == "open"
    smoker = survey.questions.get(name="smoker")
    with pytest.raises(ValidationError, match="its answers can no longer change"):
        sync_choices(smoker, parse_choice_lines("never\ndaily", kind="categorical"))
    assert smoker.choices.count() == 3
    sync_choices(smoker, parse_choice_lines("never\nsometimes\ndaily", kind="categorical"))  # no change: fine
    with pytest.raises(ValidationError, match="has been opened"):
        fit_projection(survey)
    # closed is still opened
    Survey.objects.filter(pk=survey.pk).update(status="closed")
    survey.refresh_from_db()
    survey.theta = 0.9
    with pytest.raises(ValidationError, match="Changed: theta"):
        survey.full_clean()


def test_a_clone_is_a_draft_whose_settings_change(admin_client):
    survey = opened(admin_client)
    copy = clone_survey(survey)
    copy.epsilon = 0.5
    copy.full_clean()
    copy.save()
    Choice.objects.filter(question__survey=copy, label="daily").update(label="every day")
    assert get_protocol(Survey.objects.get(pk=copy.pk)).version != get_protocol(survey).version


def test_a_draft_changes_freely(admin_client):
    survey = make_draft_survey()
    data = page_data(admin_client.get(change_url(survey)))
    data["epsilon"] = "0.5"
    assert admin_client.post(change_url(survey), data).status_code == 302
    assert Survey.objects.get(pk=survey.pk).epsilon == 0.5


def test_the_management_api_refuses_too():
    """The management API (``survey_app.manage_api``) opens through ``open_survey`` and changes settings through
    ``Survey.clean``: an opened survey without reports keeps its privacy settings, and θ = 1 does not open."""
    from tests.manage_support import COMMUTE, designer

    api = designer()
    assert api.post("/api/manage/surveys/", COMMUTE, format="json").status_code == 201
    assert api.post("/api/manage/surveys/commute/open/").json()["status"] == "open"
    response = api.patch("/api/manage/surveys/commute/", {"epsilon": 2.0}, format="json")
    assert response.status_code == 400 and "has been opened" in str(response.json())
    assert Survey.objects.get(slug="commute").epsilon == 1.0
    assert api.patch("/api/manage/surveys/commute/", {"title": "Commute"}, format="json").status_code == 200
    mrr = {**COMMUTE, "slug": "commute-mrr", "mode": "mrr", "theta": 1.0, "epsilon": None}
    assert api.post("/api/manage/surveys/", mrr, format="json").status_code == 201
    response = api.post("/api/manage/surveys/commute-mrr/open/")
    assert response.status_code == 409 and "give no privacy" in response.json()["detail"]
    assert Survey.objects.get(slug="commute-mrr").status == "draft"
