"""The page and a change of the survey's protocol (issue 27 item 4), in Debian's Chromium against the live server.

A page loaded under one protocol, whose survey's settings then change (written behind the forms' back: an open
survey's settings are frozen, so this stands for any change of the protocol the page did not see, such as an upgrade
of the engine): pressing "Send" sends nothing, the page randomizes the answers again under the current protocol,
shows its figures and says so; the second "Send" states the current protocol version and is stored. Every report
POST states the version the server computes."""
import json

from survey_app.models import PendingReport, Survey
from survey_app.protocol import get_protocol
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def test_a_changed_protocol_is_noticed_before_sending_and_the_report_prepared_again(browser, live_server):
    survey = make_habits_survey("ldp", "de")
    Survey.objects.filter(pk=survey.pk).update(epsilon=3.0)
    survey.refresh_from_db()
    old = get_protocol(survey).version
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    assert "ε = 3" in page.locator("#privacy-figure").inner_text()
    answer_daily_73_yes(page)
    assert json.loads(page.locator("pre.payload").inner_text())["protocol_version"] == old
    Survey.objects.filter(pk=survey.pk).update(epsilon=0.5)
    survey.refresh_from_db()
    current = get_protocol(survey).version
    page.get_by_role("button", name="Send the randomized report").click()
    page.locator(".errors").get_by_text("privacy settings changed").wait_for()
    assert "Your answers were randomized again under the current settings" in page.locator(".errors").inner_text()
    assert posts == [] and PendingReport.objects.count() == 0  # nothing left the page
    assert "ε = 0.5" in page.locator("#privacy-figure").inner_text()
    shown = json.loads(page.locator("pre.payload").inner_text())
    assert shown["protocol_version"] == current
    get_protocol(survey).parse_one(shown["report"])
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert errors == [] and len(posts) == 1 and json.loads(posts[0].post_data) == shown
    assert [r.payload for r in PendingReport.objects.all()] == [shown["report"]]
    context.close()


def test_in_german_the_page_says_so_too(browser, live_server):
    survey = make_habits_survey("ldp", "de")
    context = browser.new_context(locale="de-DE", extra_http_headers={"Accept-Language": "de"})
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.get_by_label("daily").check()
    page.get_by_role("button", name="Weiter").click()
    page.locator("#q1").fill("30")
    page.locator('input[data-group="q2"]').nth(1).check()
    page.locator("#survey-app button[type=submit]").click()
    page.locator("pre.payload").wait_for()
    Survey.objects.filter(pk=survey.pk).update(epsilon=0.25)
    page.locator("#survey-app button[type=submit]").click()
    page.locator(".errors").get_by_text("Datenschutzeinstellungen").wait_for()
    assert "unter den aktuellen Einstellungen neu zufällig verändert" in page.locator(".errors").inner_text()
    assert posts == []
    context.close()
