"""A German browser (Playwright locale "de-DE": its Accept-Language and navigator.language) sees the respondent page,
its review step and the thank-you page in German — the server's texts, the texts the page's script writes
(static/js/i18n.mjs with static/js/locale/de.mjs) and the survey's own German texts — while the report sent is the
same as in English (choice numbers, never labels); the switch at the foot of the page changes the language."""
import json
import re

from survey_app.models import PendingReport, Question
from survey_app.protocol import get_protocol
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST

#: Words only an English sentence has: none may be left on a German page (question texts are German here).
ENGLISH = re.compile(r"\b(the|your|you|is|are|with|which|answers?|sent|browser randomizes)\b")


def german_habits(mode: str = "ldp"):
    survey = make_habits_survey(mode)
    survey.translations = {"de": {"title": "Gewohnheiten", "description": "Drei kurze Fragen."}}
    survey.save()
    texts = {
        "smoker": {"text": "Rauchen Sie?", "section": "Gewohnheiten"},
        "age": {"text": "Ihr Alter", "section": "Über Sie"},
        "sick": {"text": "Waren Sie dieses Jahr krank?", "section": "Über Sie"},
    }
    for question in Question.objects.filter(survey=survey):
        question.translations = {"de": texts[question.name]}
        question.save()
        for choice in question.choices.all():
            choice.translations = {"de": {"never": "nie", "sometimes": "manchmal", "daily": "täglich"}[choice.label]}
            choice.save()
    return survey


def visible_text(page, selector: str) -> str:
    return page.locator(selector).inner_text()


def test_a_german_browser_answers_in_german_and_sends_the_same_report(browser, live_server):
    survey = german_habits("ldp")
    context = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    posts, errors = [], []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.locator("h1").inner_text() == "Gewohnheiten"
    assert "Drei kurze Fragen." in visible_text(page, "main")
    assert page.title() == "Gewohnheiten — Coinflip"
    box = visible_text(page, "details.explain[open]")
    assert box.startswith("Wie Ihre Antworten privat bleiben")
    assert "Ihr Browser" in visible_text(page, "#mechanism-words")  # written by the mechanism's module, in German
    assert visible_text(page, "#memo-words").startswith("Was dieser Browser speichert")
    assert visible_text(page, "#privacy-figure").startswith("Datenschutzniveau: ε = 1 ")
    assert "Schritt 1 von 3: Gewohnheiten" in visible_text(page, ".progress-text")
    app = visible_text(page, "#survey-app")
    assert "Rauchen Sie?" in app and "täglich" in app and "manchmal" in app
    assert not ENGLISH.search(box + app), ENGLISH.search(box + app)
    assert_accessible(page, "the German respondent page")

    # Unanswered: the message is German, and names the question in German.
    page.get_by_role("button", name="Weiter").click()
    assert "Bitte beantworten Sie „Rauchen Sie?“." in visible_text(page, ".errors")
    page.get_by_role("group", name="Rauchen Sie?").get_by_label("täglich").check()
    page.get_by_role("button", name="Weiter").click()
    assert "Schritt 2 von 3: Über Sie" in visible_text(page, ".progress-text")
    page.get_by_label("Ihr Alter (18 bis 98)").fill("73.25")
    page.get_by_role("group", name="Waren Sie dieses Jahr krank?").get_by_label("ja").check()
    page.get_by_role("button", name="Prüfen, was gesendet wird").click()

    review = visible_text(page, "section.review")
    assert review.startswith("Was Ihren Browser verlässt")
    assert "Kurz gesagt: " in review and "Dies ist die vollständige Nachricht, die gesendet wird." in review
    words = review.replace(visible_text(page, "pre.payload"), "")
    assert not ENGLISH.search(words), ENGLISH.search(words)
    assert "Schritt 3 von 3: Prüfen Sie, was Ihren Browser verlässt." in visible_text(page, ".progress-text")
    assert_accessible(page, "the German review step")
    shown = json.loads(visible_text(page, "pre.payload"))
    page.get_by_role("button", name="Zufällig veränderten Bericht senden").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert page.locator("h1").inner_text() == "Vielen Dank"
    assert "Ihre zufällig veränderten Antworten auf Gewohnheiten sind eingegangen" in visible_text(page, "main")
    assert errors == []
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    for secret in ("täglich", "daily", "73.25", "ja"):
        assert secret not in posts[0].post_data
    reports = list(PendingReport.objects.filter(survey=survey))
    assert len(reports) == 1
    get_protocol(survey).parse_one(reports[0].payload)  # valid for the engine: codes of the original labels
    context.close()


def test_the_switch_changes_the_language(browser, live_server):
    survey = german_habits("mrr")
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert page.locator("h1").inner_text() == "Gewohnheiten"
    assert visible_text(page, "#privacy-figure").startswith("Datenschutz: ")
    assert context.cookies() == []  # no cookie until the switch is used

    page.get_by_role("button", name="English").click()
    page.wait_for_url(f"**/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator("h1").inner_text() == "Habits"
    assert visible_text(page, "#privacy-figure").startswith("Privacy: ")
    assert page.get_by_role("button", name="Next").is_visible()
    assert "Do you smoke?" in visible_text(page, "#survey-app") and "daily" in visible_text(page, "#survey-app")
    assert [c["value"] for c in context.cookies() if c["name"] == "django_language"] == ["en"]

    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_url(f"**/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert page.locator("h1").inner_text() == "Gewohnheiten"
    assert page.get_by_role("button", name="Weiter").is_visible()
    page.goto(f"{live_server.url}/")
    assert page.get_by_role("heading", name="So funktioniert es").is_visible()
    assert errors == []
    context.close()


def test_the_switch_asks_before_it_drops_answers_given_on_the_page(browser, live_server):
    """In a browser whose session storage is blocked the answers live only in the page's memory, and the switch
    reloads it: once something is answered, the page asks first (in the page's language). Declined: nothing happens
    and the answer is still there; accepted: the page changes language, with nothing kept. (Where the tab keeps the
    answers, the switch keeps them without asking: tests/browser/test_resume.py.)"""
    survey = german_habits("ldp")
    context = browser.new_context(locale="de-DE")
    context.add_init_script("Object.defineProperty(window, 'sessionStorage', "
                            "{ get() { throw new DOMException('blocked', 'SecurityError'); } });")
    page = context.new_page()
    errors, dialogs = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    page.get_by_role("group", name="Rauchen Sie?").get_by_label("täglich").check()

    def decline(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", decline)
    page.get_by_role("button", name="English").click()
    page.wait_for_timeout(300)
    assert dialogs and dialogs[0].startswith("Ein Sprachwechsel lädt diese Seite neu")
    assert page.locator("h1").inner_text() == "Gewohnheiten"  # still the German page, not reloaded
    assert page.get_by_role("group", name="Rauchen Sie?").get_by_label("täglich").is_checked()

    page.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    page.get_by_role("button", name="English").click()
    page.wait_for_url(f"**/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert page.locator("h1").inner_text() == "Habits" and len(dialogs) == 2
    assert not page.get_by_role("group", name="Do you smoke?").get_by_label("daily").is_checked()
    assert errors == []
    context.close()
