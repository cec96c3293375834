"""Nothing travels with the report (issue 27 items 1 and 6), in Chromium with the headers it really sends.

An invitation link holds its token in the URL fragment; the page reads it, takes it out of the address bar and
redeems it at the first answer; the report leaves only when "Send" is pressed. The report POST — its URL, every
header Chromium put on the wire (``Request.all_headers``: Referer, Cookie, Origin, …), its body — and the browser's
cookies hold neither the token nor the address of the page it came from; only the redemption carries the token. A link
of the earlier form /s/<slug>/t/<token>/ is redirected to the fragment form: only that first GET carries the token.

One randomization per answer set: going back from the review step and reviewing the same answers shows the same
report; changing an answer changes only the part of the report that the mechanism makes of it (static/js/permanent.mjs),
and changing it back shows the first report again."""
import json

import pytest

from survey_app.models import InvitationToken
from survey_app.services import generate_tokens
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, wait_for_credential
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def token_survey(mode="ldp", encoding="oue"):
    survey = make_habits_survey(mode, encoding)
    survey.access = "tokens"
    survey.save()
    return survey, generate_tokens(survey, 1)[0].token


def link(live_server, slug: str, token: str, form: str) -> str:
    return f"{live_server.url}/s/{slug}/i/#{token}" if form == "fragment" else f"{live_server.url}/s/{slug}/t/{token}/"


def everything_in(request) -> str:
    """All a request carries, as sent: its URL, every header name and value, its body."""
    headers = request.all_headers()
    return "\n".join([request.url, *(f"{name}: {value}" for name, value in headers.items()), request.post_data or ""])


@pytest.mark.parametrize("form", ["fragment", "earlier"])
def test_the_report_post_carries_neither_the_token_nor_the_token_pages_address(browser, live_server, form):
    survey, token = token_survey()
    context = browser.new_context()
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r))
    page.goto(link(live_server, survey.slug, token, form))
    page.get_by_label("daily").check()  # the first answer: the invitation is redeemed now
    wait_for_credential(page, survey.slug)
    redeem_url = f"{live_server.url}/api/surveys/{survey.slug}/invitations/redeem/"
    assert [r.url for r in requests if r.method == "POST"] == [redeem_url]
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your age (18 to 98)").fill("73.25")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    with page.expect_response(f"**/api/surveys/{survey.slug}/reports/") as sent:
        page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    report = sent.value.request
    assert sent.value.status == 201 and report.method == "POST"
    carried = everything_in(report)
    headers = report.all_headers()
    assert token not in carried
    assert "referer" not in headers  # no Referer at all: not the token page's address, not the page's
    assert f"/s/{survey.slug}/" not in carried and "/t/" not in carried and "#" not in report.url
    assert set(json.loads(report.post_data)) == {"report", "credential", "nonce", "protocol_version"}
    assert all(token not in json.dumps(cookie) for cookie in context.cookies())
    # Only the redemption (and a link of the earlier form's own first GET) ever carried the token.
    holding = [r for r in requests if token in everything_in(r)]
    expected = [redeem_url] if form == "fragment" else [link(live_server, survey.slug, token, form), redeem_url]
    assert [r.url for r in holding] == expected
    assert "referer" not in next(r for r in requests if r.url == redeem_url).all_headers()
    # Every request made after the page read the token (the thanks page's too): no Referer (a stylesheet served from
    # the memory cache is listed with an empty one).
    after = requests[requests.index(next(r for r in requests if r.url.endswith("/protocol/"))):]
    assert not [(r.url, r.all_headers()["referer"]) for r in after if r.all_headers().get("referer")]
    assert InvitationToken.objects.get(token=token).used and survey.report_total() == 1
    context.close()


