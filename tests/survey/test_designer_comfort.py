"""Designer comfort (issue 12 item 2), in the admin and the preview: a question's choices typed on the survey's own
page, one per line (created, renamed, reordered, deleted, validated, locked once reports exist); saving a question
returns to its survey; a staff-only preview of any survey, drafts included, from which nothing can be sent; CSV
import with readable question texts and "Prefer not to say" for missing cells."""
import re

import pytest
from django import forms
from django.apps import apps
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from survey_app.models import PREFER_NOT_TO_SAY, Choice, PendingReport, Question, Report, Survey
from survey_app.services import parse_choice_lines, readable_text
from tests.admin_support import change_url, labels, page_data, question_form
from tests.factories import make_designer, make_draft_survey, make_survey, simulated_reports

pytestmark = pytest.mark.django_db


def designer(name: str) -> User:
    return make_designer(name)


def save_choices(client, survey, name: str, text: str, **fields):
    page = client.get(change_url(survey))
    data = page_data(page)
    prefix = question_form(data, survey, name)
    data[f"{prefix}-choices_text"] = text
    for field, value in fields.items():
        if value is False:
            data.pop(f"{prefix}-{field}", None)
        else:
            data[f"{prefix}-{field}"] = "on" if value is True else value
    return client.post(change_url(survey), data)


# -- choices typed on the survey's page ---------------------------------------------------------------------------

def test_the_survey_page_shows_each_questions_choices_one_per_line(admin_client):
    survey = make_draft_survey(mode="mrr", theta=0.7)
    Choice.objects.filter(question__name="smoker", label="daily").update(personal_probability=0.2)
    Choice.objects.filter(question__name="smoker").exclude(label="daily").update(personal_probability=0.4)
    page = admin_client.get(change_url(survey))
    prefix = question_form(page_data(page), survey, "smoker")
    html = page.content.decode()
    assert f'name="{prefix}-choices_text"' in html and "Choices (one per line)" in html
    assert page_data(page)[f"{prefix}-choices_text"] == "never = 0.4\nsometimes = 0.4\ndaily = 0.2"


def test_choices_are_created_reordered_renamed_and_deleted_from_the_survey_page(admin_client):
    survey = make_draft_survey()
    smoker = survey.questions.get(name="smoker")
    rows = {c.label: c.pk for c in smoker.choices.all()}
    response = save_choices(admin_client, survey, "smoker", "daily\r\nnever\r\n\r\nweekly\r\n")
    assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors
    assert labels(survey, "smoker") == [("daily", None), ("never", None), ("weekly", None)]
    after = {c.label: c.pk for c in smoker.choices.all()}
    # Reordered rows keep their identity; "weekly" took the place (and the row) of "sometimes": a rename.
    assert after["daily"] == rows["daily"] and after["never"] == rows["never"] and after["weekly"] == rows["sometimes"]
    response = save_choices(admin_client, survey, "smoker", "daily\nnever")
    assert response.status_code == 302
    assert labels(survey, "smoker") == [("daily", None), ("never", None)]
    assert not Choice.objects.filter(pk=rows["sometimes"]).exists()


def test_a_new_question_gets_its_choices_from_the_survey_page(admin_client):
    survey = make_draft_survey()
    page = admin_client.get(change_url(survey))
    data = page_data(page)
    n = int(data["questions-TOTAL_FORMS"])
    data["questions-TOTAL_FORMS"] = str(n + 1)
    for field in page.context["inline_admin_formsets"][0].formset.empty_form:  # a new block, as "Add another" makes
        value = field.value()
        if value is not None and not isinstance(field.field, forms.BooleanField):
            data[field.html_name.replace("__prefix__", str(n))] = value
    data.update({f"questions-{n}-{k}": v for k, v in {
        "position": "5", "name": "region", "kind": "categorical", "text": "Where do you live?",
        "choices_text": "North\nSouth\nEast\nWest"}.items()})
    response = admin_client.post(change_url(survey), data)
    assert response.status_code == 302, [f.errors for f in response.context["inline_admin_formsets"][0].formset]
    assert labels(survey, "region") == [("North", None), ("South", None), ("East", None), ("West", None)]


