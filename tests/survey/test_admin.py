"""The designers' admin: survey pages render with their privacy readout; CSV import creates a draft."""
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from survey_app.models import Survey

pytestmark = pytest.mark.django_db


def test_change_page_shows_privacy(admin_client, datasets_dir):
    upload = SimpleUploadedFile("vote.csv", (datasets_dir / "vote.csv").read_bytes(), content_type="text/csv")
    response = admin_client.post("/admin/survey_app/survey/import/",
                                 {"csv_file": upload, "slug": "vote", "mode": "mrr", "encoding": "adaptive",
                                  "theta": "0.6"})
    assert response.status_code == 302
    survey = Survey.objects.get(slug="vote")
    page = admin_client.get(f"/admin/survey_app/survey/{survey.pk}/change/").content.decode()
    assert "ε per respondent" in page and "PSE" in page


def test_import_errors_are_shown(admin_client):
    upload = SimpleUploadedFile("bad.csv", b"a,class\n1,x\n2,x\n", content_type="text/csv")
    response = admin_client.post("/admin/survey_app/survey/import/",
                                 {"csv_file": upload, "slug": "bad", "mode": "ldp", "encoding": "oue", "epsilon": "1"})
    assert response.status_code == 200
    assert not Survey.objects.exists()


def test_admin_refused_to_anonymous(client):
    assert client.get("/admin/survey_app/survey/import/").status_code == 302


def test_open_action_refuses_a_survey_without_class(admin_client):
    survey = Survey.objects.create(title="x", slug="x", mode="ldp", epsilon=1.0)
    admin_client.post("/admin/survey_app/survey/", {"action": "open_surveys", "_selected_action": [survey.pk]})
    survey.refresh_from_db()
    assert survey.status == "draft"


def test_close_action_confirms_what_it_did(admin_client):
    from tests.factories import make_survey

    survey = make_survey()
    response = admin_client.post("/admin/survey_app/survey/", {"action": "close_surveys",
                                                               "_selected_action": [survey.pk]}, follow=True)
    survey.refresh_from_db()
    assert survey.status == "closed"
    assert "Health is closed: it takes no more reports." in unescape(response.content.decode())  # capfirst


def test_questions_are_locked_once_reports_exist(admin_client, datasets_dir):
    from django.core.exceptions import ValidationError

    from survey_app.models import Question, Report

    upload = SimpleUploadedFile("vote.csv", (datasets_dir / "vote.csv").read_bytes(), content_type="text/csv")
    admin_client.post("/admin/survey_app/survey/import/",
                      {"csv_file": upload, "slug": "vote", "mode": "mrr", "encoding": "adaptive", "theta": "0.6"})
    survey = Survey.objects.get(slug="vote")
    question = survey.questions.first()
    assert admin_client.get(f"/admin/survey_app/question/{question.pk}/change/").status_code == 200
    Report.objects.create(survey=survey, payload={"answers": [0] * 17})
    page = admin_client.get(f"/admin/survey_app/question/{question.pk}/change/")
    assert b"Save" not in page.content or page.status_code == 403  # view-only
    assert admin_client.post(f"/admin/survey_app/question/{question.pk}/delete/", {"post": "yes"}).status_code == 403
    question.text = "changed"
    with pytest.raises(ValidationError, match="Clone the survey"):
        question.full_clean()
    assert Question.objects.filter(pk=question.pk).exists()


@pytest.mark.parametrize("access, says, never", [
    ("link", "a person who answers k times gives up to k·ε about themselves (twice: ε = 4)", "each invitation admits"),
    ("tokens", "each invitation admits one report, so ε per respondent holds per invitation", "k times"),
])
def test_privacy_readout_says_what_repeated_answers_cost(admin_client, access, says, never):
    """Issue 11 item 6: an open-link survey tells the designer that one person answering k times spends k·ε."""
    from django.contrib import admin

    from survey_app.admin import SurveyAdmin
    from tests.factories import make_survey

    survey = make_survey(slug=f"cost-{access}", mode="ldp", encoding="oue", access=access)
    Survey.objects.filter(pk=survey.pk).update(epsilon=2.0)
    survey.refresh_from_db()
    html = str(SurveyAdmin(Survey, admin.site).privacy_report(survey))
    assert says in html and never not in html
    page = admin_client.get(f"/admin/survey_app/survey/{survey.pk}/change/").content.decode()
    assert says in page