@pytest.mark.parametrize("form", ["fragment", "earlier"])
def test_the_address_bar_no_longer_holds_the_token_after_load(browser, live_server, form):
    survey, token = token_survey()
    context = browser.new_context()
    page = context.new_page()
    page.goto(link(live_server, survey.slug, token, form))
    page.get_by_label("daily").wait_for()  # the page has loaded and read the token
    assert page.url == f"{live_server.url}/s/{survey.slug}/i/"
    assert token not in page.evaluate("location.href + ' ' + document.URL")
    assert token not in page.evaluate("JSON.stringify(history.state)")
    assert token not in page.locator("html").inner_html()  # nor in the page's markup
    # Until it is redeemed, the token waits in this tab's sessionStorage (never sent): a reload or a change of language
    # before the first answer keeps the invitation, and the address still holds no token.
    page.reload()
    page.get_by_label("daily").wait_for()
    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_url(f"**/s/{survey.slug}/i/")
    page.get_by_label("daily").check()  # the first answer (the choices have no German labels): redeemed now
    wait_for_credential(page, survey.slug)
    assert InvitationToken.objects.get(token=token).used
    # dropped once redeemed
    assert page.evaluate(f"sessionStorage.getItem('coinflip:invitation:{survey.slug}')") is None
    assert token not in page.url
    # Another browser opened on the address bar's address has neither the token nor a credential: it is told how to
    # come back (this browser keeps the credential, test_a_reload_after_the_first_answer_…).
    other = browser.new_context().new_page()
    other.goto(page.url)
    other.get_by_text("open the survey again from your invitation link").wait_for()
    other.context.close()
    context.close()


def test_a_reload_after_the_first_answer_keeps_the_credential_not_the_token(browser, live_server):
    survey, token = token_survey("mrr")
    context = browser.new_context()
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(link(live_server, survey.slug, token, "fragment"))
    page.get_by_label("daily").check()
    wait_for_credential(page, survey.slug)
    page.reload()
    assert token not in page.url
    answer_daily_73_yes(page)
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert [p.url.rsplit("/", 2)[-2] for p in posts] == ["redeem", "reports"]
    assert survey.report_total() == 1
    context.close()


def review_payload(page) -> dict:
    return json.loads(page.locator("pre.payload").inner_text())


def back_to_first_page(page):
    page.get_by_role("button", name="Back").click()  # review → "About you"
    page.get_by_role("button", name="Back").click()  # "About you" → "Habits"


def review_from_first_page(page):
    page.get_by_role("button", name="Next").click()
    page.get_by_role("button", name="Review what will be sent").click()


@pytest.mark.parametrize("mode, encoding, strategy", [("ldp", "oue", "one-report"), ("ldp", "de", "split"),
                                                       ("mrr", "oue", "one-report")])
def test_reviewing_the_same_answers_again_shows_the_same_report(browser, live_server, page, mode, encoding, strategy):
    survey = make_habits_survey(mode, encoding)
    survey.strategy = strategy
    survey.save()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    first = review_payload(page)
    page.get_by_role("button", name="Back").click()
    page.get_by_role("button", name="Review what will be sent").click()
    assert review_payload(page) == first  # back and review again: no re-roll
    back_to_first_page(page)
    review_from_first_page(page)
    assert review_payload(page) == first
    # Change the smoking answer: only what the mechanism makes of it may change.
    back_to_first_page(page)
    page.get_by_label("never").check()
    review_from_first_page(page)
    changed = review_payload(page)
    report, before = changed["report"], first["report"]
    if mode == "ldp" and strategy == "one-report":
        assert report["input"] == before["input"]  # the part sampled for this respondent is kept
        if before["input"] != 1:  # input 1 is smoking with illness; 0 illness alone, 2 age with illness
            assert report == before
    elif mode == "ldp":
        assert report["reports"][0] == before["reports"][0] and report["reports"][2] == before["reports"][2]
    # Back to the first answers: the first report again (a detour is no re-roll either).
    back_to_first_page(page)
    page.get_by_label("daily").check()
    review_from_first_page(page)
    assert review_payload(page) == first
    page.get_by_role("button", name="Back").click()
    page.get_by_label("Your age (18 to 98)").fill("73.25")  # the same age typed again
    page.get_by_role("button", name="Review what will be sent").click()
    assert review_payload(page) == first
