"""Languages (issue 12 item 3): English and German pages chosen from Accept-Language or the switch at the foot of every
page; a survey's own texts in several languages with a fallback to the original; the designers' translations checked;
and catalogues that fail the suite when an English string has no German: the Django catalogue
(locale/de/LC_MESSAGES/django.po, compiled django.mo) and the JavaScript's (static/js/locale/de.mjs)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django import forms
from django.core.exceptions import ValidationError

from survey_app.languages import QUESTION_FIELDS, SURVEY_FIELDS, check_translations
from survey_app.models import Choice, Question, Survey
from tests.factories import make_survey

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "de" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
JS = ROOT / "static" / "js"
JS_CATALOGUE = JS / "locale" / "de.mjs"
# A catalogue key: the first argument of t("…") (static/js/i18n.mjs), always a plain string literal.
JS_KEY = re.compile(r'\bt\(\s*"((?:[^"\\]|\\.)*)"')
PLACEHOLDER = re.compile(r"\{(\w+)\}")


# ---- the catalogues -------------------------------------------------------------------------------------------------

def po_entries(path: Path) -> list[dict]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr (a list) and flags; the header left out."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry: dict = {"flags": "", "msgstr": []}
        key = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] += line
            elif line.startswith("#"):
                continue
            elif match := re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (\".*\")$", line):
                key = match.group(1)
                value = json.loads(match.group(2))
                if key.startswith("msgstr"):
                    entry["msgstr"].append(value)
                    key = ("msgstr", len(entry["msgstr"]) - 1)
                else:
                    entry[key] = value
            elif line.startswith('"') and key is not None:
                value = json.loads(line)
                if isinstance(key, tuple):
                    entry["msgstr"][key[1]] += value
                else:
                    entry[key] += value
        if entry.get("msgid"):
            entries.append(entry)
    return entries


def test_every_string_of_the_german_catalogue_is_translated_and_none_is_fuzzy():
    entries = po_entries(PO)
    assert len(entries) > 50
    untranslated = [e["msgid"] for e in entries if not e["msgstr"] or not all(e["msgstr"])]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e["flags"]]
    assert not untranslated, f"no German for: {untranslated}"
    assert not fuzzy, f"fuzzy (check, then remove the flag): {fuzzy}"
    for e in entries:  # the same %(name)s placeholders, so that no figure or title gets lost
        for text in e["msgstr"]:
            assert set(re.findall(r"%\(\w+\)s", text)) == set(re.findall(r"%\(\w+\)s", e["msgid"])) \
                or "msgid_plural" in e, e["msgid"]


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext's msgfmt is not installed")
def test_the_committed_mo_is_the_compiled_po(tmp_path):
    fresh = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(fresh), str(PO)], check=True, capture_output=True)
    assert fresh.read_bytes() == MO.read_bytes(), "run `msgfmt --check -o django.mo django.po` in locale/de/LC_MESSAGES"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="gettext's xgettext is not installed")
def test_makemessages_finds_no_string_missing_from_the_german_catalogue(tmp_path):
    """makemessages over the project, written to a temporary locale folder: every msgid it finds is in the committed
    catalogue (so a new English string without German fails here)."""
    # The sources, linked into a folder without the committed locale/ (makemessages writes beside the sources it
    # finds when a locale/ folder is there), and a settings module whose LOCALE_PATHS is the temporary one.
    (tmp_path / "locale").mkdir()
    src = tmp_path / "src"
    src.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in {"locale", "node_modules", "staticfiles", "var", "bench", "data"} \
                and not entry.name.startswith("."):
            (src / entry.name).symlink_to(entry)
    (tmp_path / "messages_settings.py").write_text(
        "from tests.settings import *  # noqa: F403\n"
        f"LOCALE_PATHS = [{str(tmp_path / 'locale')!r}]\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "DJANGO_SETTINGS_MODULE": "messages_settings"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "makemessages", "-l", "de", "--symlinks", "--no-location"],
        cwd=src, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    fresh = po_entries(tmp_path / "locale" / "de" / "LC_MESSAGES" / "django.po")
    committed = {(e.get("msgctxt"), e["msgid"]) for e in po_entries(PO)}
    missing = sorted({(e.get("msgctxt"), e["msgid"]) for e in fresh} - committed, key=str)
    assert not missing, ("strings not in locale/de/LC_MESSAGES/django.po — run `python manage.py makemessages -l de`, "
                         f"translate them and compile: {missing}")


def js_catalogue() -> dict[str, str]:
    text = JS_CATALOGUE.read_text(encoding="utf-8")
    body = text[text.index("\nexport default ") + len("\nexport default "):].strip()
    assert body.endswith(";")
    return json.loads(body[:-1])


def js_keys() -> dict[str, str]:
    """{key: module} of every t("…") of static/js (the catalogue itself left out)."""
    keys = {}
    for path in sorted(JS.rglob("*.mjs")):
        if "locale" in path.relative_to(JS).parts:
            continue
        for match in JS_KEY.finditer(path.read_text(encoding="utf-8")):
            keys.setdefault(json.loads(f'"{match.group(1)}"'), str(path.relative_to(ROOT)))
    return keys


def test_every_javascript_string_has_its_german():
    keys, german = js_keys(), js_catalogue()
    assert len(keys) > 100
    missing = {key: module for key, module in keys.items() if not german.get(key)}
    assert not missing, f"add to static/js/locale/de.mjs: {missing}"
    for key in keys:
        assert sorted(PLACEHOLDER.findall(german[key])) == sorted(PLACEHOLDER.findall(key)), key


def test_the_javascript_catalogue_has_no_stale_entry():
    stale = sorted(set(js_catalogue()) - set(js_keys()))
    assert not stale, f"remove from static/js/locale/de.mjs (no t() uses them): {stale}"


def test_the_catalogue_module_is_part_of_the_integrity_checked_randomizer():
    from survey_app.integrity import randomizer

    names = {module.name for module in randomizer().modules}
    assert {"js/i18n.mjs", "js/locale/de.mjs"} <= names


# ---- language negotiation and the switch ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_browser_language_chooses_the_page_language(client):
    survey = make_survey()
    english = client.get(f"/s/{survey.slug}/").content.decode()
    assert '<html lang="en">' in english and "How your answers stay private" in english
    german = client.get(f"/s/{survey.slug}/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    page = german.content.decode()
    assert '<html lang="de">' in page and "Wie Ihre Antworten privat bleiben" in page
    assert "How your answers stay private" not in page
    assert "Accept-Language" in german.headers["Vary"]
    french = client.get(f"/s/{survey.slug}/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert '<html lang="en">' in french.content.decode()  # not offered: English
    assert not german.cookies and not french.cookies  # choosing a language sets no cookie


@pytest.mark.django_db
def test_the_switch_sets_the_language_without_a_csrf_token_and_returns_to_the_page(client):
    survey = make_survey()
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert 'action="/i18n/setlang/?next=/s/health/"' in page
    assert 'name="language" value="de"' in page and "Deutsch" in page
    assert "csrfmiddlewaretoken" not in page  # the survey page sets no cookie
    checked = type(client)(enforce_csrf_checks=True)
    response = checked.post("/i18n/setlang/", {"language": "de", "next": f"/s/{survey.slug}/"})
    assert response.status_code == 302 and response.headers["Location"] == f"/s/{survey.slug}/"
    assert response.cookies["django_language"].value == "de"
    assert "Wie Ihre Antworten privat bleiben" in checked.get(f"/s/{survey.slug}/").content.decode()
    # The cookie wins over the browser's language, and switching back works.
    assert '<html lang="de">' in checked.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    checked.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert '<html lang="en">' in checked.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    # Only a language of the site, and only a local address to return to.
    assert "django_language" not in checked.post("/i18n/setlang/", {"language": "xx", "next": "/"}).cookies
    away = checked.post("/i18n/setlang/", {"language": "de", "next": "https://evil.example/"})
    assert away.headers["Location"] == "/"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/s/nothing-here/", "/s/health/thanks/"])
def test_respondent_pages_in_german(client, path):
    make_survey()
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de">' in page and "Zum Inhalt springen" in page
    assert "Skip to content" not in page


# ---- a survey's own texts -------------------------------------------------------------------------------------------

def german_texts(survey: Survey) -> None:
    survey.translations = {"de": {"title": "Gesundheit", "description": "Fragen zu Ihrer Gesundheit."}}
    survey.save()
    smoker = survey.questions.get(name="smoker")
    smoker.translations = {"de": {"text": "Rauchen Sie?", "help_text": "Zigaretten zählen."}}
    smoker.save()
    labels = {"never": "nie", "daily": "täglich"}  # "sometimes" left untranslated: falls back to the original
    for choice in smoker.choices.all():
        if choice.label in labels:
            choice.translations = {"de": labels[choice.label]}
            choice.save()


@pytest.mark.django_db
def test_the_survey_texts_in_the_page_language_with_the_original_as_fallback(client):
    survey = make_survey(description="Questions about your health.")
    german_texts(survey)
    page = client.get("/s/health/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<h1>Gesundheit</h1>" in page and "Fragen zu Ihrer Gesundheit." in page
    assert "<title>Gesundheit — Coinflip</title>" in page
    english = client.get("/s/health/").content.decode()
    assert "<h1>Health</h1>" in english and "Questions about your health." in english

    body = client.get("/api/surveys/health/protocol/", HTTP_ACCEPT_LANGUAGE="de").json()
    questions = {q["name"]: q for q in body["questions"]}
    assert body["survey"]["title"] == "Gesundheit"
    assert questions["smoker"]["text"] == "Rauchen Sie?" and questions["smoker"]["help_text"] == "Zigaretten zählen."
    assert questions["smoker"]["labels"] == ["nie", "sometimes", "täglich"]  # same order: the codes sent
    assert questions["sick"]["text"] == "Are you sick?"  # no German given: the original
    assert questions["sick"]["labels"] == ["nein", "ja"]  # the platform's own labels from the catalogue
    # The protocol (what the engine and the reports use) keeps the original labels, in every language.
    english = client.get("/api/surveys/health/protocol/").json()
    assert body["protocol"] == english["protocol"]
    smoker_spec = next(f for f in body["protocol"]["features"] if f["name"] == "smoker")
    assert smoker_spec["values"] == ["never", "sometimes", "daily"]
    assert {q["name"]: q["labels"] for q in english["questions"]}["smoker"] == ["never", "sometimes", "daily"]

    thanks = client.get("/s/health/thanks/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<strong>Gesundheit</strong>" in thanks and "Vielen Dank" in thanks


@pytest.mark.django_db
def test_an_empty_or_partial_translation_falls_back_to_the_original(client):
    survey = make_survey()
    survey.translations = {"de": {"title": "  ", "description": "Nur die Beschreibung."}}
    survey.save()
    page = client.get("/s/health/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<h1>Health</h1>" in page and "Nur die Beschreibung." in page


# ---- the designers' translations ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, fields, says", [
    ([1, 2], SURVEY_FIELDS, "JSON object keyed by language"),
    ({"fr": {"title": "x"}}, SURVEY_FIELDS, "“fr” is not a language of this site (choose from: en, de)"),
    ({"de": "Titel"}, SURVEY_FIELDS, "must be an object of fields and texts"),
    ({"de": {"titel": "x"}}, SURVEY_FIELDS, "“titel” (in “de”) is not a text that can be translated here"),
    ({"de": {"text": 3}}, QUESTION_FIELDS, "“text” in “de” must be a text"),
    ({"de": {"label": "x"}}, None, "The label in “de” must be a text"),
])
def test_invalid_translations_are_refused_in_plain_words(value, fields, says):
    with pytest.raises(ValidationError) as caught:
        check_translations(value, fields)
    assert any(says in message for message in caught.value.messages), caught.value.messages


def test_valid_translations_pass():
    assert check_translations({"de": {"title": "T", "description": ""}}, SURVEY_FIELDS)
    assert check_translations({"de": {"text": "?", "help_text": "", "personal_text": "?"}}, QUESTION_FIELDS)
    assert check_translations({"de": "ja", "en": "yes"}, None)
    assert check_translations({}, None) == {}


@pytest.mark.django_db
def test_models_refuse_invalid_translations():
    survey = make_survey(status="draft")
    survey.translations = {"de": {"subtitle": "x"}}
    with pytest.raises(ValidationError) as caught:
        survey.full_clean()
    assert "translations" in caught.value.message_dict
    question = Question.objects.get(survey=survey, name="smoker")
    question.translations = {"xx": {"text": "?"}}
    with pytest.raises(ValidationError) as caught:
        question.full_clean()
    assert "translations" in caught.value.message_dict
    choice = Choice.objects.filter(question=question).first()
    choice.translations = {"de": {"label": "nie"}}
    with pytest.raises(ValidationError) as caught:
        choice.full_clean()
    assert "translations" in caught.value.message_dict


def posted_back(response) -> dict:
    """An admin change form's current values as a browser posts them back (the inlines' existing rows only)."""
    data = {}

    def put(prefix: str, form) -> None:
        for name in form.fields:
            value = form[name].value()
            if isinstance(form.fields[name].widget, forms.MultiWidget):  # one input per part (translations)
                bound = form[name]
                for part in bound.field.widget.get_context(bound.html_name, bound.value(), {})["widget"]["subwidgets"]:
                    data[part["name"]] = part["value"] or ""
            elif isinstance(value, bool):
                if value:
                    data[prefix + name] = "on"
            elif value is not None:
                data[prefix + name] = value

    put("", response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update({f"{formset.prefix}-{k}": v for k, v in formset.management_form.initial.items()})
        data[f"{formset.prefix}-TOTAL_FORMS"] = formset.initial_form_count()
        for form in formset.forms[:formset.initial_form_count()]:
            put(f"{form.prefix}-", form)
    return data


@pytest.mark.django_db
def test_the_admin_edits_translations_and_shows_errors(admin_client):
    survey = make_survey(status="draft")
    page = admin_client.get(f"/admin/survey_app/survey/{survey.pk}/change/").content.decode()
    assert 'name="translations_de_title"' in page and "Other languages" in page
    german = admin_client.get(f"/admin/survey_app/survey/{survey.pk}/change/", HTTP_ACCEPT_LANGUAGE="de")
    assert "Andere Sprachen" in german.content.decode()

    question = Question.objects.get(survey=survey, name="smoker")
    url = f"/admin/survey_app/question/{question.pk}/change/"
    data = posted_back(admin_client.get(url))
    # one input per language and text, the question's and each choice's (not raw JSON)
    assert "translations_de_text" in data and "choices-0-translations_de" in data
    accepted = admin_client.post(url, {**data, "translations_de_text": "Rauchen Sie?",
                                       "choices-0-translations_de": "nie"})
    assert accepted.status_code == 302
    question.refresh_from_db()
    assert question.translations == {"de": {"text": "Rauchen Sie?"}}
    assert question.choices.order_by("position", "id").first().translations == {"de": "nie"}
    emptied = admin_client.post(url, {**data, "translations_de_text": ""})  # emptied inputs: no translations
    assert emptied.status_code == 302
    question.refresh_from_db()
    assert question.translations == {}


@pytest.mark.django_db
def test_the_demo_surveys_have_german_texts(client):
    import io

    from django.core.management import call_command

    call_command("demo", "--respondents", "200", stdout=io.StringIO())
    for slug in ("demo-ldp", "demo-mrr"):
        survey = Survey.objects.get(slug=slug)
        assert survey.translations["de"]["title"].startswith("Umfrage zur Pilzsuche")
        check_translations(survey.translations, SURVEY_FIELDS)
        body = client.get(f"/api/surveys/{slug}/protocol/", HTTP_ACCEPT_LANGUAGE="de").json()
        english = client.get(f"/api/surveys/{slug}/protocol/").json()
        assert body["protocol"] == english["protocol"]
        for german, original in zip(body["questions"], english["questions"], strict=True):
            assert german["text"] != original["text"], original["text"]  # every question in German
            untranslated = [label for label, source in zip(german["labels"], original["labels"], strict=True)
                            if label == source and label not in ("orange",)]
            assert not untranslated, (original["name"], untranslated)
    page = client.get("/s/demo-ldp/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<h1>Umfrage zur Pilzsuche (Antworten in Ihrem Browser verschleiert)</h1>" in page


@pytest.mark.django_db
def test_the_dashboard_in_german(admin_client):
    survey = make_survey()
    listing = admin_client.get("/dashboard/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de">' in listing and "<h1>Umfragen</h1>" in listing and ">Planer</a>" in listing
    assert "Angemeldet als" in listing and 'name="language" value="en"' in listing  # the switch, in the layout too
    page = admin_client.get(f"/dashboard/surveys/{survey.slug}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    for german in ("Auf einen Blick", "Jetzt neu trainieren", "Diagramme", "Modellversionen", "Warnungen"):
        assert german in page
    for english in ("At a glance", "Retrain now", "Model versions"):
        assert english not in page
    assert "Planer starten" in admin_client.get("/dashboard/planner/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
