"""Skip logic and "Prefer not to say" in a real browser (Debian's Chromium driven by Playwright). The question "How many
cigarettes a day?" is shown only to those who smoke sometimes or daily: the page hides it for "never", says that a
hidden question is answered "Not asked" and randomized like any other answer, and sends exactly that — also when the
respondent had answered it before changing the earlier answer (that answer never leaves). The stored report is
checked against the record the engine itself sends: with θ = 1 an MRR report is the record as it is; with DE at
ε = 20 per input every LDP input supports its true value alone (a wrong one has probability below 10⁻⁷). axe-core
finds no serious or critical violation with the question hidden or shown."""
import numpy as np
import pytest

from survey_app.models import PendingReport, Survey
from survey_app.protocol import get_protocol
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST, open_page, send_as_shown
from tests.factories import make_skip_survey

pytestmark = BROWSER_TEST

NOT_ASKED, PREFER_NOT = 4, 3  # cigarettes' codes: three choices, "Prefer not to say", "Not asked"


def skip_survey(mode: str) -> Survey:
    survey = make_skip_survey(mode=mode, encoding="de")
    # θ = 1 (MRR): the record sent as it is; ε = 20 per input (LDP, every input reported): the true values alone.
    Survey.objects.filter(pk=survey.pk).update(theta=1.0, epsilon=60.0, strategy="split")
    return Survey.objects.get(pk=survey.pk)


def check_sent(survey: Survey, record: list[int], sick: int) -> None:
    payload = PendingReport.objects.get(survey=survey).payload
    protocol = get_protocol(survey)
    protocol.parse_one(payload)
    if survey.mode == "mrr":
        assert payload == protocol.encode(np.array([record], dtype=np.float64), np.array([sick]),
                                          np.random.default_rng(0))[0]
        return
    parsed = protocol.parse([payload])
    X, y = np.array([record], dtype=np.int64), np.array([sick])
    for j, oracle in enumerate(protocol.nb.oracles):
        support = oracle.support_matrix(parsed.per_input[j])[0]
        true = int(protocol.nb.input_values(j, X, y)[0])
        assert support[true] == 1 and support.sum() == 1, f"input {j}: not the true value alone"


@pytest.mark.parametrize("mode", ["mrr", "ldp"])
def test_a_hidden_question_sends_not_asked_even_after_it_was_answered(browser, live_server, mode):
    survey = skip_survey(mode)
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    cigarettes = page.locator("fieldset[data-question=cigarettes]")
    assert cigarettes.is_hidden()  # no answer yet: not shown
    assert "answered “Not asked”" in page.locator("#survey-app form").inner_text()
    assert "“Prefer not to say” is one more answer" in page.locator("#survey-app form").inner_text()
    page.get_by_label("daily").check()
    assert cigarettes.is_visible()
    cigarettes.get_by_label("6 to 20").check()
    assert_accessible(page, "skip logic: the question shown")
    page.get_by_label("never").check()  # changed: the question hides, its answer stays in the field only
    assert cigarettes.is_hidden()
    assert_accessible(page, "skip logic: the question hidden")
    page.locator("fieldset[data-question=sick]").get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.locator("section.review h2").wait_for()
    send_as_shown(page, survey.slug, posts, errors)
    check_sent(survey, [0, NOT_ASKED], 1)
    context.close()


@pytest.mark.parametrize("mode", ["mrr", "ldp"])
def test_prefer_not_to_say_is_sent_as_its_own_answer(browser, live_server, mode):
    survey = skip_survey(mode)
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    page.get_by_label("sometimes").check()
    page.locator("fieldset[data-question=cigarettes]").get_by_label("Prefer not to say").check()
    page.locator("fieldset[data-question=sick]").get_by_label("no").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.locator("section.review h2").wait_for()
    send_as_shown(page, survey.slug, posts, errors)
    check_sent(survey, [1, PREFER_NOT], 0)
    context.close()


def test_the_page_says_it_in_german(browser, live_server):
    survey = skip_survey("ldp")
    context = browser.new_context(locale="de-DE", extra_http_headers={"Accept-Language": "de"})
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    text = page.locator("#survey-app form").inner_text()
    assert "„Nicht gefragt“" in text and "„Keine Angabe“ ist eine weitere Antwort" in text
    context.close()
