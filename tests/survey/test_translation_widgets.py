"""The admin's translations: one input per configured language (and per translatable text), side by side, never raw
JSON; a yes/no question's page has no choice rows to fill."""
import pytest
from django.conf import settings

from survey_app.models import Choice, Question
from tests.admin_support import page_data
from tests.factories import make_survey

pytestmark = pytest.mark.django_db

OTHER = [code for code, _ in settings.LANGUAGES]


def question_page(admin_client, question):
    return admin_client.get(f"/admin/survey_app/question/{question.pk}/change/")


def test_a_yes_no_question_page_has_no_choice_rows(admin_client):
    survey = make_survey(status="draft")
    sick = Question.objects.get(survey=survey, name="sick")  # yes/no
    response = question_page(admin_client, sick)
    html = response.content.decode()
    assert 'name="choices-TOTAL_FORMS"' not in html and "choices-0-label" not in html
    new = admin_client.get(f"/admin/survey_app/question/add/?survey={survey.pk}").content.decode()
    assert "choices-0-label" not in new  # a new question gets its choices once its kind says it has any


def test_the_question_page_offers_one_input_per_language_and_text(admin_client):
    survey = make_survey(status="draft")
    smoker = Question.objects.get(survey=survey, name="smoker")
    smoker.translations = {"de": {"text": "Rauchen Sie?"}}
    smoker.save()
    html = question_page(admin_client, smoker).content.decode()
    for code in OTHER:
        for field in ("text", "help_text", "personal_text", "section"):
            assert f'name="translations_{code}_{field}"' in html
        assert f'name="choices-0-translations_{code}"' in html
    assert 'value="Rauchen Sie?"' in html
    assert "{}" not in html.split('id="question_form"', 1)[1]  # no raw JSON box anywhere in the form


def test_translations_are_saved_from_the_inputs_and_emptied_inputs_remove_them(admin_client):
    survey = make_survey(status="draft")
    smoker = Question.objects.get(survey=survey, name="smoker")
    smoker.translations = {"de": {"help_text": "Täglich oder gelegentlich"}}
    smoker.save()
    url = f"/admin/survey_app/question/{smoker.pk}/change/"
    data = page_data(admin_client.get(url))
    assert data["translations_de_help_text"] == "Täglich oder gelegentlich" and data["translations_en_text"] == ""
    data.update({"translations_de_text": " Rauchen Sie? ", "choices-0-translations_de": "nie"})
    assert admin_client.post(url, data).status_code == 302
    smoker.refresh_from_db()
    assert smoker.translations == {"de": {"help_text": "Täglich oder gelegentlich", "text": "Rauchen Sie?"}}
    assert smoker.choices.order_by("position", "id").first().translations == {"de": "nie"}
    data.update({"translations_de_text": "", "translations_de_help_text": "", "choices-0-translations_de": ""})
    assert admin_client.post(url, data).status_code == 302
    smoker.refresh_from_db()
    assert smoker.translations == {} and Choice.objects.get(pk=smoker.choices.order_by("position", "id")
                                                             .first().pk).translations == {}
