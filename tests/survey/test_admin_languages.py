"""The designers' pages in German (issue 12 item 3): the survey admin's fieldsets, field labels, choice labels, the
choices box, actions and validation messages come from the German catalogue when the browser asks for German or the
language switch (now in the admin's header too) chose it; the question rules that count choices are recognised by
their error code, not their English wording; and the exports stay in English whatever the page's language."""
from __future__ import annotations

import html

import pytest
from django.conf import settings
from django.utils import translation

from aggregator.privacy import oracles
from survey_app.models import CHOICE_COUNT, Question, Survey
from survey_app.services import parse_choice_lines
from tests.admin_support import change_url, labels, page_data, question_form
from tests.factories import make_draft_survey

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_survey_page_is_german_for_a_german_browser(admin_client):
    survey = make_draft_survey()
    page = text(admin_client.get(change_url(survey), **GERMAN))
    # fieldset titles
    for title in ("Datenschutz", "Zahlenfragen (LDP)", "Andere Sprachen", "Bearbeitende"):
        assert f">{title}</h2>" in page or f">{title}</summary>" in page or title in page, title
    assert ">Numeric questions (LDP)<" not in page and ">Privacy<" not in page
    # field labels, the privacy setting's symbols kept
    for label in ("Titel:", "Beschreibung:", "Verfahren:", "Kodierung:", "θ (MRR):", "ε (LDP):", "Zuteilung:",
                  "Validierungsanteil:", "Art:", "Darstellung:"):
        assert f">{label}</label>" in page, label
    assert ">Mode:</label>" not in page and ">Kind:</label>" not in page
    # choice labels: the survey's mode, status and encodings, the questions' kinds
    for choice in ("Randomized Response mit themenfremden Fragen (θ)", "Lokale Differential Privacy (ε)", "Entwurf",
                   "OUE — optimierte unäre Kodierung", "Ja / nein", "Auswahlmöglichkeiten"):
        assert f">{choice}</option>" in page, choice
    assert "Local differential privacy (ε)" not in page and ">Draft</option>" not in page
    # the choices box, its help, the link to the question's page, the preview link (a new tab, said so)
    assert ">Auswahlmöglichkeiten (eine pro Zeile):</label>" in page
    assert "Eine Antwort pro Zeile, in der Reihenfolge" in page
    assert "Hilfetext, themenfremde Frage (MRR) und alles Weitere ›" in page
    assert "Vorschau, wie Teilnehmende sie sehen (öffnet sich in einem neuen Tab)" in page
    assert 'target="_blank"' in page
    # Django's own admin texts follow (its German catalogue): "Save"
    assert 'value="Sichern"' in page and "Umfrage ändern" in page and "Fragen" in page  # the inline's heading


def test_the_language_switch_of_the_admin_keeps_german_in_the_cookie(admin_client):
    survey = make_draft_survey()
    page = text(admin_client.get(change_url(survey)))
    assert 'class="language-switch"' in page and 'aria-label="Language"' in page
    assert 'name="language" value="de" lang="de" aria-pressed="false">Deutsch</button>' in page
    assert 'name="language" value="en" lang="en" aria-pressed="true">English</button>' in page
    response = admin_client.post(f"/i18n/setlang/?next={change_url(survey)}", {"language": "de"})
    assert response.status_code == 302 and response["Location"] == change_url(survey)
    assert admin_client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    page = text(admin_client.get(change_url(survey)))  # no Accept-Language: the cookie decides
    assert 'aria-label="Sprache"' in page and ">Datenschutz<" in page
    assert 'value="de" lang="de" aria-pressed="true">Deutsch</button>' in page
    assert 'class="language-switch"' in text(admin_client.get("/admin/", **GERMAN))


def test_the_list_actions_and_the_import_are_german(admin_client):
    make_draft_survey()
    page = text(admin_client.get("/admin/survey_app/survey/", **GERMAN))
    for words in ("Die ausgewählten Umfragen öffnen", "100 Einladungscodes erzeugen", "Aus CSV importieren",
                  "Unbenutzte Einladungslinks exportieren (CSV)", "Umfrage zur Änderung auswählen"):
        assert words in page, words
    for heading in ("Titel", "Kurzname (Slug)", "Status", "Verfahren", "Zugang", "Berichte"):  # the columns
        assert f">{heading}</a>" in page or f"<span>{heading}</span>" in page, heading
    assert "Nach Verfahren" in page and "Nach Zugang" in page  # the filters
    assert ">Entwurf<" in page and ">Draft<" not in page
    page = text(admin_client.get("/admin/survey_app/survey/import/", **GERMAN))
    assert "Eine Umfrage aus einer CSV-Tabelle importieren" in page and ">CSV-Tabelle:</label>" in page
    assert 'value="Umfrageentwurf erstellen"' in page


def test_bad_choice_lines_are_refused_in_german(admin_client):
    survey = make_draft_survey()
    data = page_data(admin_client.get(change_url(survey), **GERMAN))
    prefix = question_form(data, survey, "smoker")
    data[f"{prefix}-choices_text"] = "never\nnever\n= 0.5"
    page = text(admin_client.post(change_url(survey), data, **GERMAN))
    assert "„never“ steht zweimal da (Zeilen 1 und 2): jede Auswahlmöglichkeit nur einmal." in page
    assert "Zeile 3 hat keine Beschriftung vor ihrem „=“." in page
    assert "is given twice" not in page
    with translation.override("de"):
        with pytest.raises(ValueError) as refused:
            parse_choice_lines("Dog", kind=Question.Kind.MULTI)
    assert refused.value.args[0] == ["Eine Mehrfachauswahl-Frage braucht mindestens 2 Auswahlmöglichkeiten (jede wird "
                                     "zu einer Ja/Nein-Frage)."]
    with translation.override("de"):
        with pytest.raises(ValueError) as refused:
            parse_choice_lines("a = 0.5\nb = 0.5", kind=Question.Kind.CATEGORICAL, prefer_not_to_say=True)
    assert "„Keine Angabe“" in refused.value.args[0][0]


