"""The slider, the matrix and the respondent's own order of questions and choices in a real browser
(static/js/widgets.mjs; docs/question-types.md). Answered with the keyboard alone; the stored report is checked against
the answers given: with ε = 120 under SUE (split over the five inputs: ε = 24 each) a report is the true value alone
(each bit flipped with probability 1 / (e^12 + 1) ≈ 6·10⁻⁶), so a choice shown in a shuffled place still sends its own
code. The order
is never sent: the request body has the same keys as without shuffling. axe-core finds no serious or critical
violation, unanswered, marked and answered."""
import json

import numpy as np

from survey_app.models import PendingReport
from survey_app.protocol import get_protocol
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST, Keyboard
from tests.factories import DRINKS, make_widgets_survey

pytestmark = BROWSER_TEST

#: rested: Agree (3), dreams: Disagree (1), hours: 7.5, drink: tea (1); sick: yes.
X_TRUE = [3, 1, 7.5, 1]
Y_TRUE = 1


def test_slider_matrix_and_shuffle_answered_with_the_keyboard(page, live_server):
    survey = make_widgets_survey(epsilon=120.0, encoding="sue", strategy="split", shuffle_questions=True,
                                 shuffle_choices=True)
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    keys = Keyboard(page)
    # The matrix: one table, a row per question, a column per answer; each row one radio group.
    grid = page.get_by_role("table", name="How much do you agree?")
    assert grid.locator("thead th").all_inner_texts() == ["Strongly disagree", "Disagree", "Neither agree nor disagree",
                                                           "Agree", "Strongly agree"]
    rows = grid.locator("tbody th .row-text").all_inner_texts()
    assert sorted(rows) == ["I remember my dreams.", "I wake up rested."]
    assert page.get_by_role("radio", name="I wake up rested. Agree").count() == 1
    for name, code in (("rested", 3), ("dreams", 1)):
        row = grid.locator(f"tr[data-question={name}] input").first
        row.focus()
        keys.press("Space")
        for _ in range(code):
            keys.press("ArrowRight")
    assert page.locator("input[name=q0]:checked").get_attribute("value") == "3"
    assert page.locator("input[name=q1]:checked").get_attribute("value") == "1"
    page.get_by_role("button", name="Next").click()
    # The slider: unset until moved, its value shown and read out.
    slider = page.get_by_role("slider", name="How many hours do you sleep? (0 to 12)")
    assert slider.get_attribute("aria-valuetext") == "not set"
    slider.focus()
    for _ in range(3):
        keys.press("ArrowRight")  # 6 → 7.5 by steps of 0.5
    assert slider.input_value() == "7.5" and page.locator("output#q2-value").inner_text() == "7.5"
    assert slider.get_attribute("aria-valuetext") is None
    # The drink's choices in this respondent's order, "Prefer not to say" last; the label answers with its own code.
    labels = page.locator("fieldset[data-question=drink] label").all_inner_texts()
    assert sorted(labels[:-1]) == sorted(DRINKS) and labels[-1] == "Prefer not to say"
    page.get_by_label("tea").check()
    page.get_by_role("button", name="Next").click()
    page.locator("fieldset[data-question=sick]").get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    shown = json.loads(page.locator("pre.payload").inner_text())
    assert set(shown) == {"report", "protocol_version", "nonce"}  # no order, nothing more than unshuffled
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    sent = json.loads(posts[0].post_data)
    assert sent == shown and "tea" not in posts[0].post_data
    payload = PendingReport.objects.get(survey=survey).payload
    protocol = get_protocol(survey)
    parsed = protocol.parse([payload])
    X = protocol.to_model_input(np.array([X_TRUE], dtype=np.float64)).astype(np.int64)
    assert len(protocol.nb.oracles) == 5
    for j, oracle in enumerate(protocol.nb.oracles):
        support = oracle.support_matrix(parsed.per_input[j])[0]
        true = int(protocol.nb.input_values(j, X, np.array([Y_TRUE]))[0])
        assert support[true] == 1 and not np.delete(support, true).any(), f"input {j}"


def test_each_respondent_draws_an_order(browser, live_server):
    """With 5 drinks (120 orders) and 2 matrix rows, six fresh tabs all showing one order has probability
    (1/240)^5: the order is drawn per respondent. A reload keeps the tab's order once an answer is given."""
    survey = make_widgets_survey(shuffle_questions=True, shuffle_choices=True)
    context = browser.new_context()
    orders = set()
    for _ in range(6):
        tab = context.new_page()
        tab.goto(f"{live_server.url}/s/{survey.slug}/")
        tab.locator("#privacy-figure").wait_for()
        orders.add((tuple(tab.locator("tbody th .row-text").all_inner_texts()),
                    tuple(tab.locator("fieldset[data-question=drink] label").all_inner_texts())))
        tab.close()
    assert len(orders) > 1
    tab = context.new_page()
    tab.goto(f"{live_server.url}/s/{survey.slug}/")
    tab.locator("#privacy-figure").wait_for()
    before = tab.locator("fieldset[data-question=drink] label").all_inner_texts()
    rows = tab.locator("tbody th .row-text").all_inner_texts()
    tab.locator("#q0-2").check()
    tab.reload()
    tab.locator("#privacy-figure").wait_for()
    assert tab.locator("fieldset[data-question=drink] label").all_inner_texts() == before
    assert tab.locator("tbody th .row-text").all_inner_texts() == rows
    context.close()


def test_the_slider_and_the_matrix_are_accessible_and_marked_when_unanswered(page, live_server):
    survey = make_widgets_survey()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    assert_accessible(page, "the matrix")
    page.get_by_role("button", name="Next").click()  # nothing answered
    for row in ("q0", "q1"):
        assert page.locator(f"input[name={row}]").first.get_attribute("aria-invalid") == "true"
        assert page.locator(f"#{row}-error").is_visible()
    assert_accessible(page, "the matrix marked unanswered")
    page.locator("#q0-4").check()
    assert page.locator("#q0-error").count() == 0  # answering clears the mark
    page.locator("#q1-0").check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("coffee").check()
    page.get_by_role("button", name="Next").click()  # the slider not moved
    slider = page.locator("#q2")
    assert slider.get_attribute("aria-invalid") == "true"
    assert "move the slider" in page.locator("#q2-error").inner_text()
    assert_accessible(page, "the slider marked unanswered")
    page.set_viewport_size({"width": 360, "height": 740})  # a phone
    page.get_by_role("button", name="Back").click()
    assert_accessible(page, "the matrix on a phone")
    grid = page.locator("table.matrix-grid")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the grid scrolls, not the page
    assert grid.is_visible()
