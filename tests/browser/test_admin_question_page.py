"""The admin's question page in a real browser at 1,280 px: no horizontal scrolling (the choices' Delete column
visible), translations as one labelled input per language, and no blank choice rows for a yes/no question."""
from django.contrib.auth.models import User

from survey_app.models import Question
from tests.browser_support import BROWSER_TEST
from tests.factories import make_survey

pytestmark = BROWSER_TEST


def signed_in(browser, live_server, url):
    User.objects.create_superuser("boss", "boss@example.invalid", "correct horse")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url)
    page.fill("#id_username", "boss")
    page.fill("#id_password", "correct horse")
    page.click("input[type=submit]")
    page.wait_for_url(url)
    return context, page


def test_the_question_pages_fit_1280_px_with_translations_side_by_side(browser, live_server):
    survey = make_survey(status="draft")
    smoker = Question.objects.get(survey=survey, name="smoker")
    sick = Question.objects.get(survey=survey, name="sick")
    context, page = signed_in(browser, live_server, f"{live_server.url}/admin/survey_app/question/{smoker.pk}/change/")
    page.evaluate("document.querySelectorAll('fieldset.collapse, details').forEach((n) => n.setAttribute('open', ''))")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    delete = page.locator("#choices-group th:has-text('Delete'), #choices-group th:has-text('Löschen')").first
    box = delete.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    german = page.get_by_label("Text in Deutsch", exact=True)
    german.fill("Rauchen Sie?")
    assert page.locator("#choices-group tr:not(.empty-form) input[lang=de]").count() == smoker.choices.count()
    page.goto(f"{live_server.url}/admin/survey_app/question/{sick.pk}/change/")
    assert page.locator("#choices-group").count() == 0  # a yes/no question: no choice rows at all
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    context.close()