def test_the_question_rules_that_count_choices_carry_a_code_not_just_words():
    survey = make_draft_survey()
    pets = Question.objects.create(survey=survey, name="pets", text="Pets?", kind=Question.Kind.MULTI, position=3)
    errors = pets._type_errors()
    assert errors["kind"].code == CHOICE_COUNT
    pets.kind, pets.style = Question.Kind.BINARY, Question.Style.SCALE
    assert pets._type_errors()["style"].code != CHOICE_COUNT  # the wrong kind for a scale is no count


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_typed_lines_replace_the_saved_choices_count_in_every_language(admin_client, language):
    """The survey page's form drops the question's own count errors (its saved choices) when the typed lines are
    enough: by code, so it works in German too — and keeps the errors that are not about a count."""
    survey = make_draft_survey()
    Question.objects.create(survey=survey, name="pets", text="Pets?", kind=Question.Kind.CATEGORICAL, position=3)
    data = page_data(admin_client.get(change_url(survey), HTTP_ACCEPT_LANGUAGE=language))
    prefix = question_form(data, survey, "pets")
    data[f"{prefix}-choices_text"] = "Dog\nCat\nFish"
    data[f"{prefix}-kind"] = Question.Kind.MULTI
    response = admin_client.post(change_url(survey), data, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 302, text(response)[:3000]
    assert survey.questions.get(name="pets").kind == "multi"
    assert [label for label, _p in labels(survey, "pets")] == ["Dog", "Cat", "Fish"]
    # Too few typed lines for an ordered scale: refused (by the lines), in the page's language
    data = page_data(admin_client.get(change_url(survey), HTTP_ACCEPT_LANGUAGE=language))
    prefix = question_form(data, survey, "smoker")
    data[f"{prefix}-choices_text"] = "never\ndaily"
    data[f"{prefix}-style"] = Question.Style.SCALE
    page = text(admin_client.post(change_url(survey), data, HTTP_ACCEPT_LANGUAGE=language))
    assert ("Eine geordnete Skala braucht mindestens 3 Auswahlmöglichkeiten" if language == "de" else
            "An ordered scale needs at least 3 choices") in page
    # A yes/no question shown as a scale: not a count, so not dropped
    data = page_data(admin_client.get(change_url(survey), HTTP_ACCEPT_LANGUAGE=language))
    prefix = question_form(data, survey, "sick")
    data[f"{prefix}-style"] = Question.Style.SCALE
    page = text(admin_client.post(change_url(survey), data, HTTP_ACCEPT_LANGUAGE=language))
    assert ("Eine geordnete Skala braucht eine Frage mit Auswahlmöglichkeiten" if language == "de" else
            "An ordered scale needs a categorical question") in page
    assert survey.questions.get(name="sick").style == Question.Style.AUTO


def test_the_preview_banner_names_the_status_in_german(admin_client):
    survey = make_draft_survey()
    page = text(admin_client.get(f"/s/{survey.slug}/preview/", **GERMAN))
    assert "(Status: Entwurf)" in page and "Draft" not in page


def test_every_registered_oracle_title_is_translated():
    from aggregator.mechanism_texts import TEXTS

    assert set(TEXTS) >= {oracles.lookup(name).title for name in oracles.names(sort=False)}
    with translation.override("de"):
        for name, title in Survey._meta.get_field("encoding").choices:
            assert str(title) != oracles.lookup(name).title, name


def test_choice_labels_are_plain_english_outside_a_german_request():
    survey = make_draft_survey()
    with translation.override("de"):
        assert survey.get_mode_display() == "Lokale Differential Privacy (ε)"
    with translation.override("en"):
        assert survey.get_mode_display() == "Local differential privacy (ε)"
    assert str(Survey.Status.DRAFT.label) == "Draft"  # no language active in a test outside a request: English


def test_the_engines_fixed_messages_are_german_on_a_german_form():
    """The engine writes English (it knows no Django); its fixed messages a designer meets on the survey's form are
    in the catalogue (survey_app.models.ENGINE_MESSAGES) and shown in the page's language."""
    from django.core.exceptions import ValidationError

    survey = Survey(title="x", slug="x", mode=Survey.Mode.LDP, epsilon=None)
    with translation.override("de"), pytest.raises(ValidationError) as refused:
        survey.clean()
    assert refused.value.message_dict["epsilon"] == ["LDP braucht ε."]
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        survey.clean()
    assert refused.value.message_dict["epsilon"] == ["LDP needs ε."]


def test_the_box_answer_typed_as_a_line_is_refused_in_the_page_language_too():
    with translation.override("de"), pytest.raises(ValueError) as refused:
        parse_choice_lines("ja\nnein\nKeine Angabe", kind=Question.Kind.CATEGORICAL, prefer_not_to_say=True)
    assert refused.value.args[0] == ["Zeile 3: „Keine Angabe“ wird über ein eigenes Kästchen hinzugefügt (angekreuzt); "
                                     "entfernen Sie die Zeile."]
