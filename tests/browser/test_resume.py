"""Answers that survive a reload without leaving true answers behind (static/js/resume.mjs; docs/threat-model.md):
each step is a history entry (the browser's Back and Forward move between the steps), a reload puts the answers
back at the step it was at, reviewing again after a reload shows the same randomized report (no fresh
randomization), "Send" deletes the answers from the tab's sessionStorage, localStorage never holds them, and leaving
with answers not sent asks first."""
import json

from survey_app.models import PendingReport
from survey_app.services import generate_tokens
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST, wait_for_credential
from tests.factories import make_habits_survey, make_widgets_survey

pytestmark = BROWSER_TEST

KEY = "coinflip:answers:{slug}"


def step(page) -> str:
    return page.locator("p.progress-text").inner_text()


def kept(page, slug) -> dict | None:
    text = page.evaluate(f"sessionStorage.getItem('{KEY.format(slug=slug)}')")
    return json.loads(text) if text else None


def local_keys(page) -> list[str]:
    return page.evaluate("Object.keys(localStorage)")


def test_back_reload_and_send(page, live_server):
    survey = make_widgets_survey()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert kept(page, survey.slug) is None  # nothing answered, nothing kept
    # Step 1: the matrix. Step 2: the slider (three steps right of its middle, 6) and a drink.
    page.locator("#q0-3").check()
    page.locator("#q1-1").check()
    page.get_by_role("button", name="Next").click()
    assert step(page).startswith("Step 2 of 4")
    page.locator("#q2").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.get_by_label("tea").check()
    page.get_by_role("button", name="Next").click()
    assert step(page).startswith("Step 3 of 4")
    # The browser's Back goes to the step before, with its answers; Forward comes back.
    page.go_back()
    assert step(page).startswith("Step 2 of 4")
    assert page.locator("#q2").input_value() == "7.5" and page.get_by_label("tea").is_checked()
    page.go_back()
    assert step(page).startswith("Step 1 of 4")
    page.go_forward()
    assert step(page).startswith("Step 2 of 4")
    state = kept(page, survey.slug)
    assert state["fields"] == {"q0": "3", "q1": "1", "q2": "7.5", "q3": "1"} and state["step"] == 1
    assert not any(k.startswith("coinflip:answers") for k in local_keys(page))  # never in localStorage
    # A reload mid-survey: the answers and the step come back.
    page.reload()
    page.locator("#privacy-figure").wait_for()
    assert step(page).startswith("Step 2 of 4")
    assert page.locator("#q2").input_value() == "7.5" and page.locator("output#q2-value").inner_text() == "7.5"
    assert page.get_by_label("tea").is_checked() and page.locator("#q0-3").is_checked()
    page.get_by_role("button", name="Next").click()
    page.locator("fieldset[data-question=sick]").get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.locator("section.review h2").wait_for()
    first = page.locator("pre.payload").inner_text()
    # Back from the review and a reload there: reviewing the same answers shows the same report, never a fresh one.
    page.get_by_role("button", name="Back").click()
    assert step(page).startswith("Step 3 of 4")
    page.reload()
    page.locator("#privacy-figure").wait_for()
    assert step(page).startswith("Step 3 of 4")
    page.get_by_role("button", name="Review what will be sent").click()
    assert page.locator("pre.payload").inner_text() == first
    page.reload()  # at the review step itself
    page.locator("section.review h2").wait_for()
    assert page.locator("pre.payload").inner_text() == first
    assert_accessible(page, "the review after a reload")
    # Leaving with answers not sent: the browser asks first (dismissed: the page stays).
    dialogs = []
    page.once("dialog", lambda d: (dialogs.append(d.type), d.dismiss()))
    page.close(run_before_unload=True)
    page.wait_for_timeout(500)
    assert dialogs == ["beforeunload"] and not page.is_closed()
    # "Send": the report leaves, and the tab keeps no answer.
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")  # no prompt once sent (a prompt would stop this navigation)
    assert kept(page, survey.slug) is None
    assert not any(k.startswith("coinflip:answers") for k in local_keys(page))
    assert len(posts) == 1 and json.loads(posts[0].post_data) == json.loads(first)
    assert PendingReport.objects.filter(survey=survey).count() == 1


def test_the_page_says_what_is_kept_where(page, live_server):
    survey = make_widgets_survey()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    words = page.locator("#memo-words").inner_text()
    assert "this tab's session storage" in words
    assert "deleted from this tab when you press “Send” or “Delete my answers from this tab”" in words
    assert "never kept in the site's local storage" in words
    # The button deletes them at once.
    page.locator("#q0-3").check()
    assert kept(page, survey.slug) is not None
    page.get_by_role("button", name="Delete my answers from this tab").click()
    page.locator("#privacy-figure").wait_for()
    assert kept(page, survey.slug) is None and not page.locator("#q0-3").is_checked()
    # A page with nothing answered leaves without a prompt.
    with page.expect_event("close", timeout=5000):
        page.close(run_before_unload=True)
    assert page.is_closed()


def test_a_language_switch_keeps_the_answers(page, live_server):
    survey = make_widgets_survey()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    page.locator("#q0-3").check()
    page.locator("#q1-1").check()
    page.get_by_role("button", name="Next").click()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.dismiss()))
    page.locator("form.language-switch button[value=de]").click()
    page.wait_for_function("document.documentElement.lang === 'de'")
    page.locator("#privacy-figure").wait_for()
    assert dialogs == []  # nothing lost, nothing to ask
    assert step(page).startswith("Schritt 2 von 4")
    assert page.locator("#q0-3").is_checked() and page.locator("#q1-1").is_checked()


def test_an_invitation_page_keeps_the_answers_never_the_token(page, live_server):
    """The token waits in its own sessionStorage entry only until it is redeemed at the first answer; the answers kept
    for a reload never hold it, and after "Send" the tab keeps nothing of the survey."""
    survey = make_habits_survey("ldp", "oue")
    survey.access = "tokens"
    survey.save()
    token = generate_tokens(survey, 1)[0].token
    page.goto(f"{live_server.url}/s/{survey.slug}/i/#{token}")
    page.get_by_label("daily").check()
    wait_for_credential(page, survey.slug)
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your age (18 to 98)").fill("73.25")
    everything = "JSON.stringify(Object.entries(sessionStorage))"
    assert token not in page.evaluate(everything) and kept(page, survey.slug)["fields"]["q1"] == "73.25"
    page.reload()
    page.get_by_label("Your age (18 to 98)").wait_for()
    assert page.get_by_label("Your age (18 to 98)").input_value() == "73.25"
    assert step(page).startswith("Step 2 of 3")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert [k for k in page.evaluate("Object.keys(sessionStorage)") if survey.slug in k] == []
    assert survey.report_total() == 1
