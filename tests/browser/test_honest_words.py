"""What the respondent page says, in a real browser (issue 11 item 6): the texts of the mechanism in use on the review
page, no stray "null" above the JSON (issue 12), and the memo — the randomized report kept in localStorage until it
is received — cleared after a successful send, deleted (never resent) when the protocol changed, and resent unchanged
after a network failure.
"""
import base64
import datetime
import json

import pytest

from survey_app.models import Question, Survey
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
    assert "with probability 60\xa0% the record it sends holds your true answers" in explain
    assert "nobody — not even the survey's organisers — can tell whether the record sent is your true one" in explain
    assert "only that report, never your true answers" in explain  # the memo's purpose and limits
    assert "holds your true answers with probability 60\xa0%" in page.locator("#privacy-figure").inner_text()
    answer_daily_73_yes(page)
    review = page.locator("section.review").inner_text()
    assert "With probability 60\xa0% these 3 codes are your true answers; otherwise they are stand-ins" in review
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
    assert kept["report"] == shown["report"] and set(kept) == {"protocol", "saved", "report", "nonce"}
    assert kept["nonce"] == shown["nonce"]
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


# ---- The review step's plain summary (issue 12 item 6): the mechanism's summarize(), true of the report shown ----

CLASS = "“Have you been ill this year?”"
PARTS = [f"your answer to {CLASS}",
         f"your answer to “Do you smoke?” together with your answer to {CLASS}",
         f"your answer to “Your age” together with your answer to {CLASS}"]
SMOKER = ("never", "sometimes", "daily")
ILL = ("no", "yes")


