"""A survey with an Oblivious HTTP relay in a real browser (Chromium; issue 27 item 8): the page sends its redemption
and its report only to the relay (tests/ohttp_relay.py, a real HTTP relay on another origin), encrypted; the relay
passes them to the gateway, which stores the report; the page says which way they went. Without a relay the page
says the server sees the address. The gateway itself: tests/survey/test_ohttp_gateway.py."""
import hashlib
import json
from urllib.parse import urlsplit

from aggregator.privacy import ohttp as o
from survey_app.models import GatewayKey, InvitationToken, SpentCredential
from survey_app.services import generate_tokens
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey
from tests.ohttp_relay import Relay

pytestmark = BROWSER_TEST


def test_with_a_relay_both_posts_go_only_to_the_relay_and_the_report_is_stored(browser, live_server):
    port = urlsplit(live_server.url).port
    survey = make_habits_survey("ldp", "oue")
    survey.access = "tokens"
    with Relay(f"http://127.0.0.1:{port}/ohttp/gateway/", origin=live_server.url) as relay:
        survey.ohttp_relay = relay.url
        survey.save()
        token = generate_tokens(survey, 1)[0].token
        context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/t/{token}/")
        requests = []
        page.on("request", lambda r: requests.append((r.method, r.url)))
        route = page.locator("#route-words")
        route.get_by_text("relay run by someone else").wait_for()
        assert "127.0.0.1:" in route.inner_text() and "not your IP address" in route.inner_text()
        config = bytes.fromhex(GatewayKey.objects.get(active=True).public_key)
        fingerprint = hashlib.sha256(o.key_config(o.KeyConfig(GatewayKey.objects.get(active=True).key_id,
                                                                config))).hexdigest()
        assert f"fingerprint (SHA-256) {fingerprint}" in route.inner_text()  # what manage.py ohttp_key prints
        answer_daily_73_yes(page)
        shown = json.loads(page.locator("pre.payload").inner_text())
        page.get_by_role("button", name="Send the randomized report").click()
        page.wait_for_url(f"**/s/{survey.slug}/thanks/")
        assert errors == []
        assert [p.url for p in posts] == [relay.url, relay.url]  # the redemption, then the report
        for post in posts:
            assert post.headers["content-type"] == "message/ohttp-req"
            body = post.post_data_buffer
            assert token.encode() not in body and b"report" not in body and b"blinded_msg" not in body
        assert not [url for method, url in requests if method == "POST" and url != relay.url]
        assert len(relay.seen) == 2 and all("cookie" not in {k.lower() for k in s["headers"]} for s in relay.seen)
        context.close()
    assert InvitationToken.objects.get(token=token).used and SpentCredential.objects.filter(survey=survey).count() == 1
    assert [r.payload for r in survey.pending_reports.all()] == [shown["report"]]


def test_without_a_relay_the_page_says_the_server_sees_the_address(browser, live_server):
    survey = make_habits_survey("ldp", "oue")
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    route = page.locator("#route-words")
    route.get_by_text("goes straight to this survey's server").wait_for()
    assert "IP" in route.inner_text() and "relay" not in route.inner_text()
    answer_daily_73_yes(page)
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert [urlsplit(p.url).path for p in posts] == [f"/api/surveys/{survey.slug}/reports/"] and errors == []
    assert survey.report_total() == 1
    context.close()