def test_privacy_readout_states_the_known_personal_figure():
    """Issue 11 item 4: an MRR survey with a real unrelated question shows ε = ∞ against someone who knows it."""
    from django.contrib import admin

    from survey_app.admin import SurveyAdmin
    from tests.factories import make_survey

    survey = make_survey(slug="known", mode="mrr")
    survey.questions.filter(is_class=False).update(personal_mode="real", personal_text="Is it raining?")
    html = unescape(str(SurveyAdmin(Survey, admin.site).privacy_report(survey)))
    assert "Against someone who knows a respondent's answers to the real unrelated questions: ε = ∞" in html


@pytest.mark.parametrize("access, warned", [("link", True), ("tokens", False)])
def test_tokens_for_an_open_link_survey_come_with_a_warning(admin_client, access, warned):
    from survey_app.models import InvitationToken
    from tests.factories import make_survey

    survey = make_survey(status="draft", access=access)
    response = admin_client.post("/admin/survey_app/survey/", {"action": "make_100_tokens",
                                                               "_selected_action": [survey.pk]}, follow=True)
    text = response.content.decode()
    assert InvitationToken.objects.filter(survey=survey).count() == 100
    assert ("is an open-link survey: anyone with its link can answer" in text) is warned


def test_the_add_form_starts_from_sensible_privacy_settings(admin_client):
    html = admin_client.get("/admin/survey_app/survey/add/").content.decode()
    assert 'name="epsilon" value="1.0"' in html and 'name="theta" value="0.7"' in html


def test_a_yes_no_questions_page_has_no_choice_rows_and_no_bare_braces(admin_client):
    """A yes/no question's answers are no and yes: its page offers no choice rows; empty translation boxes are empty
    (not "{}"), and an emptied box saves as no translations."""
    from tests.factories import make_survey

    survey = make_survey(status="draft")
    sick = survey.questions.get(name="sick")
    page = admin_client.get(f"/admin/survey_app/question/{sick.pk}/change/").content.decode()
    assert "choices-TOTAL_FORMS" not in page and ">{}</textarea>" not in page
    smoker = survey.questions.get(name="smoker")
    page = admin_client.get(f"/admin/survey_app/question/{smoker.pk}/change/").content.decode()
    assert 'name="choices-TOTAL_FORMS" value="3"' in page  # its three choices, no blank rows
    assert ">{}</textarea>" not in page


def test_the_invitation_export_puts_each_token_in_its_links_fragment(admin_client):
    """The admin's "Export unused invitation links (CSV)": /s/<slug>/i/#<token> — the token where no request sends it —
    for every unused token, and the link of the earlier form still leads there (a redirect)."""
    import csv
    import io

    from survey_app.models import InvitationToken
    from survey_app.services import generate_tokens
    from tests.factories import make_survey

    survey = make_survey("invite", access="tokens")
    tokens = generate_tokens(survey, 3)
    InvitationToken.objects.filter(pk=tokens[2].pk).update(used=True)
    response = admin_client.post("/admin/survey_app/survey/", {"action": "export_token_links",
                                                               "_selected_action": [survey.pk]})
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["survey", "batch", "link"]
    assert sorted(row[2] for row in rows[1:]) == sorted(f"http://testserver/s/invite/i/#{t.token}" for t in tokens[:2])
    old = admin_client.get(f"/s/invite/t/{tokens[0].token}/")
    assert old.status_code == 302 and old["Location"] == f"/s/invite/i/#{tokens[0].token}"
