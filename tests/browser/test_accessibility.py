"""Accessibility as a test (issue 12 item 7): axe-core, vendored from npm in static/vendor/axe-core/, runs in a real
browser (Debian's Chromium driven by Playwright) on the respondent's pages — a demo survey's questions, its review
step, the thank-you page —, on the staff dashboard (the survey list, a survey's page, its prediction page), on the
planner and on the home page, and finds nothing of serious or critical impact: no violation, and nothing it leaves
to review (``KNOWN_INCOMPLETE`` aside).

axe is added to the page by the test only (``page.add_script_tag``), from the server's own static files: no page of
the site loads it, and the pages keep their Content-Security-Policy (``script-src 'self'``), which a script added
inline would break."""
import io

import pytest
from django.core.management import call_command

from tests.browser.axe import assert_accessible, sign_in
from tests.browser_support import BROWSER_TEST

pytestmark = BROWSER_TEST

@pytest.fixture
def demo():
    """The demo surveys of ``manage.py demo`` (mushroom data: 22 questions and the class), with a few simulated
    respondents and a published model, so the dashboard shows its tables and charts."""
    call_command("demo", "--respondents", "200", stdout=io.StringIO())


def answer_every_question(page):
    """On the (one-page) demo survey: the first choice of every question (of a dropdown too; the first box of a
    select-all question); ends on the review step."""
    for group in page.locator("section.page:not([hidden]) fieldset.question").all():
        group.locator("input").first.check()
    for select in page.locator("section.page:not([hidden]) .question select").all():
        select.select_option(index=1)
    page.get_by_role("button", name="Review what will be sent").click()
    page.locator("section.review h2").wait_for()


@pytest.mark.parametrize("slug", ["demo-ldp", "demo-mrr"])
def test_the_respondent_pages_have_no_serious_violation(demo, page, live_server, slug):
    page.goto(f"{live_server.url}/s/{slug}/")
    page.locator("#privacy-figure").wait_for()
    assert_accessible(page, f"{slug}: the questions")
    page.get_by_role("button", name="Review what will be sent").click()  # nothing answered: every question marked
    assert page.locator("[aria-invalid=true]").count() > 0
    assert_accessible(page, f"{slug}: the questions marked unanswered")
    answer_every_question(page)
    assert_accessible(page, f"{slug}: the review step")
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{slug}/thanks/")
    assert_accessible(page, f"{slug}: the thank-you page")


def test_the_dashboard_has_no_serious_violation(demo, page, live_server):
    sign_in(page, live_server, "/dashboard/")
    assert page.locator("table.surveys tbody tr").count() == 2
    assert_accessible(page, "the dashboard's survey list")
    for slug in ("demo-ldp", "demo-mrr"):
        page.goto(f"{live_server.url}/dashboard/surveys/{slug}/")
        page.wait_for_load_state("networkidle")
        assert page.locator("canvas").count() > 0  # the charts are drawn
        assert_accessible(page, f"the dashboard page of {slug}")
    page.goto(f"{live_server.url}/dashboard/surveys/demo-ldp/predict/")
    page.get_by_role("button", name="Predict").click()
    page.locator("#predicted").wait_for()
    assert_accessible(page, "the dashboard's prediction page")


def test_the_planner_has_no_serious_violation(page, live_server):
    sign_in(page, live_server, "/dashboard/planner/")
    assert_accessible(page, "the planner")
    page.get_by_label("Repetitions per setting").fill("1")  # too few, and no data set chosen: the form's errors
    page.get_by_role("button", name="Run the planner").click()
    reps = page.get_by_label("Repetitions per setting")
    assert reps.get_attribute("aria-invalid") == "true" and page.locator("#id_reps_error").is_visible()
    assert_accessible(page, "the planner after a submission")


def test_the_home_page_has_no_serious_violation(demo, page, live_server):
    page.goto(f"{live_server.url}/")
    assert_accessible(page, "the home page")
