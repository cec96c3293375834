"""What the respondent page says, in a real browser (issue 11 item 6): the texts of the mechanism in use on the review
page, no stray "null" above the JSON (issue 12), and the memo — the randomized report kept in localStorage until it
is received — cleared after a successful send, deleted (never resent) when the protocol changed, and resent unchanged
after a network failure.
"""
import json

from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey as make_survey

pytestmark = BROWSER_TEST

FORBIDDEN = ("averaged away", "answers are not in it", "answers are never sent", "never left", "nothing is kept",
             "kept on this device")


def open_survey(browser, live_server, survey):
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()  # the protocol is loaded and the mechanism's words are in place
    return context, page, posts, errors


def memo(page, slug):
    return page.evaluate(f"localStorage.getItem('coinflip:report:{slug}')")


def review_text_nodes(page) -> list[str]:
    """Every non-empty text node of the review section above the exact report, in document order."""
    return page.evaluate("""() => {
        const review = document.querySelector("section.review"), pre = review.querySelector("pre.payload");
        const walker = document.createTreeWalker(review, NodeFilter.SHOW_TEXT), out = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (pre.contains(n)) break;
            if (n.textContent.trim()) out.push(n.textContent.trim());
        }
        return out;
    }""")


def test_mrr_review_page_says_theta_stand_ins_and_what_is_kept(browser, live_server):
    survey = make_survey("mrr")  # θ = 0.6, one group, simulated stand-ins
    context, page, posts, errors = open_survey(browser, live_server, survey)
    explain = page.locator("details.explain").first.inner_text()
    assert "with probability 60 % the record it sends holds your true answers" in explain
    assert "nobody — not even the survey's organisers — can tell whether the record sent is your true one" in explain
    assert "only that report, never your true answers" in explain  # the memo's purpose and limits
    assert "holds your true answers with probability 60 %" in page.locator("#privacy-figure").inner_text()
    answer_daily_73_yes(page)
    review = page.locator("section.review").inner_text()
    assert "With probability 60 % these 3 codes are your true answers; otherwise they are stand-ins" in review
    assert "“Do you smoke?”, “Your age” and “Have you been ill this year?”" in review
    assert "null" not in review_text_nodes(page)
    for phrase in FORBIDDEN:
        assert phrase not in (review + explain)
    assert errors == []
    context.close()


def test_ldp_one_report_review_page_names_the_one_answer_sent(browser, live_server):
    survey = make_survey("ldp", "de")  # ε = 1, one-report, 3 parts
    context, page, posts, errors = open_survey(browser, live_server, survey)
    assert "ε = 1 for everything you send" in page.locator("#privacy-figure").inner_text()
    assert "Your browser picks ONE part of your answers at random" in page.locator("details.explain").first.inner_text()
    answer_daily_73_yes(page)
    review = page.locator("section.review").inner_text()
    shown = json.loads(page.locator("pre.payload").inner_text())
    part = ["your answer to “Have you been ill this year?” (one of 2 possible values)",
            "your answer to “Do you smoke?” together with your answer to “Have you been ill this year?” (one of 6",
            "your answer to “Your age” together with your answer to “Have you been ill this year?” (one of"][
        shown["report"]["input"]]
    assert f"Your browser chose, at random, to send the part numbered {shown['report']['input']}: {part}" in review
    assert "None of your other answers is in it." in review
    assert "How it is disguised: it is kept with probability" in review
    assert "null" not in review_text_nodes(page)
    for phrase in FORBIDDEN:
        assert phrase not in review
    assert errors == []
    context.close()


def test_ldp_split_review_page_says_every_answer_is_sent(browser, live_server):
    survey = make_survey("ldp", "oue")
    survey.strategy = "split"
    survey.save()
    context, page, posts, errors = open_survey(browser, live_server, survey)
    explain = page.locator("details.explain").first.inner_text()
    assert "Your browser sends every one of your answers, in 3 parts" in explain
    answer_daily_73_yes(page)
    review = page.locator("section.review")
    assert review.locator("li").count() == 3
    assert "ε = 0.333" in review.inner_text() and "None of your other answers" not in review.inner_text()
    assert errors == []
    context.close()


def test_memo_is_written_at_send_and_cleared_after_a_successful_send(browser, live_server):
    survey = make_survey("ldp", "oue")
    context, page, posts, errors = open_survey(browser, live_server, survey)
    answer_daily_73_yes(page)
    assert memo(page, survey.slug) is None  # reviewing keeps nothing: only pressing "Send" does
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert memo(page, survey.slug) is None
    assert "keeps no copy" in page.content()
    assert survey.report_total() == 1 and errors == []
    context.close()


def test_memo_of_another_protocol_version_is_deleted_and_not_resent(browser, live_server):
    survey = make_survey("ldp", "oue")
    context, page, posts, errors = open_survey(browser, live_server, survey)
    stale = {"input": 0, "report": "AQ=="}
    page.evaluate(f"""localStorage.setItem('coinflip:report:{survey.slug}', JSON.stringify(
        {{protocol: '{"0" * 64}', saved: Date.now(), report: {json.dumps(stale)}}}))""")
    page.reload()
    page.get_by_label("daily").wait_for()
    assert ("earlier version of this survey's settings: it has been deleted and will not be sent"
            in page.locator("#survey-app").inner_text())
    assert memo(page, survey.slug) is None
    assert page.locator("section.review").is_hidden()  # the questions, not a kept report
    answer_daily_73_yes(page)
    shown = json.loads(page.locator("pre.payload").inner_text())
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    assert errors == []
    context.close()


def test_after_a_network_failure_the_same_report_is_sent_again(browser, live_server):
    survey = make_survey("mrr")
    context, page, posts, errors = open_survey(browser, live_server, survey)
    answer_daily_73_yes(page)
    shown = json.loads(page.locator("pre.payload").inner_text())
    report_url = f"**/api/surveys/{survey.slug}/reports/"
    page.route(report_url, lambda route: route.abort())
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("could not be sent").wait_for()
    kept = json.loads(memo(page, survey.slug))
    assert kept["report"] == shown["report"] and set(kept) == {"protocol", "saved", "report"}
    page.unroute(report_url)
    page.reload()  # later, from the same browser: the kept report is offered, not a fresh randomization
    page.locator("section.review").wait_for()
    assert ("Your browser kept the randomized report of an earlier attempt"
            in page.locator("section.review").inner_text())
    assert json.loads(page.locator("pre.payload").inner_text()) == shown
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert json.loads(posts[-1].post_data) == shown
    assert memo(page, survey.slug) is None
    assert survey.report_total() == 1 and errors == []
    context.close()
