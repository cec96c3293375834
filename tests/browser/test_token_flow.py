"""The invitation flow in a real browser (Chromium, issues 11 and 27): the page of an invitation link (the token in
the fragment) redeems the invitation (token + blinded message) at the first answer and sends the report with the
unblinded credential when "Send" is pressed; the report never holds the token, and the credential verifies with the
survey key. After a network failure the retry resends the same
report: a failed report re-uses the kept credential without redeeming again (the token is not needed any more), a
failed redemption re-sends the same blinded message. The memo holds the credential state, never the token."""
import json

from aggregator.privacy import blind_rsa
from survey_app.credentials import active_key
from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page, wait_for_credential
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def invited_page(browser, live_server, survey):
    token = generate_tokens(survey, 1)[0].token
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/i/#{token}")
    return token, context, page, posts, errors


def memo(page, slug):
    raw = page.evaluate(f"localStorage.getItem('coinflip:report:{slug}')")
    return None if raw is None else json.loads(raw)


def payloads(survey) -> list:
    """Every report of ``survey`` as stored: folded or still in the inbox."""
    return [r.payload for model in (Report, PendingReport) for r in model.objects.filter(survey=survey)]


def verifies(survey, credential) -> bool:
    key = blind_rsa.public_key_from_spki(active_key(survey).public_spki)
    return blind_rsa.verify(key, blind_rsa.b64url_decode(credential["value"]),
                            blind_rsa.b64url_decode(credential["signature"]))


def test_one_click_redeems_then_reports_with_a_credential(browser, live_server):
    survey = make_habits_survey("ldp", "oue")
    survey.access = "tokens"
    survey.save()
    token, context, page, posts, errors = invited_page(browser, live_server, survey)
    fingerprint = page.locator("#survey-key code.key-id").text_content()
    assert fingerprint == active_key(survey).key_id  # the "verify" section shows the survey key's fingerprint
    answer_daily_73_yes(page)
    shown = json.loads(page.locator("pre.payload").inner_text())
    assert set(shown) == {"report", "protocol_version", "nonce"}
    assert "credential" in page.locator("section.review").inner_text()
    assert [p.url for p in posts] == [f"{live_server.url}/api/surveys/{survey.slug}/invitations/redeem/"]  # answering
    wait_for_credential(page, survey.slug)
    kept = memo(page, survey.slug)  # the credential alone, before "Send"; never the token
    assert set(kept) == {"protocol", "saved", "report", "credential"} and kept["report"] is None
    assert token not in json.dumps(kept)
    page.get_by_role("button", name="Send the randomized report").click()  # one click
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    redeem, sent = posts
    assert redeem.url.endswith(f"/api/surveys/{survey.slug}/invitations/redeem/")
    assert set(json.loads(redeem.post_data)) == {"token", "blinded_msg", "key_id"}
    body = json.loads(sent.post_data)
    assert body["report"] == shown["report"] and set(body) == {"report", "protocol_version", "credential", "nonce"}
    assert body["nonce"] == shown["nonce"] and body["protocol_version"] == get_protocol(survey).version
    assert token not in sent.post_data and verifies(survey, body["credential"])
    assert body["credential"]["value"] not in redeem.post_data  # the server never sees the value with the token
    assert InvitationToken.objects.get(token=token).used
    assert payloads(survey) == [shown["report"]]
    assert SpentCredential.objects.filter(survey=survey).count() == 1
    assert memo(page, survey.slug) is None and errors == []
    context.close()


def test_a_failed_report_is_retried_with_the_kept_credential_without_the_token(browser, live_server):
    survey = make_habits_survey("mrr", "oue")
    survey.access = "tokens"
    survey.save()
    token, context, page, posts, errors = invited_page(browser, live_server, survey)
    answer_daily_73_yes(page)
    shown = json.loads(page.locator("pre.payload").inner_text())
    report_url = f"**/api/surveys/{survey.slug}/reports/"
    page.route(report_url, lambda route: route.abort())
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("could not be sent").wait_for()
    kept = memo(page, survey.slug)
    assert set(kept) == {"protocol", "saved", "report", "credential", "nonce"} and kept["report"] == shown["report"]
    assert token not in json.dumps(kept) and verifies(survey, kept["credential"])
    assert InvitationToken.objects.get(token=token).used and survey.report_total() == 0
    page.unroute(report_url)
    page.get_by_role("button", name="Send the randomized report").click()  # the retry, in the same page
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    redeems = [p for p in posts if p.url.endswith("/invitations/redeem/")]
    reports = [json.loads(p.post_data) for p in posts if p.url.endswith("/reports/")]
    assert len(redeems) == 1  # redeemed once: the retry did not need the token
    assert reports == [{"report": shown["report"], "protocol_version": shown["protocol_version"],
                        "credential": kept["credential"], "nonce": shown["nonce"]}] * 2
    assert payloads(survey) == [shown["report"]]
    assert memo(page, survey.slug) is None and errors == []
    context.close()


def test_a_failed_redemption_is_retried_with_the_same_blinded_message(browser, live_server):
    survey = make_habits_survey("ldp", "de")
    survey.access = "tokens"
    survey.save()
    token, context, page, posts, errors = invited_page(browser, live_server, survey)
    redeem_url = f"**/api/surveys/{survey.slug}/invitations/redeem/"
    page.route(redeem_url, lambda route: route.abort())  # the redemption at the first answer fails, silently
    answer_daily_73_yes(page)
    assert not page.locator("div.errors").inner_text()
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("could not be redeemed").wait_for()
    kept = memo(page, survey.slug)
    assert set(kept) == {"protocol", "saved", "report", "pending", "nonce"} and token not in json.dumps(kept)
    assert not InvitationToken.objects.get(token=token).used
    page.unroute(redeem_url)
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    redeems = [json.loads(p.post_data) for p in posts if p.url.endswith("/invitations/redeem/")]
    assert len(redeems) >= 3 and all(r == redeems[0] for r in redeems)  # the same blinded message every time
    assert redeems[0]["blinded_msg"] == kept["pending"]["blindedMsg"]
    assert survey.report_total() == 1 and errors == []
    context.close()


def test_a_key_that_does_not_match_its_fingerprint_is_refused(browser, live_server, monkeypatch):
    """A server handing one respondent its own key behind the common fingerprint could mark their report: the page
    hashes the key itself and, on a mismatch, uses no invitation and sends nothing (review of issue 11)."""
    import survey_app.api as api

    survey = make_habits_survey("ldp")
    survey.access = "tokens"
    survey.save()
    real = api.public_credential

    def other_key(s):
        published = real(s)
        return {**published, "spki": blind_rsa.public_key_to_spki(blind_rsa.generate_key().public_key())}

    monkeypatch.setattr(api, "public_credential", other_key)
    token, context, page, posts, errors = invited_page(browser, live_server, survey)
    page.get_by_text("does not match its published fingerprint").wait_for()
    assert posts == [] and not errors
    assert not InvitationToken.objects.get(token=token).used
    context.close()
