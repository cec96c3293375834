"""Defects a new user meets first (issue 12 item 1), in a real browser (Debian's Chromium driven by Playwright):
unanswered questions shown where the respondent is (a 390 × 844 phone), the progress of a one-section survey, a survey
completed with the keyboard alone (one Tab stop per radio group), the favicon, and the admin's survey page (no
horizontal scrolling at 1,280 px, "ε" not turned into a capital "Ε")."""
import json
import re

from django.contrib.auth.models import User

from survey_app.models import Choice, Question, Survey
from tests.browser_support import BROWSER_TEST
from tests.factories import make_habits_survey, make_survey

pytestmark = BROWSER_TEST

PHONE = {"width": 390, "height": 844}


def one_section_survey(n_questions: int) -> Survey:
    """``n_questions`` yes/no-or-maybe questions, then the class, all in one section (one page of questions)."""
    survey = Survey.objects.create(title="Long", slug="long", mode="ldp", epsilon=1.0, encoding="oue", status="open",
                                   validation_share=0.0)
    for i in range(n_questions):
        question = Question.objects.create(survey=survey, name=f"q{i}", text=f"Question number {i + 1}?",
                                           kind="categorical", position=i)
        for j, label in enumerate(("yes", "no", "maybe")):
            Choice.objects.create(question=question, label=label, position=j)
    Question.objects.create(survey=survey, name="sick", text="Have you been ill this year?", kind="binary",
                            is_class=True, position=n_questions)
    return survey


def open_page(browser, live_server, survey, viewport=None):
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator("#privacy-figure").wait_for()
    return context, page, errors


def in_view(page, selector: str) -> bool:
    return page.eval_on_selector(selector, """(node) => {
        const box = node.getBoundingClientRect();
        return box.top >= 0 && box.top < window.innerHeight && box.bottom > 0;
    }""")


def test_unanswered_questions_are_shown_where_the_respondent_is_on_a_phone(browser, live_server):
    survey = one_section_survey(12)
    context, page, errors = open_page(browser, live_server, survey, PHONE)
    page.get_by_role("group", name="Question number 1?").get_by_label("yes").check()
    page.get_by_role("group", name="Question number 3?").get_by_label("no").check()
    review = page.get_by_role("button", name="Review what will be sent")
    review.scroll_into_view_if_needed()
    review.click()
    assert page.locator("section.review").is_hidden()  # still on the questions
    # Focus and view go to the first unanswered question, with its message visible beside it.
    first = "fieldset[data-question=q1]"
    assert page.evaluate(f"document.querySelector('{first}').contains(document.activeElement)")
    assert in_view(page, f"{first} legend") and in_view(page, f"{first} .question-error")
    # Every unanswered question is marked (and only those), its message tied to it for assistive technology.
    unanswered = [f"q{i}" for i in range(12) if i not in (0, 2)] + ["sick"]
    marked = page.eval_on_selector_all("[aria-invalid=true]", "ns => ns.map((n) => n.dataset.question)")
    assert marked == unanswered
    for name in unanswered:
        group = page.locator(f"fieldset[data-question={name}]")
        message = group.locator(".question-error")
        assert message.is_visible() and message.inner_text().startswith("Please answer")
        assert message.get_attribute("id") in group.get_attribute("aria-describedby").split()
    # The summary stays, one line per question.
    assert page.locator(".errors p").count() == len(unanswered)
    # Answering clears the mark as the respondent goes; the next attempt reaches the review.
    page.get_by_role("group", name="Question number 2?").get_by_label("maybe").check()
    assert page.locator("fieldset[data-question=q1]").get_attribute("aria-invalid") is None
    assert page.locator("fieldset[data-question=q1] .question-error").count() == 0
    for i in range(3, 12):
        page.get_by_role("group", name=f"Question number {i + 1}?").get_by_label("yes").check()
    page.get_by_label("no", exact=True).last.check()
    page.get_by_role("button", name="Review what will be sent").click()
    assert page.locator("section.review").is_visible()
    assert page.locator("[aria-invalid=true]").count() == 0 and page.locator(".errors p").count() == 0
    assert errors == []
    context.close()


def test_a_wrong_number_is_marked_on_its_field(browser, live_server):
    survey = make_habits_survey("ldp")
    context, page, errors = open_page(browser, live_server, survey, PHONE)
    page.get_by_label("daily").check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your age (18 to 98)").fill("130")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    age = page.get_by_label("Your age (18 to 98)")
    assert age.evaluate("(n) => n === document.activeElement") and age.get_attribute("aria-invalid") == "true"
    message = page.locator("#q1-error")
    assert message.is_visible() and "between 18 and 98" in message.inner_text()
    assert "q1-error" in age.get_attribute("aria-describedby").split()
    assert errors == []
    context.close()


def progress_shown(page) -> tuple[str, float, float]:
    return (page.locator(".progress-text").inner_text(), page.locator("progress").evaluate("p => p.value"),
            page.locator("progress").evaluate("p => p.max"))


