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
from tests.browser_support import BROWSER_TEST, Keyboard, focused

pytestmark = BROWSER_TEST


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
    # question, so that the answers differ (k arrow presses from the first choice, wrapping around). A dropdown (one
    # Tab stop) takes k + 1 ArrowDown from its empty first entry; a select-all question has one Tab stop per box
    # (its choices, "None of these", "Prefer not to say" if offered): Space ticks the first (issue 12 item 4).
    chosen, selected, ticked, boxes, start = {}, {}, {}, 0, keys.tabs
    for i, question in enumerate(questions):
        style = question.resolved_style()
        if i:
            now = keys.tab()
            assert (now["id"] if style == "dropdown" else now["group"] if style != "checkboxes"
                    else now["id"].rpartition("-")[0]) == f"q{i}", f"Tab from question {i - 1} did not reach {i}"
        k = i % len(question.labels())
        if style == "checkboxes":
            keys.press("Space")
            ticked[f"q{i}"] = ["0"]
            extra = len(question.options()) + (2 if question.prefer_not_to_say else 1) - 1
            for _ in range(extra):
                keys.tab()
            boxes += extra
        elif style == "dropdown":
            for _ in range(k + 1):
                keys.press("ArrowDown")
            selected[f"q{i}"] = str(k)
        else:
            keys.press("Space")
            for _ in range(k):
                keys.press("ArrowDown")
            chosen[f"q{i}"] = str(k)
    assert keys.tabs - start == len(questions) - 1 + boxes
    checked = page.eval_on_selector_all("input[type=radio]:checked",
                                        "rs => Object.fromEntries(rs.map((r) => [r.name, r.value]))")
    assert checked == chosen
    assert page.eval_on_selector_all("select", "ss => Object.fromEntries(ss.map((s) => [s.id, s.value]))") == selected
    assert page.eval_on_selector_all("input[type=checkbox]:checked", "bs => bs.reduce((out, b) => "
                                     "({...out, [b.dataset.group]: [...(out[b.dataset.group] || []), b.value]}), {})"
                                     ) == ticked
    assert keys.tab_to("Review what will be sent", 1) == 1  # "Back" is hidden on the first page
    keys.press("Enter")
    page.locator("section.review h2").wait_for()
    assert focused(page)["text"] == "What leaves your browser"  # the review begins at its heading
    shown = json.loads(page.locator("pre.payload").inner_text())
    keys.tab_to("Send the randomized report", 6)
    keys.press("Enter")
    page.wait_for_url(f"**/s/{slug}/thanks/")
    assert page.get_by_role("heading", level=1).inner_text() == "Thank you"
    assert keys.tabs <= len(questions) + boxes + 10  # 4 on the home page, one per question (box), a few on review
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    assert PendingReport.objects.filter(survey=survey).count() == before + 1
    assert errors == []
    context.close()
