"""Adaptive allocation in a real browser (issue 13 item 3): the page draws the input to report with the assignment
the server published for today, and says that the chances are set each day."""
import datetime
import json

from playwright.sync_api import expect

from aggregator.models import ModelVersion
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def test_the_browser_reports_the_input_todays_assignment_gives_it(browser, live_server):
    survey = make_habits_survey("ldp", "oue")
    survey.allocation = "adaptive"
    survey.save()
    # Yesterday's version sets today's assignment: input 1 (smoker × class) all but certainly (1 − 2·10⁻⁹).
    ModelVersion.objects.create(survey=survey, version=1, model={}, report_count=1, privacy={},
                                metrics={"assignment": [1e-9, 1 - 2e-9, 1e-9]})
    ModelVersion.objects.filter(survey=survey).update(
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1, hours=1))
    sent = []
    for _ in range(3):
        context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
        expect(page.locator("#mechanism-words")).to_contain_text("These chances are set each day (UTC)")
        answer_daily_73_yes(page)
        page.get_by_role("button", name="Send the randomized report").click()
        page.wait_for_url(f"**/s/{survey.slug}/thanks/")
        assert errors == []
        sent.append(json.loads(posts[0].post_data)["report"]["input"])
        context.close()
    assert sent == [1, 1, 1]  # uniform: all three input 1 with probability 1/27
