"""A demo survey completed with the keyboard alone (issue 12 item 7), in a real browser (Debian's Chromium driven by
Playwright): from the home page, Tab reaches the demo survey's link and Enter opens it; in the survey, one Tab stop per
question (its radio group), Space and the arrow keys choose, Tab reaches "Review what will be sent" and Enter goes to
the review, and Tab then Enter sends; the thank-you page follows. The mouse is never used, the number of Tab presses
is bounded, and every element Tab reaches shows that it has the focus."""
import io
import json

import pytest
from django.core.management import call_command

from survey_app.models import PendingReport, Survey
from tests.browser_support import BROWSER_TEST

pytestmark = BROWSER_TEST


def focused(page) -> dict:
    """What has the focus: its tag, accessible text, radio group and whether a focus outline is drawn."""
    return page.evaluate("""() => {
        const node = document.activeElement;
        const style = getComputedStyle(node);
        return {tag: node.tagName.toLowerCase(), text: (node.textContent || "").trim(), group: node.name || "",
                outlined: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0};
    }""")


class Keyboard:
    """The keyboard, counting the Tab presses."""

    def __init__(self, page):
        self.page, self.tabs = page, 0

    def press(self, key: str):
        self.page.keyboard.press(key)

    def tab(self) -> dict:
        self.tabs += 1
        self.page.keyboard.press("Tab")
        now = focused(self.page)
        assert now["outlined"], f"no visible focus on {now}"
        return now

    def tab_to(self, text: str, limit: int) -> int:
        """Tab until the focused element's text is ``text``; how many presses (at most ``limit``)."""
        for presses in range(1, limit + 1):
            if self.tab()["text"] == text:
                return presses
        raise AssertionError(f"{text!r} not reached in {limit} Tab presses")


@pytest.mark.parametrize("slug", ["demo-ldp", "demo-mrr"])
def test_a_demo_survey_completed_from_the_home_page_with_the_keyboard_alone(browser, live_server, slug):
    call_command("demo", "--respondents", "200", stdout=io.StringIO())
    survey = Survey.objects.get(slug=slug)
    questions = list(survey.questions.order_by("position"))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors, posts = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    before = PendingReport.objects.filter(survey=survey).count()
    keys = Keyboard(page)
    page.goto(f"{live_server.url}/")
    assert keys.tab_to(survey.title, 4) == 3 + ["demo-ldp", "demo-mrr"].index(slug)  # after the skip link and brand
    keys.press("Enter")
    page.wait_for_url(f"**/s/{slug}/")
    page.locator("#privacy-figure").wait_for()
    assert focused(page)["group"] == "q0"  # the page puts the focus on the first question

    # One Tab per question: Space picks the first choice, then ArrowDown moves the choice down one, question by
    # question, so that the answers differ (k arrow presses from the first choice, wrapping around).
    chosen, start = {}, keys.tabs
    for i, question in enumerate(questions):
        if i:
            assert keys.tab()["group"] == f"q{i}", f"Tab from question {i - 1} did not reach question {i}"
        keys.press("Space")
        for _ in range(i % len(question.labels())):
            keys.press("ArrowDown")
        chosen[f"q{i}"] = str(i % len(question.labels()))
    assert keys.tabs - start == len(questions) - 1
    checked = page.eval_on_selector_all("input[type=radio]:checked",
                                        "rs => Object.fromEntries(rs.map((r) => [r.name, r.value]))")
    assert checked == chosen
    assert keys.tab_to("Review what will be sent", 1) == 1  # "Back" is hidden on the first page
    keys.press("Enter")
    page.locator("section.review h2").wait_for()
    assert focused(page)["text"] == "What leaves your browser"  # the review begins at its heading
    shown = json.loads(page.locator("pre.payload").inner_text())
    keys.tab_to("Send the randomized report", 6)
    keys.press("Enter")
    page.wait_for_url(f"**/s/{slug}/thanks/")
    assert page.get_by_role("heading", level=1).inner_text() == "Thank you"
    assert keys.tabs <= len(questions) + 10  # 4 on the home page, one per question, a few on the review step
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    assert PendingReport.objects.filter(survey=survey).count() == before + 1
    assert errors == []
    context.close()