def summary_and_report(page) -> tuple[str, dict]:
    """The "In short" summary (checked to come before the exact report) and the exact report shown."""
    summary = page.locator("section.review p.review-summary")
    assert summary.count() == 1
    assert page.evaluate("""() => {
        const s = document.querySelector("section.review p.review-summary");
        const pre = document.querySelector("pre.payload");
        return Boolean(s.compareDocumentPosition(pre) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    return summary.inner_text(), json.loads(page.locator("pre.payload").inner_text())["report"]


def value_text(j: int, v: int) -> str:
    """Value v of part j of the habits survey (k = 2 classes), in the words of words.mjs answerText."""
    ill = f"“{ILL[v % 2]}” for {CLASS}"
    if j == 0:
        return f"“{ILL[v]}” for {CLASS}"
    if j == 1:
        return f"“{SMOKER[v // 2]}” for “Do you smoke?” with {ill}"
    low = 18 + 20 * (v // 2)
    return f"a number from {low} to {low + 20} for “Your age” with {ill}"


def marked(report: str, domain: int) -> list[int]:
    """The values whose bit is set in a packed unary or subset report (bits.mjs, little-endian bit order)."""
    data = base64.b64decode(report)
    return [v for v in range(domain) if (data[v >> 3] >> (v & 7)) & 1]


@pytest.mark.parametrize("encoding", ["de", "sue", "oue", "olh", "ss", "she", "the"])
def test_ldp_one_report_summary_names_the_part_and_reads_the_report(browser, live_server, encoding):
    survey = make_survey("ldp", encoding)  # ε = 1, one-report, parts of 2, 6 and 8 values
    context, page, posts, errors = open_survey(browser, live_server, survey)
    answer_daily_73_yes(page)
    summary, report = summary_and_report(page)
    j, sent = report["input"], report["report"]
    domain = (2, 6, 8)[j]
    assert summary.startswith(f"In short: Of your 3 answers, one part — chosen at random: {PARTS[j]} — is sent in "
                              "disguise, as "), summary
    assert summary.endswith("None of your other answers is sent.")
    if encoding == "de":
        assert f"a single one of the {domain} possible values (here {value_text(j, sent)}), which is your true one " \
               "with probability" in summary
    elif encoding in ("sue", "oue"):
        n = len(marked(sent, domain))
        assert f"a row of {domain} 0s and 1s, one per possible value (this one has " \
               f"{'no 1s' if n == 0 else 'a single 1' if n == 1 else f'{n} 1s'})" in summary
        assert "so it may or may not point at your answer" in summary
    elif encoding == "olh":
        assert f"and one bucket (here number {sent[2]}), which is the bucket of your value with probability" in summary
    elif encoding == "ss":
        listed = "; ".join(value_text(j, v) for v in marked(sent, domain))
        assert f"possible values (here {listed})" in summary, summary
    else:
        assert f"as a list of {domain} numbers, one per possible value — 1 for your value and 0 for the others — " \
               "each with random noise added" in summary
    for phrase in FORBIDDEN:
        assert phrase not in summary
    assert errors == []
    context.close()


def test_ldp_split_summary_says_every_answer_is_sent_in_parts(browser, live_server):
    survey = make_survey("ldp", "oue")
    survey.strategy = "split"
    survey.save()
    context, page, posts, errors = open_survey(browser, live_server, survey)
    answer_daily_73_yes(page)
    summary, report = summary_and_report(page)
    assert len(report["reports"]) == 3
    assert summary == (f"In short: All of your 3 answers are sent, in 3 parts, each disguised separately: your answer "
                       f"to {CLASS} alone, and 2 parts pairing your answer to {CLASS} with your answer to one other "
                       "question. Each part may reflect your true answers, but nobody can be sure that it does; the "
                       "list below says how each is disguised.")
    assert errors == []
    context.close()


def test_mrr_summary_says_the_whole_record_is_true_with_probability_theta(browser, live_server):
    survey = make_survey("mrr")  # θ = 0.6, one group, simulated stand-ins
    context, page, posts, errors = open_survey(browser, live_server, survey)
    answer_daily_73_yes(page)
    summary, report = summary_and_report(page)
    assert len(report["answers"]) == 3
    assert summary == ("In short: Your whole record of 3 answers is sent: with probability 60\xa0% it is your true "
                       "answers, otherwise answers drawn at random; nobody, the survey included, can tell which.")
    assert errors == []
    context.close()


def test_ldp_validation_summary_says_only_whether_the_model_was_right_is_sent(browser, live_server):
    """All-zero random bytes: u = 0 falls in the validation share, and binary RR keeps the true right/wrong bit."""
    from aggregator import services
    from tests.factories import add_reports, after_midnight

    survey = make_survey("ldp", "oue")
    survey.validation_share = 0.5
    survey.save()
    add_reports(survey, 2000)
    version = services.retrain(survey, now=after_midnight())
    type(version).objects.filter(pk=version.pk).update(created_at=version.created_at - datetime.timedelta(days=1))
    context = browser.new_context()
    context.add_init_script('Object.defineProperty(crypto, "getRandomValues", '
                            "{value: (buffer) => { buffer.fill(0); return buffer; }});")
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_daily_73_yes(page)
    summary, report = summary_and_report(page)
    mark = report["validation"]["report"]
    assert summary.startswith(f"In short: None of your 3 answers is sent. Only one mark is: whether the published "
                              f"model (version 1), run in your browser on your answers, guessed your answer to "
                              f"{CLASS} right. This report says {'1 (“right”)' if mark else '0 (“wrong”)'}, which is "
                              "the truth with probability"), summary
    context.close()


@pytest.mark.parametrize("approach", [1, 2, 3])
def test_gaussian_summary_names_what_was_chosen_and_the_approach(browser, live_server, approach):
    survey = Survey.objects.create(title="Body", slug=f"body-{approach}", mode="ldp", epsilon=2.0, encoding="oue",
                                   status="open", numeric_handling="gaussian", gaussian_approach=approach,
                                   validation_share=0.0)
    Question.objects.create(survey=survey, name="age", text="Your age", kind="numeric", low=18, high=98, position=0)
    Question.objects.create(survey=survey, name="weight", text="Your weight in kg", kind="numeric", low=40, high=160,
                            position=1)
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=2)
    context, page, posts, errors = open_survey(browser, live_server, survey)
    page.get_by_label("Your age (18 to 98)").fill("61")
    page.get_by_label("Your weight in kg (40 to 160)").fill("83.5")
    page.get_by_label("no").check()
    page.get_by_role("button", name="Review what will be sent").click()
    summary, report = summary_and_report(page)
    group = report["group"]
    assert summary.startswith("In short: Of your 3 answers, only ")
    if group == 0:
        assert f"only your answer to {CLASS} — chosen at random — is sent, in disguise" in summary
        assert summary.endswith("None of your numbers is sent.")
    else:
        squared = ", then squared," if group == 2 else ""
        if approach == 1:
            assert f"only your numbers{' squared' if group == 2 else ''} — chosen at random — are sent: put on a " \
                   f"scale from −1 to 1{squared} and placed in a table with one column per answer to {CLASS}" in summary
        elif approach == 3:
            which = ("“Your age”", "“Your weight in kg”")[report["report"][0]]
            assert f"only one of your numbers, chosen at random (here your answer to {which}), is sent: put on a " \
                   f"scale from −1 to 1{squared} and placed in the column of your answer to {CLASS}" in summary
        else:
            j, sign = report["report"]
            which = ("“Your age”", "“Your weight in kg”")[j // 2]
            assert f"only a single {'+1' if sign > 0 else '−1'} is sent" in summary
            assert f"the entry that holds your answer to {which} (put on a scale from −1 to 1" in summary
            assert f"if your answer to {CLASS} is “{ILL[j % 2]}”, 0 otherwise" in summary
        assert summary.endswith("Nothing else is sent.")
    assert errors == []
    context.close()