def test_the_progress_text_and_bar_agree(browser, live_server):
    """A one-section survey is step 1 of 2 (the questions, then the review): never "Part 1 of 1"; the bar counts the
    sections done — empty before any answer, full at the review; a two-section survey counts the same way."""
    context, page, _ = open_page(browser, live_server, one_section_survey(1))
    for expected in ("Step 1 of 2: the questions", "Step 2 of 2: check what leaves your browser."):
        text, value, maximum = progress_shown(page)
        assert text == expected and "Part 1 of 1" not in page.content()
        step, steps = map(int, re.match(r"Step (\d+) of (\d+)", text).groups())
        assert (value, maximum) == (step - 1, steps - 1)
        if step == 1:
            page.get_by_label("yes").first.check()
            page.get_by_label("no").last.check()
            page.get_by_role("button", name="Review what will be sent").click()
    context.close()
    context, page, _ = open_page(browser, live_server, make_habits_survey("ldp"))
    assert progress_shown(page) == ("Step 1 of 3: Habits", 0, 2)
    page.get_by_label("daily").check()
    page.get_by_role("button", name="Next").click()
    assert progress_shown(page) == ("Step 2 of 3: About you", 1, 2)
    context.close()


def test_the_page_opens_at_its_title_with_the_focus_on_the_first_question(browser, live_server):
    """On a desktop the survey's title and privacy explanation stay in view as the page opens (it is not scrolled to
    the first question), while the keyboard starts at the first question."""
    context, page, errors = open_page(browser, live_server, make_habits_survey("ldp"))
    assert page.evaluate("window.scrollY") == 0 and page.locator("h1").is_visible()
    assert page.evaluate("document.activeElement.closest('fieldset, .question') !== null")
    assert errors == []
    context.close()


def tab_until(page, name: str, limit: int) -> int:
    """Press Tab until the focused element's accessible text is ``name``; how many presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == name:
            return presses
    raise AssertionError(f"{name!r} not reached in {limit} Tab presses")


def test_a_survey_completed_with_the_keyboard_alone(browser, live_server):
    """Tab moves between questions (one stop per radio group), arrow keys and Space choose, Enter goes on and sends."""
    survey = make_habits_survey("ldp")
    context, page, errors = open_page(browser, live_server, survey)
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    names = page.eval_on_selector_all("input[type=radio]", "rs => rs.map((r) => r.name)")
    assert all(names) and len(set(names)) == 2  # smoker and sick: one name per question
    assert page.evaluate("document.activeElement.value") == "0"  # the first question's first choice has the focus
    page.keyboard.press("Space")  # never
    page.keyboard.press("ArrowDown")  # sometimes
    page.keyboard.press("ArrowDown")  # daily
    assert page.get_by_label("daily").is_checked() and not page.get_by_label("never").is_checked()
    assert tab_until(page, "Next", 1) == 1  # one Tab from the group to the button, not one per choice
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "q1"  # the age field
    page.keyboard.type("73.25")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # "no", the group's first choice
    page.keyboard.press("ArrowRight")  # "yes"
    assert page.get_by_label("yes").is_checked()
    assert tab_until(page, "Review what will be sent", 2) == 2  # past "Back"
    page.keyboard.press("Enter")
    assert page.locator("section.review").is_visible()
    shown = json.loads(page.locator("pre.payload").inner_text())
    tab_until(page, "Send the randomized report", 5)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert len(posts) == 1 and json.loads(posts[0].post_data) == shown
    assert survey.report_total() == 1
    assert errors == []
    context.close()


def test_enter_in_a_field_goes_on_and_never_submits_the_answers(browser, live_server):
    """With named radios, a plain form submission would put the answers in the URL: Enter must only go on."""
    survey = make_habits_survey("ldp")
    context, page, errors = open_page(browser, live_server, survey)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.get_by_label("daily").check()
    page.keyboard.press("Enter")  # on the radio: Next
    page.get_by_label("Your age (18 to 98)").fill("73.25")
    page.get_by_label("Your age (18 to 98)").press("Enter")  # the question "ill?" is unanswered: stays, marked
    assert page.locator("fieldset[data-question=sick]").get_attribute("aria-invalid") == "true"
    assert page.url == f"{live_server.url}/s/{survey.slug}/"
    assert not [url for url in requests if "?" in url or "73.25" in url]
    assert errors == []
    context.close()


def test_the_favicon_is_served(browser, live_server):
    context = browser.new_context()
    page = context.new_page()
    response = page.goto(f"{live_server.url}/favicon.ico")
    assert response.ok and response.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    assert response.body()[:4] == b"\x00\x00\x01\x00"  # an ICO header
    page.goto(f"{live_server.url}/s/{make_habits_survey('ldp').slug}/")  # the pages' own link to it
    icon = page.eval_on_selector("link[rel=icon]", "l => l.href")
    assert page.request.get(icon).ok
    context.close()


def test_the_admin_survey_page_fits_the_window_and_keeps_epsilon_small(browser, live_server):
    User.objects.create_superuser("boss", "boss@example.invalid", "correct horse")
    survey = make_survey(mode="ldp")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    url = f"{live_server.url}/admin/survey_app/survey/{survey.pk}/change/"
    page.goto(url)
    page.fill("#id_username", "boss")
    page.fill("#id_password", "correct horse")
    page.click("input[type=submit]")
    page.wait_for_url(url)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, f"the page is {width} px wide"
    # innerText applies CSS text-transform: the ε column heading must read "ε", not "Ε".
    headings = page.eval_on_selector_all(".privacy-report th", "ths => ths.map((th) => th.innerText)")
    assert "ε" in headings and "Ε" not in " ".join(headings)
    page.goto(f"{live_server.url}/admin/survey_app/survey/add/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    context.close()