def test_declared_probabilities_are_read_and_scaled_to_one(admin_client):
    survey = make_draft_survey(mode="mrr", theta=0.7)
    response = save_choices(admin_client, survey, "smoker", "never = 1/3\nsometimes = 33.3333%\ndaily = 0.3333334")
    assert response.status_code == 302
    probabilities = [p for _, p in labels(survey, "smoker")]
    assert sum(probabilities) == pytest.approx(1, abs=1e-12) and probabilities[0] == pytest.approx(1 / 3, abs=1e-6)
    # Labels with a comparison keep their "=": "<= 50K" is an answer, not a probability.
    assert [line.label for line in parse_choice_lines("<=50K\n>50K\n<= 2.5", kind="categorical")] == \
        ["<=50K", ">50K", "<= 2.5"]


@pytest.mark.parametrize("text, kind, prefer, message", [
    ("yes\nno\nYes", "categorical", False, "“Yes” is given twice (lines 1 and 3)"),
    ("a\n = 0.5\nb", "categorical", False, "Line 2 has no label before its “=”"),
    ("a = 0.5\nb = 0.3", "categorical", False, "The probabilities add up to 0.8, not 1"),
    ("a = 0.5\nb", "categorical", False, "Give a probability for every choice or for none: missing for “b”"),
    ("a = 1.5\nb = -0.5", "categorical", False, "must be between 0 and 1"),
    ("a = 0.5\nb = 0.5", "categorical", True, "Probabilities cannot be combined with “Prefer not to say”"),
    ("a\nPrefer not to say", "categorical", True, "is added by its own box"),
    ("only", "categorical", False, "needs at least two answers"),
    ("a\nb", "binary", False, "a yes/no question has the answers no and yes"),
    ("a\nb", "numeric", False, "a number has no choices"),
])
def test_choice_lines_are_refused_with_a_clear_message(admin_client, text, kind, prefer, message):
    survey = make_draft_survey(mode="mrr", theta=0.7)
    before = labels(survey, "smoker")
    extra = {"kind": kind, "prefer_not_to_say": prefer}
    if kind == "numeric":
        extra.update(low="0", high="10")
    response = save_choices(admin_client, survey, "smoker", text, **extra)
    assert response.status_code == 200
    errors = [str(e) for form in response.context["inline_admin_formsets"][0].formset.forms
              for e in form.errors.get("choices_text", [])]
    assert any(message in e for e in errors), errors
    assert labels(survey, "smoker") == before and survey.questions.get(name="smoker").kind == "categorical"


def test_two_class_questions_are_an_error_not_a_crash(admin_client):
    survey = make_draft_survey()
    response = save_choices(admin_client, survey, "smoker", "never\nsometimes\ndaily", is_class=True)
    assert response.status_code == 200
    assert "Only one question can be the class" in response.content.decode()
    assert survey.questions.filter(is_class=True).count() == 1


def test_choices_are_locked_once_the_survey_has_reports(admin_client):
    survey = make_survey(status="open")
    Report.objects.create(survey=survey, payload={})
    page = admin_client.get(change_url(survey))
    html = page.content.decode()
    assert not re.search(r'name="questions-\d+-choices_text"', html)  # no box to type in
    assert "never<br>sometimes<br>daily" in html  # the choices shown, read-only
    data = page_data(page)
    data["questions-1-choices_text"] = "changed"
    admin_client.post(change_url(survey), data)
    assert labels(survey, "smoker") == [("never", None), ("sometimes", None), ("daily", None)]


# -- a question's own page returns to its survey ------------------------------------------------------------------

