"""The question types in a real browser (issue 12 item 4; Debian's Chromium driven by Playwright): a dropdown (13
countries), an ordered scale (5 points and "Prefer not to say") and "select all that apply" (3 sports, "None of
these", "Prefer not to say") answered with the keyboard alone, under MRR and LDP (OUE, SUE, DE; one report and
every answer reported). The stored report is checked against the answers given: with θ = 1 an MRR record is the true
answers, exactly what the engine's own encoder makes of them; with a large ε an LDP report supports the true value of
each input it carries and no other (OUE: a 1 only where the true value is, since a false 1 has probability
1 / (e^ε + 1) ≈ 2·10⁻⁹ per bit; SUE at ε = 40, each bit flipped with probability 1 / (e^(ε/2) + 1) ≈ 2·10⁻⁹, and DE
at ε = 20 per input: the true value alone, wrong with probability below 10⁻⁷). axe-core finds no serious or critical
violation on the page, unanswered or answered."""
import json

import numpy as np
import pytest

from survey_app.models import PendingReport
from survey_app.protocol import get_protocol
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST, Keyboard, focused
from tests.factories import make_types_survey

pytestmark = BROWSER_TEST

#: The answers given: Malta (choice 11), "Agree" (3), running and cycling (no/yes per sport: 1, 0, 1), ill: yes.
X_TRUE = [11, 3, 1, 0, 1]
Y_TRUE = 1


def answer_with_the_keyboard(page, prefer_not: bool = True):
    """Every question with the keyboard alone: letters pick in the dropdown, one Tab stop and the arrow keys in the
    scale, Space ticks a box, one Tab stop per box (the select-all question's "Prefer not to say" only when it offers
    one: not under MRR). Ends on the review step."""
    keys = Keyboard(page)
    assert focused(page)["tag"] == "select"  # the page starts at its first question: the dropdown
    keys.press("m")  # the first country starting with M
    assert page.locator("#q0").input_value() == "11"
    assert keys.tab()["group"] == "q1"  # the scale: one Tab stop
    keys.press("Space")
    for _ in range(3):
        keys.press("ArrowRight")  # left to right: Strongly disagree → Agree
    assert page.locator("input[name=q1]:checked").get_attribute("value") == "3"
    assert keys.tab()["text"] == ""  # a check box (its label is beside it): running
    assert page.evaluate("document.activeElement.id") == "q2-0"
    keys.press("Space")
    keys.tab()  # swimming
    keys.tab()  # cycling
    keys.press("Space")
    keys.tab()  # None of these
    if prefer_not:
        keys.tab()  # Prefer not to say
    assert keys.tab()["group"] == "q3"  # the class question's radio group
    keys.press("Space")
    keys.press("ArrowRight")  # yes
    assert page.eval_on_selector_all("input[data-group=q2]:checked", "bs => bs.map((b) => b.value)") == ["0", "2"]
    keys.tab_to("Review what will be sent", 2)
    keys.press("Enter")
    page.locator("section.review h2").wait_for()


def model_input(protocol):
    return protocol.to_model_input(np.array([X_TRUE], dtype=np.float64)).astype(np.int64), np.array([Y_TRUE])


def check_mrr(protocol, payload):
    # θ = 1: the record sent is the true answers, whatever the random stand-ins were.
    assert payload == protocol.encode(np.array([X_TRUE], dtype=np.float64), np.array([Y_TRUE]),
                                      np.random.default_rng(0))[0]


def check_ldp(protocol, payload, encoding):
    parsed = protocol.parse([payload])
    X, y = model_input(protocol)
    inputs = [int(parsed.assigned[0])] if parsed.assigned is not None else range(len(protocol.nb.oracles))
    for j in inputs:
        oracle = protocol.nb.oracles[j]
        support = oracle.support_matrix(parsed.per_input[j])[0]
        true = int(protocol.nb.input_values(j, X, y)[0])
        others = np.delete(support, true)
        if encoding == "oue":
            assert not others.any(), f"input {j}: a false 1"
        else:  # SUE, DE: the true value alone
            assert support[true] == 1 and not others.any(), f"input {j}: not the true value alone"


@pytest.mark.parametrize("mode, encoding, strategy, epsilon", [
    ("mrr", "oue", "one-report", 1.0),
    ("ldp", "oue", "split", 120.0),
    ("ldp", "sue", "one-report", 40.0),
    ("ldp", "de", "split", 120.0),
])
def test_the_types_answered_with_the_keyboard_send_the_answers_features(page, live_server, mode, encoding, strategy,
                                                                        epsilon):
    survey = make_types_survey(mode, encoding, theta=1.0, epsilon=epsilon, strategy=strategy)
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    answer_with_the_keyboard(page, prefer_not=mode != "mrr")
    # The review's plain words name the questions (and a select-all choice as "question — choice"), never a
    # feature's machine name.
    words = page.locator("section.review").inner_text().replace(page.locator("pre.payload").inner_text(), "")
    assert "sports__" not in words
    shown = json.loads(page.locator("pre.payload").inner_text())
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    payload = PendingReport.objects.get(survey=survey).payload
    protocol = get_protocol(survey)
    protocol.parse_one(payload)
    if mode == "mrr":
        check_mrr(protocol, payload)
    else:
        check_ldp(protocol, payload, encoding)


def test_the_types_are_accessible_and_marked_when_unanswered(page, live_server):
    survey = make_types_survey("ldp", "oue")
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    # The dropdown is labelled and starts empty; the scale's ends are visible, left to right.
    assert page.get_by_label("Where do you live?").input_value() == ""
    scale = page.locator("fieldset.scale .scale-options label")
    assert scale.first.is_visible() and scale.last.is_visible()
    assert scale.first.bounding_box()["x"] < scale.last.bounding_box()["x"]
    assert scale.first.inner_text() == "Strongly disagree" and scale.last.inner_text() == "Strongly agree"
    assert_accessible(page, "the question types")
    page.get_by_role("button", name="Review what will be sent").click()  # nothing answered
    assert page.locator("#q0").get_attribute("aria-invalid") == "true"
    for name in ("agree", "sports"):
        assert page.locator(f"fieldset[data-question={name}]").get_attribute("aria-invalid") == "true"
    assert_accessible(page, "the question types marked unanswered")
    # "None of these" is an answer, and excludes the choices; a choice excludes it again.
    sports = page.locator("fieldset[data-question=sports]")
    sports.get_by_label("running").check()
    sports.get_by_label("None of these").check()
    assert not sports.get_by_label("running").is_checked()
    sports.get_by_label("swimming").check()
    assert not sports.get_by_label("None of these").is_checked()
    sports.get_by_label("Prefer not to say").check()
    assert not sports.get_by_label("swimming").is_checked()
    page.get_by_label("Where do you live?").select_option("Malta")
    page.locator("fieldset.scale").get_by_label("Prefer not to say").check()
    page.locator("fieldset[data-question=sick]").get_by_label("no").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.locator("section.review h2").wait_for()
    assert_accessible(page, "the question types' review")
