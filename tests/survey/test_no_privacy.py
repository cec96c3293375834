"""No promise the settings cannot keep (issue 27 item 5): the engine says which questions a survey's settings give
no privacy (ε = ∞ against every reader, ``SurveyProtocol.unprotected``), such a survey cannot open — by the admin's
action, its form, the table import or ``open_survey`` — while the documented cases (the grid-Laplace edge, MRR's real
unrelated questions against someone who knows them) still do; the pages never say "randomizes" for it (English and
German); a question with one possible answer is refused at import and in the admin; the PSE headline names its
group."""
import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from aggregator import services as aggregator_services
from aggregator.privacy import survey_protocol as sp
from aggregator.privacy.schema import Categorical
from survey_app.models import Choice, Question, Survey
from survey_app.protocol import get_protocol
from survey_app.services import CannotOpen, open_survey
from tests.factories import add_reports, after_midnight, make_draft_survey, make_survey

pytestmark = pytest.mark.django_db

SICK = Categorical("sick", ("no", "yes"))
SMOKER = Categorical("smoker", ("never", "sometimes", "daily"))
AGE = {"kind": "numeric", "name": "age", "low": 18.0, "high": 98.0}


def build(mode="mrr", features=None, **settings):
    config = {"mode": mode, "class": SICK.to_dict(), "features": features or [SMOKER.to_dict()],
              "ldp": {"epsilon": 1.0, "encoding": "oue"}, "mrr": {"theta": 0.7}}
    config.update(settings)
    return sp.build(config)


# -- the engine ---------------------------------------------------------------------------------------------------
def test_the_engine_names_what_gets_no_privacy():
    assert build(mrr={"theta": 1.0}).unprotected() == ["smoker", "sick"]
    assert build(mrr={"theta": 0.7}).unprotected() == []
    # a declared share of 0: that answer is always true when sent, against every reader
    zero = build(mrr={"theta": 0.7, "groups": [["smoker"], ["sick"]], "personal": {"smoker": [0.0, 0.5, 0.5]}})
    assert zero.unprotected() == ["smoker"]
    # documented, allowed: a real unrelated question (∞ only against someone who knows its answer) ...
    real = build(mrr={"theta": 0.7, "personal_mode": {"smoker": "real"}})
    assert float(real.privacy()["epsilon_per_respondent_known_personal"]) == float("inf")
    assert real.unprotected() == []
    # ... and the grid-Laplace edge (SHE; Gaussian Approach 3; mixed)
    assert build("ldp", ldp={"epsilon": 1.0, "encoding": "she"}).unprotected() == []
    gaussian = build("ldp", features=[AGE], numeric={"handling": "gaussian", "approach": 3})
    assert float(gaussian.privacy()["epsilon_per_respondent"]) == float("inf") and gaussian.unprotected() == []


# -- opening ------------------------------------------------------------------------------------------------------
def theta_one_draft() -> Survey:
    return make_draft_survey(mode="mrr", theta=1.0, epsilon=None)


def test_a_survey_without_privacy_cannot_open_by_any_way(admin_client):
    survey = theta_one_draft()
    # the survey's page says so before anyone tries (the engine's verdict, in its privacy report)
    page = admin_client.get(f"/admin/survey_app/survey/{survey.pk}/change/").content.decode()
    assert "These settings give no privacy for smoker, sick" in page
    response = admin_client.post("/admin/survey_app/survey/", {"action": "open_surveys",
                                                               "_selected_action": [survey.pk]}, follow=True)
    text = response.content.decode()
    assert "ealth cannot open: These settings give no privacy for smoker, sick" in text
    assert Survey.objects.get(pk=survey.pk).status == "draft"
    with pytest.raises(CannotOpen, match="A survey cannot open with them"):
        open_survey(survey)
    survey.status = "open"
    with pytest.raises(ValidationError, match="give no privacy"):
        survey.full_clean()  # the survey's own form
    # German
    response = admin_client.post("/admin/survey_app/survey/", {"action": "open_surveys",
                                                               "_selected_action": [survey.pk]}, follow=True,
                                 HTTP_ACCEPT_LANGUAGE="de")
    assert "keinen Datenschutz" in response.content.decode()
    # θ < 1 opens
    Survey.objects.filter(pk=survey.pk).update(theta=0.7)
    open_survey(Survey.objects.get(pk=survey.pk))
    assert Survey.objects.get(pk=survey.pk).status == "open"


def test_the_documented_cases_open():
    real = make_draft_survey(mode="mrr", theta=0.7, epsilon=None)
    Question.objects.filter(survey=real, name="smoker").update(personal_mode="real", personal_text="Born in June?")
    open_survey(Survey.objects.get(pk=real.pk))
    she = make_draft_survey(slug="she", encoding="she")
    open_survey(she)
    assert Survey.objects.filter(status="open").count() == 2


