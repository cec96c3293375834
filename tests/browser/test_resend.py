"""A resend after a lost answer stores the report once (a real browser): the report reaches the server and is
stored, but its answer is lost on the way back (a 502, as when a worker is killed between commit and answer); the
page keeps the report with its nonce and "Send" resends the same body, which the server answers 201 without storing
it again."""
import json

from survey_app.models import PendingReport, Report
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def test_a_resend_after_a_lost_answer_is_stored_once(browser, live_server):
    survey = make_habits_survey("ldp", "oue")
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    shown = json.loads(page.locator("pre.payload").inner_text())
    assert set(shown) == {"report", "protocol_version", "nonce"}
    report_url = f"**/api/surveys/{survey.slug}/reports/"
    reached = []

    def stored_then_lost(route):
        reached.append(route.fetch().status)  # the server stores the report and answers…
        route.fulfill(status=502, body="Bad Gateway")  # …but the page sees the proxy's 502

    page.route(report_url, stored_then_lost)
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("error 502").wait_for()
    assert reached == [201]
    assert PendingReport.objects.filter(survey=survey).count() == 1
    page.unroute(report_url)
    page.get_by_role("button", name="Send the randomized report").click()  # the respondent sends again
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    sent = [json.loads(p.post_data) for p in posts if p.url.endswith("/reports/")]
    assert sent == [shown, shown]  # the same report with the same nonce
    stored = [(r.payload, r.nonce) for model in (PendingReport, Report) for r in model.objects.filter(survey=survey)]
    assert stored == [(shown["report"], shown["nonce"])] and errors == []
    context.close()