def test_saving_or_deleting_a_question_returns_to_its_survey(client):
    alice = designer("alice")
    client.force_login(alice)
    survey = make_draft_survey()
    survey.designers.add(alice)
    smoker = survey.questions.get(name="smoker")
    url = f"/admin/survey_app/question/{smoker.pk}/change/"
    page = client.get(url)
    data = page_data(page)
    data["text"] = "Do you smoke tobacco?"
    response = client.post(url, {**data, "_save": "Save"})
    assert response.status_code == 302 and response["Location"] == change_url(survey)
    assert client.post(url, {**data, "_continue": "1"})["Location"] == url  # "Save and continue editing" stays
    response = client.post(f"/admin/survey_app/question/{smoker.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and response["Location"] == change_url(survey)
    assert not Question.objects.filter(pk=smoker.pk).exists()


# -- the preview --------------------------------------------------------------------------------------------------

def every_row() -> dict[str, int]:
    """How many rows each model of the project holds (apart from users' sessions)."""
    return {m._meta.label: m.objects.count() for app in ("survey_app", "aggregator")
            for m in apps.get_app_config(app).get_models()}


@pytest.fixture
def draft_and_people(client):
    alice, bob = designer("alice"), designer("bob")
    survey = make_draft_survey(slug="draft", access="tokens")
    survey.designers.add(alice)
    make_draft_survey(slug="bobs").designers.add(bob)
    return survey, alice, bob


def test_the_preview_is_for_the_surveys_designers_only(client, admin_client, draft_and_people):
    survey, alice, bob = draft_and_people
    preview, protocol = f"/s/{survey.slug}/preview/", f"/s/{survey.slug}/preview/protocol/"
    response = client.get(preview)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get(protocol).status_code == 403
    client.force_login(User.objects.create_user("carol", password="pw"))  # signed in, not staff
    assert client.get(preview).status_code == 302 and client.get(protocol).status_code == 403
    client.force_login(bob)
    assert client.get(preview).status_code == 404 and client.get(protocol).status_code == 404
    client.force_login(alice)
    assert client.get(preview).status_code == 200 and client.get(protocol).status_code == 200
    assert admin_client.get(preview).status_code == 200  # superusers preview every survey
    # The public pages and API still refuse the draft.
    assert APIClient().get(f"/api/surveys/{survey.slug}/protocol/").status_code == 404
    assert client.get(f"/s/{survey.slug}/").status_code == 404


def test_the_preview_is_the_respondents_page_with_a_banner_and_creates_nothing(client, draft_and_people):
    survey, alice, _ = draft_and_people
    client.force_login(alice)
    before = every_row()
    response = client.get(f"/s/{survey.slug}/preview/")
    html = response.content.decode()
    assert "Preview — nothing is sent." in html and 'data-preview="true"' in html
    assert f'data-protocol-url="/s/{survey.slug}/preview/protocol/"' in html
    assert '<script type="importmap">' in html and "js/survey.mjs" in html  # the integrity-checked randomizer
    from survey_app.integrity import randomizer
    assert randomizer().import_map_csp_source in response["Content-Security-Policy"]
    assert "no-store" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    body = client.get(f"/s/{survey.slug}/preview/protocol/").json()
    assert [q["name"] for q in body["questions"]] == ["sick", "smoker"]
    assert body["model_url"] is None and "credential" not in body  # a token survey: no key is made for a preview
    assert body["protocol"]["mode"] == "ldp" and "report_schema" in body
    assert every_row() == before


def test_the_admin_page_links_to_the_preview(admin_client):
    survey = make_draft_survey()
    assert f'href="/s/{survey.slug}/preview/"' in admin_client.get(change_url(survey)).content.decode()


def test_a_survey_the_engine_refuses_says_why_instead_of_a_preview(admin_client):
    survey = Survey.objects.create(title="Empty", slug="empty", mode="ldp", epsilon=1.0)
    response = admin_client.get(f"/s/{survey.slug}/preview/")
    assert response.status_code == 409 and "cannot be previewed yet" in response.content.decode()
    assert admin_client.get(f"/s/{survey.slug}/preview/protocol/").status_code == 409


def test_a_report_for_a_draft_is_refused_and_nothing_is_stored():
    survey = make_survey(slug="draft", status="draft")
    report = simulated_reports(survey, n=1)[0]
    api = APIClient()
    for body in ({"report": report}, {"report": report, "token": "x"}):  # the plain path and DRF's
        response = api.post(f"/api/surveys/{survey.slug}/reports/", body, format="json")
        assert response.status_code in (400, 404)
    assert api.post(f"/api/surveys/{survey.slug}/reports/", {"report": report}, format="json").status_code == 404
    assert PendingReport.objects.count() == Report.objects.count() == 0


# -- CSV import ---------------------------------------------------------------------------------------------------

def test_import_offers_readable_texts_and_prefer_not_to_say(admin_client):
    table = ("capital-gain,work_class,bruises?,RI,income\n"
             + "".join(f"{v},{w},{b},x{v % 3},{c}\n" for v, w, b, c in [
                 (0, "private", "yes", "<=50K"), (10, "", "no", ">50K"), (20, "?", "yes", "<=50K"),
                 (30, "state", "", ">50K"), (40, "private", "no", "<=50K"), (50, "state", "yes", ">50K"),
                 (60, "private", "no", "<=50K"), (70, "state", "yes", ">50K"), (80, "private", "no", "<=50K"),
                 (90, "state", "yes", ">50K"), (100, "private", "no", "<=50K")]))
    upload = SimpleUploadedFile("income.csv", table.encode(), content_type="text/csv")
    response = admin_client.post("/admin/survey_app/survey/import/", {"csv_file": upload, "slug": "income",
                                                                      "mode": "mrr", "encoding": "adaptive"},
                                 follow=True)
    assert response.status_code == 200
    survey = Survey.objects.get(slug="income")
    questions = {q.name: q for q in survey.questions.all()}
    assert [(q.name, q.text) for q in questions.values()] == [
        ("capital-gain", "Capital gain"), ("work_class", "Work class"), ("bruises", "Bruises?"), ("ri", "RI"),
        ("income", "Income")]
    assert questions["capital-gain"].kind == "numeric"
    assert questions["work_class"].labels() == ["private", "state", PREFER_NOT_TO_SAY]  # blank and "?" cells
    assert questions["bruises"].labels() == ["no", "yes", PREFER_NOT_TO_SAY]
    assert not questions["ri"].prefer_not_to_say and questions["income"].labels() == ["<=50K", ">50K"]
    assert not Choice.objects.filter(label="?").exists()
    assert "check and reword them" in response.content.decode()


def test_readable_texts():
    assert [readable_text(c) for c in ("capital-gain", "education_num", "bruises?", "RI", "Sepal.Length",
                                       "  odd__name ")] == \
        ["Capital gain", "Education num", "Bruises?", "RI", "Sepal Length", "Odd name"]


def test_simulated_respondents_answer_prefer_not_to_say_for_missing_cells(datasets_dir, tmp_path):
    """``manage.py simulate`` (the demo, the load tests) finds each column of an imported survey and sends a missing
    cell as "Prefer not to say"."""
    import numpy as np
    from django.core.management import call_command

    from aggregator.management.commands.simulate import records_from_csv
    from tests.factories import informative_mushroom

    call_command("create_survey", str(informative_mushroom(tmp_path)), "--slug", "mushroom", "--mode", "mrr")
    survey = Survey.objects.get(slug="mushroom")
    root = survey.questions.get(name="stalk-root")
    assert root.text == "Stalk root" and root.labels()[-1] == PREFER_NOT_TO_SAY
    X, y = records_from_csv(survey, datasets_dir / "mushroom.csv")
    column = [q.name for q in survey.questions.all() if not q.is_class].index("stalk-root")
    assert int(np.sum(X[:, column] == len(root.labels()) - 1)) == 2480  # the file's missing cells


# -- words on the designer's pages --------------------------------------------------------------------------------

def test_settings_are_labelled_with_their_symbols_and_the_app_with_a_plain_name(admin_client):
    html = admin_client.get("/admin/survey_app/survey/add/").content.decode()
    assert ">θ (MRR):</label>" in html and ">ε (LDP):</label>" in html and ">Encoding parameters:</label>" in html
    assert '{"threshold": …} — THE threshold t' in html  # each encoding's own parameters, from its class
    assert ">The threshold:</label>" not in html and "Survey_App" not in html
    assert "Survey_App" not in admin_client.get("/admin/").content.decode()


def test_the_typed_choices_are_what_the_question_types_count(admin_client):
    """A select-all question or an ordered scale needs enough choices: the typed lines count, not the rows saved."""
    survey = make_draft_survey()
    Question.objects.create(survey=survey, name="pets", text="Which pets do you have?", kind="categorical",
                            position=3)
    response = save_choices(admin_client, survey, "pets", "Dog\nCat\nFish", kind="multi")
    assert response.status_code == 302
    assert survey.questions.get(name="pets").kind == "multi" and [c for c, _ in labels(survey, "pets")] == \
        ["Dog", "Cat", "Fish"]
    response = save_choices(admin_client, survey, "pets", "Dog", kind="multi")
    assert response.status_code == 200 and "needs at least 2 choices" in response.content.decode()
    response = save_choices(admin_client, survey, "smoker", "never\ndaily", style="scale")
    assert response.status_code == 200 and "An ordered scale needs at least 3 choices" in response.content.decode()
    assert [c for c, _ in labels(survey, "smoker")] == ["never", "sometimes", "daily"]


def test_a_question_whose_choices_are_not_touched_does_not_hold_up_the_survey(admin_client):
    """A draft's unfinished question (no choices yet) does not stop the designer from saving the survey's other
    settings; its choices are checked once they are typed or its kind changes."""
    survey = make_draft_survey()
    Question.objects.create(survey=survey, name="region", text="Region?", kind="categorical", position=4)
    data = page_data(admin_client.get(change_url(survey)))
    data["title"] = "Health, second draft"
    assert admin_client.post(change_url(survey), data).status_code == 302
    survey.refresh_from_db()
    assert survey.title == "Health, second draft"
    response = save_choices(admin_client, survey, "region", "North")
    assert response.status_code == 200 and "needs at least two answers" in response.content.decode()


def test_the_preview_protocol_is_the_public_one_without_the_model(admin_client):
    """What the preview randomizes with is what respondents' browsers get (an open MRR survey with a real unrelated
    question, whose privacy figures include ε = ∞), apart from the model a validation respondent would check."""
    import json

    survey = make_survey(slug="mrr-open", mode="mrr")
    survey.questions.filter(kind="categorical").update(personal_mode="real", personal_text="Is it raining?")
    public = APIClient().get(f"/api/surveys/{survey.slug}/protocol/").json()
    preview = json.loads(admin_client.get(f"/s/{survey.slug}/preview/protocol/").content)
    assert public.pop("model_url") and preview.pop("model_url") is None
    assert preview == public
    Survey.objects.filter(pk=survey.pk).update(status="closed")  # any status can be previewed
    assert "Preview — nothing is sent." in admin_client.get(f"/s/{survey.slug}/preview/").content.decode()


def test_choices_sent_with_crlf_as_browsers_do_are_not_taken_as_changed(admin_client):
    """Browsers send a textarea's line breaks as CRLF. A question whose choices are case twins (which the import can
    make, and the database allows) is refused when its lines are parsed: saving the survey's description must not
    parse them."""
    survey = make_draft_survey()
    Choice.objects.filter(question__name="smoker", label="never").update(label="Daily")
    data = page_data(admin_client.get(change_url(survey)))
    prefix = question_form(data, survey, "smoker")
    data[f"{prefix}-choices_text"] = data[f"{prefix}-choices_text"].replace("\n", "\r\n")
    data["description"] = "Now with a description."
    response = admin_client.post(change_url(survey), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    survey.refresh_from_db()
    assert survey.description == "Now with a description."


def test_a_renamed_choice_loses_the_translations_of_its_old_label(admin_client):
    survey = make_draft_survey()
    Choice.objects.filter(question__name="smoker", label="never").update(translations={"de": "nie"})
    Choice.objects.filter(question__name="smoker", label="daily").update(translations={"de": "täglich"})
    response = save_choices(admin_client, survey, "smoker", "weekly\nsometimes\ndaily")
    assert response.status_code == 302
    choices = {c.label: c.translations for c in Choice.objects.filter(question__survey=survey, question__name="smoker")}
    assert choices["weekly"] == {}  # the row that was "never": "nie" would show German respondents the old answer
    assert choices["daily"] == {"de": "täglich"}  # a label kept keeps its translations


def test_a_probability_with_an_exponent_is_a_label_not_a_computation():
    """Exact fractions of "1e-999999999" would take hours: a number with an exponent is no probability, so the line
    is a label."""
    from survey_app.services import parse_choice_lines

    lines = parse_choice_lines("a = 1e-999999999\nb", kind="categorical")
    assert [line.label for line in lines] == ["a = 1e-999999999", "b"]
    assert all(line.probability is None for line in lines)
    with pytest.raises(ValueError):  # then b's probability stands alone
        parse_choice_lines("a = 1e-999999999\nb = 0.5", kind="categorical")


def test_import_takes_columns_whose_names_make_one_slug_and_a_written_out_prefer_not_to_say(admin_client):
    """"a b" and "a-b" both slugify to "a-b": the second becomes "a-b-2" (no database error); cells reading
    “Prefer not to say” are the answer blank cells give, not a second one with the same label."""
    table = "a b,a-b,pet,sick\n" + "".join(f"{x},{y},{p},{c}\n" for x, y, p, c in [
        ("u", "v", "cat", "no"), ("w", "z", "", "yes"), ("u", "z", "Prefer not to say", "no"),
        ("w", "v", "dog", "yes"), ("u", "v", "dog", "no"), ("w", "z", "cat", "yes")])
    upload = SimpleUploadedFile("pets.csv", table.encode(), content_type="text/csv")
    response = admin_client.post("/admin/survey_app/survey/import/", {"csv_file": upload, "slug": "pets",
                                                                      "mode": "ldp", "encoding": "oue"}, follow=True)
    assert response.status_code == 200
    questions = {q.name: q for q in Survey.objects.get(slug="pets").questions.all()}
    assert list(questions) == ["a-b", "a-b-2", "pet", "sick"]
    assert questions["pet"].labels() == ["cat", "dog", PREFER_NOT_TO_SAY]
    from survey_app.protocol import get_protocol
    get_protocol(Survey.objects.get(slug="pets"))  # the engine takes it