def test_the_import_refuses_to_open_without_privacy_and_a_single_answer_column(tmp_path, admin_client):
    data = tmp_path / "t.csv"
    data.write_text("smoker,colour,sick\nnever,red,no\ndaily,red,yes\nsometimes,red,no\n")
    with pytest.raises(CommandError, match="“colour” has a single answer \\(red\\)"):
        call_command("create_survey", str(data), "--slug", "t", stdout=io.StringIO())
    assert not Survey.objects.filter(slug="t").exists()
    data.write_text("smoker,sick\nnever,no\ndaily,yes\nsometimes,no\n")
    with pytest.raises(CommandError, match="give no privacy"):
        call_command("create_survey", str(data), "--slug", "t", "--mode", "mrr", "--theta", "1", "--open",
                     stdout=io.StringIO())
    assert not Survey.objects.filter(slug="t").exists()  # nothing half made
    call_command("create_survey", str(data), "--slug", "t", "--mode", "mrr", "--theta", "0.5", "--open",
                 stdout=io.StringIO())
    assert Survey.objects.get(slug="t").status == "open"
    # the admin's CSV import
    upload = SimpleUploadedFile("m.csv", b"smoker,colour,sick\nnever,red,no\ndaily,red,yes\n", content_type="text/csv")
    response = admin_client.post("/admin/survey_app/survey/import/",
                                 {"csv_file": upload, "slug": "m", "mode": "ldp", "encoding": "oue", "epsilon": "1"})
    assert response.status_code == 200 and "has a single answer" in response.content.decode()
    assert not Survey.objects.filter(slug="m").exists()


def test_the_admin_refuses_a_question_with_one_possible_answer(admin_client):
    survey = make_draft_survey()
    smoker = survey.questions.get(name="smoker")
    Choice.objects.filter(question=smoker).exclude(label="never").delete()
    with pytest.raises(ValidationError, match="at least two possible answers"):
        smoker.full_clean()
    smoker.prefer_not_to_say = True  # "never" or "Prefer not to say": two answers
    smoker.full_clean()
    # the survey page's choice lines
    from tests.admin_support import change_url, page_data, question_form

    data = page_data(admin_client.get(change_url(survey)))
    prefix = question_form(data, survey, "smoker")
    data[f"{prefix}-choices_text"] = "only"
    response = admin_client.post(change_url(survey), data)
    assert response.status_code == 200 and "needs at least two answers" in response.content.decode()


# -- the pages ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("language, says, never", [
    ("en", "No privacy:", "your browser randomizes your answers"),
    ("de", "Kein Datenschutz:", "randomisiert Ihr Browser"),
])
def test_the_preview_of_a_survey_without_privacy_says_so(admin_client, language, says, never):
    survey = theta_one_draft()
    page = admin_client.get(reverse("survey-preview", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE=language)
    text = page.content.decode()
    assert page.status_code == 200 and says in text and never not in text
    assert "Send the randomized report" not in text and "Which code randomizes" not in text
    fine = make_survey(slug="fine", mode="mrr", status="draft")
    text = admin_client.get(reverse("survey-preview", args=[fine.slug]), HTTP_ACCEPT_LANGUAGE=language).content
    assert says not in text.decode()


@pytest.mark.parametrize("language, says", [("en", "No privacy: these settings give an infinite ε"),
                                            ("de", "Kein Datenschutz: Diese Einstellungen")])
def test_the_dashboard_warns_of_no_privacy(admin_client, language, says):
    survey = make_survey(mode="mrr")  # opened before such settings were refused
    Survey.objects.filter(pk=survey.pk).update(theta=1.0)
    text = admin_client.get(reverse("dashboard:survey", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE=language)
    text = text.content.decode()
    assert says in text
    assert 'class="badge-warning">1<' in text and ">inf<" not in text and "∞" in text
    Survey.objects.filter(pk=survey.pk).update(theta=0.7)
    text = admin_client.get(reverse("dashboard:survey", args=[survey.slug])).content.decode()
    assert "No privacy" not in text


def test_the_pse_headline_names_its_group(admin_client):
    survey = make_survey(mode="mrr", validation_share=0.0)
    Question.objects.filter(survey=survey, name="age").update(group=1)
    add_reports(Survey.objects.get(pk=survey.pk), 600)
    aggregator_services.retrain(Survey.objects.get(pk=survey.pk), now=after_midnight())
    text = admin_client.get(reverse("dashboard:survey", args=[survey.slug])).content.decode()
    summary_groups = [["smoker", "sick"], ["age"]]
    assert any(f"(lowest over the question groups: the group of {', '.join(g)})" in text
               or f"before mining the group of {', '.join(g)}" in text for g in summary_groups)
    assert get_protocol(survey).unprotected() == []


def test_the_calendar_does_not_open_it_either():
    import datetime

    from django.utils import timezone

    from survey_app.services import apply_calendars

    survey = theta_one_draft()
    Survey.objects.filter(pk=survey.pk).update(opens_at=timezone.now() - datetime.timedelta(minutes=1))
    run = apply_calendars()
    assert run.opened == [] and run.not_opened[0][0] == "health" and "give no privacy" in run.not_opened[0][1]
    assert Survey.objects.get(pk=survey.pk).status == "draft"
