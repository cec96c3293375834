"""A respondent in a real browser (Debian's Chromium driven by Playwright) against the live server.

Checks: the page randomizes in the browser and POSTs one report that holds no true answer (not in the body, the URL,
cookies or storage); the database then holds exactly one valid report; with JavaScript off nothing is sent.
"""
import datetime
import json

import pytest

from survey_app.models import PendingReport, Question, Survey
from survey_app.protocol import get_protocol
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page, send_as_shown
from tests.factories import after_midnight, make_habits_survey

pytestmark = BROWSER_TEST


@pytest.mark.parametrize("mode, encoding", [("ldp", "oue"), ("ldp", "olh"), ("ldp", "de"), ("mrr", "oue")])
def test_fill_survey_sends_only_a_randomized_report(browser, live_server, mode, encoding):
    survey = make_habits_survey(mode, encoding)
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    body = send_as_shown(page, survey.slug, posts, errors)
    text = json.dumps(body) + posts[0].url
    for secret in ("daily", "73.25", "yes"):
        assert secret not in text
    assert context.cookies() == []
    storage = page.evaluate("JSON.stringify(Object.assign({}, localStorage))")
    assert "73.25" not in storage and "daily" not in storage
    reports = list(PendingReport.objects.filter(survey=survey))  # the inbox, until the next fold
    assert len(reports) == 1 and reports[0].payload == body["report"]
    get_protocol(survey).parse_one(reports[0].payload)  # valid for the engine
    context.close()


def test_without_javascript_nothing_is_sent(browser, live_server):
    survey = make_habits_survey("ldp")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert "needs JavaScript" in page.content()
    assert page.locator("input").count() == 0
    # The alert says why, and no "Loading the survey…" box waits beside it for ever.
    assert page.get_by_role("alert").is_visible() and page.locator("#no-js-message").is_hidden()
    assert posts == [] and not survey.has_reports()
    context.close()


def test_mrr_real_personal_question_is_asked_and_only_randomized_answers_sent(browser, live_server):
    survey = make_habits_survey("mrr")
    smoker = survey.questions.get(name="smoker")
    smoker.personal_mode = "real"
    smoker.personal_text = "Which of these did your grandmother do?"
    smoker.save()
    context = browser.new_context()
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.get_by_role("group", name="Do you smoke?").get_by_label("daily").check()
    page.get_by_role("button", name="Next").click()
    assert "grandmother" in page.locator(".errors").inner_text()  # the unrelated question must be answered too
    page.get_by_role("group", name="Which of these did your grandmother do?").get_by_label("never").check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your age (18 to 98)").fill("30")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    answers = json.loads(posts[0].post_data)["report"]["answers"]
    assert answers[0] in (0, 2)  # the smoker answer sent is the true one (daily = 2) or the grandmother's (never = 0)
    assert PendingReport.objects.filter(survey=survey).count() == 1
    context.close()


def test_gaussian_survey_with_invitation_token(browser, live_server):
    """A numeric-only LDP survey with Gaussian NB (Approach 3) reached through a one-use invitation link."""
    from survey_app.models import InvitationToken
    from survey_app.services import generate_tokens

    survey = Survey.objects.create(title="Body", slug="body", mode="ldp", epsilon=2.0, encoding="oue", status="open",
                                   numeric_handling="gaussian", gaussian_approach=3, access="tokens",
                                   validation_share=0.0)
    Question.objects.create(survey=survey, name="age", text="Your age", kind="numeric", low=18, high=98, position=0)
    Question.objects.create(survey=survey, name="weight", text="Your weight in kg", kind="numeric", low=40, high=160,
                            position=1)
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=2)
    token = generate_tokens(survey, 1)[0].token
    context = browser.new_context()
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/body/t/{token}/")
    page.get_by_label("Your age (18 to 98)").fill("61")
    page.get_by_label("Your weight in kg (40 to 160)").fill("83.5")
    page.get_by_label("no").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url("**/s/body/thanks/")
    redeem, sent = posts  # the invitation redeemed for a blind signature, then the report with the credential
    assert redeem.url.endswith("/api/surveys/body/invitations/redeem/")
    assert json.loads(redeem.post_data)["token"] == token
    body = json.loads(sent.post_data)
    assert set(body) == {"report", "protocol_version", "credential", "nonce"} and body["report"]["group"] in (0, 1, 2)
    assert token not in sent.post_data  # the report never carries the token
    assert "83.5" not in sent.post_data  # numbers sent are randomized, normalised values on the 2⁻¹⁰ grid
    assert InvitationToken.objects.get(token=token).used
    assert survey.report_total() == 1
    page.goto(f"{live_server.url}/s/body/t/{token}/")
    assert "already been used" in page.content()
    context.close()


ZERO_RANDOMNESS = ('Object.defineProperty(crypto, "getRandomValues", '
                   "{value: (buffer) => { buffer.fill(0); return buffer; }});")


def test_validation_respondent_runs_the_published_model_and_sends_only_whether_it_was_right(browser, live_server):
    """With all-zero random bytes the first draw u = 0 falls in the validation share and binary RR keeps the true bit,
    so the report must be exactly the Python model's verdict on these answers (the mirror, end to end)."""
    import numpy as np

    from aggregator import services
    from aggregator.privacy.naive_bayes.model import NaiveBayesModel
    from tests.factories import add_reports

    survey = make_habits_survey("ldp", "oue")
    survey.validation_share = 0.5
    survey.save()
    add_reports(survey, 2000)
    version = services.retrain(survey, now=after_midnight())
    # Validation respondents evaluate the newest version published before today (UTC): this one, a day older.
    type(version).objects.filter(pk=version.pk).update(created_at=version.created_at - datetime.timedelta(days=1))
    model = NaiveBayesModel.from_dict(version.model)
    right = int(model.predict(get_protocol(survey).to_model_input(np.array([[2, 73.25]])))[0] == 1)
    context = browser.new_context()
    context.add_init_script(ZERO_RANDOMNESS)
    page = context.new_page()
    gets, posts = [], []
    page.on("request", lambda r: (posts if r.method == "POST" else gets).append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    assert "check the current model" in page.locator("section.review").inner_text()
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert any(r.url.endswith(f"/api/surveys/{survey.slug}/model/?for=validation") for r in gets)
    assert json.loads(posts[0].post_data)["report"] == {"validation": {"version": 1, "report": right}}
    services.fold_new_reports(survey)
    services.publish_model(survey, now=after_midnight(2))  # the validation report's day has ended
    assert services.accuracy_by_version(survey)[1]["reports"] == 1
    context.close()


def _validation_survey_with_version_1_from_two_days_ago():
    """An LDP survey whose validation share is 0.5 and whose version 1 was published two days ago (UTC)."""
    from aggregator import services
    from aggregator.models import ModelVersion
    from tests.factories import add_reports

    survey = make_habits_survey("ldp", "oue")
    survey.validation_share = 0.5
    survey.save()
    add_reports(survey, 2000)
    services.retrain(survey, now=after_midnight())
    ModelVersion.objects.filter(survey=survey).update(created_at=datetime.datetime.now(datetime.UTC)
                                                      - datetime.timedelta(days=2))
    return survey


def _validating_page(browser):
    """A page whose random bytes are all zero (so it validates: the first draw falls in the share) and the POSTs it
    makes."""
    context = browser.new_context()
    context.add_init_script(ZERO_RANDOMNESS)
    page = context.new_page()
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    return context, page, posts


def test_a_validation_page_loaded_before_midnight_prepares_its_report_again(browser, live_server):
    """The page fetched version 1 to evaluate; before it sends, a new UTC day makes version 2 the one evaluated. On
    "Send" the page checks the version first: nothing leaves; it prepares the report again from the answers still in
    it, against version 2, says so, and the next "Send" is accepted — one report in all."""
    from aggregator import services
    from aggregator.models import ModelVersion
    from tests.factories import add_reports

    survey = _validation_survey_with_version_1_from_two_days_ago()
    context, page, posts = _validating_page(browser)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    assert json.loads(page.locator("pre.payload").inner_text())["report"]["validation"]["version"] == 1
    add_reports(survey, 500, seed=1)
    services.retrain(survey, now=after_midnight(2))  # version 2 …
    ModelVersion.objects.filter(survey=survey, version=2).update(  # … published yesterday: evaluated today
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1))
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("A new day began (UTC)").wait_for()
    assert posts == [] and not PendingReport.objects.filter(survey=survey).exists()  # nothing left the browser
    assert json.loads(page.locator("pre.payload").inner_text())["report"]["validation"]["version"] == 2
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert [json.loads(p.post_data)["report"]["validation"]["version"] for p in posts] == [2]
    assert PendingReport.objects.get(survey=survey).payload["validation"]["version"] == 2
    context.close()


def test_a_validation_report_refused_as_stale_is_not_randomized_again(browser, live_server):
    """Midnight passes between the page's check and the server's: the server answers 409 stale_model_version. It
    saw that report, so the page sends no second one (randomized afresh, it would spend the respondent's privacy
    twice) and says so."""

    survey = _validation_survey_with_version_1_from_two_days_ago()
    context, page, posts = _validating_page(browser)
    page.route(f"**/api/surveys/{survey.slug}/reports/", lambda route: route.fulfill(
        status=409, content_type="application/json",
        body=json.dumps({"detail": "stale", "code": "stale_model_version"})))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    page.get_by_role("button", name="Send the randomized report").click()
    page.get_by_text("no second report is sent").wait_for()
    assert len(posts) == 1
    assert page.get_by_role("button", name="Send the randomized report").is_hidden()
    context.close()


def test_a_new_ldp_survey_with_a_validation_share_opens_without_an_error(browser, live_server):
    """Before any model, the validation model's request answers 204 (nothing to evaluate): no failed request and no
    console error; the respondent trains the model as usual."""
    survey = make_habits_survey("ldp", "oue")
    survey.validation_share = 0.5
    survey.save()
    context = browser.new_context()
    page = context.new_page()
    failed, console_errors = [], []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    assert "check the current model" not in page.locator("section.review").inner_text()
    assert failed == [] and console_errors == []
    context.close()
