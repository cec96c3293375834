"""The designer's workspace in a real browser (Chromium through Playwright): a designer signs in, creates a draft, adds
two questions with German texts side by side, reorders them with the keyboard and by dragging, watches the exact
ε/PSE follow the privacy settings before saving, sees the saved survey in the preview beside the editor, and opens it
after a confirmation — every page axe-clean (no serious or critical finding) at 1280 and 390 px, in English and
German. With COINFLIP_SCREENSHOTS set to a folder, the pages are also saved there (docs/screenshots/)."""
import os
from pathlib import Path

from django.contrib.auth.models import Permission, User
from django.templatetags.static import static
from playwright.sync_api import expect

from survey_app.models import Survey
from tests.browser.axe import AXE, assert_accessible
from tests.browser_support import BROWSER_TEST

pytestmark = BROWSER_TEST

PASSWORD = "correct horse battery staple"
SHOTS = os.environ.get("COINFLIP_SCREENSHOTS")


def shot(page, name: str, full: bool = True):
    if SHOTS:
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=full)


def designer() -> User:
    user = User.objects.create_user("alice", password=PASSWORD, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(
        codename__in=[f"{a}_{m}" for a in ("add", "change", "view", "delete") for m in ("survey", "question",
                                                                                           "choice")]))
    return user


def sign_in(page, base: str):
    page.goto(f"{base}/design/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Your surveys").wait_for()


def accessible(page, what: str):
    """axe on the page and on the preview it frames (axe tests a frame only when it runs in it too)."""
    for frame in page.frames[1:]:
        frame.add_script_tag(url=static(AXE))
    assert_accessible(page, what)


def block(page, index: int):
    return page.locator("#questions > .q-block").nth(index)


def names(page) -> list[str]:
    return page.locator("#questions input[name$='-name']").evaluate_all("(inputs) => inputs.map((i) => i.value)")


def test_create_add_reorder_watch_the_figures_preview_and_open(browser, live_server):
    designer()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(page, live_server.url)
    assert_accessible(page, "the survey list (empty)")

    # A new draft.
    page.get_by_role("link", name="New survey").click()
    page.get_by_label("Title").fill("Commuting")
    page.get_by_label("Slug").fill("commuting")
    page.get_by_role("button", name="Create the draft").click()
    page.get_by_role("heading", name="Commuting").wait_for()
    assert "Draft “Commuting” created" in page.locator(".messages").inner_text()

    # The first question in the blank block, with its German texts beside the English ones.
    first = block(page, 0)
    first.get_by_label("Name", exact=True).fill("mode")
    first.get_by_label("Text", exact=True).fill("How do you get to work?")
    first.get_by_label("Text in Deutsch", exact=True).fill("Wie kommen Sie zur Arbeit?")
    first.get_by_label("Kind").select_option("categorical")
    first.get_by_label("Choices (one per line)").fill("Walk\nBike\nCar")
    first.get_by_label("Choices in Deutsch (one per line, same order)").fill("Zu Fuß\nFahrrad\nAuto")
    # A second one from the "Add a question" button: focus lands in its name box.
    page.get_by_role("button", name="Add a question").click()
    page.keyboard.type("late")
    second = block(page, 1)
    assert second.get_by_label("Name", exact=True).input_value() == "late"
    second.get_by_label("Text", exact=True).fill("Were you late this week?")
    second.get_by_label("Kind").select_option("binary")
    second.get_by_label("Is the class").check()
    assert page.locator("#order-status").inner_text() == "Question 2 added."

    # Reorder with the keyboard: "Move up" on the second question, pressed with Enter; focus stays on the button.
    second.get_by_role("button", name="Move up").focus()
    page.keyboard.press("Enter")
    assert names(page) == ["late", "mode"]
    assert page.locator("#order-status").inner_text() == "Question moved to position 1 of 2."
    assert page.evaluate("document.activeElement.textContent") == "Move up"
    assert block(page, 0).locator(".q-number").inner_text() == "Question 1"
    # … and back by dragging the second block's handle onto the first (both in view: a drag that has to scroll is
    # the browser's auto-scroll, which a synthetic mouse does not trigger).
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.drag_and_drop("#questions > .q-block:nth-child(2) .drag-handle", "#questions > .q-block:nth-child(1)")
    assert names(page) == ["mode", "late"]
    # Once more by dragging, so that the class question is saved first.
    page.drag_and_drop("#questions > .q-block:nth-child(2) .drag-handle", "#questions > .q-block:nth-child(1)")
    assert names(page) == ["late", "mode"]
    page.set_viewport_size({"width": 1280, "height": 900})

    # The privacy figures follow the settings before anything is saved.
    body = page.locator("#figures-body")
    epsilon = page.get_by_label("ε (LDP)")
    epsilon.fill("2")
    expect(page.locator("#figures-body .headline")).to_be_visible()
    page.get_by_role("button", name="Save").click()
    page.locator(".messages .success").wait_for()
    survey = Survey.objects.get(slug="commuting")
    assert [q.name for q in survey.questions.all()] == ["late", "mode"]
    assert survey.epsilon == 2.0
    mode = survey.questions.get(name="mode")
    assert mode.translations == {"de": {"text": "Wie kommen Sie zur Arbeit?"}}
    assert [c.translations for c in mode.choices.all()] == [{"de": "Zu Fuß"}, {"de": "Fahrrad"}, {"de": "Auto"}]
    expect(page.locator("#figures-body .headline")).to_contain_text("ε per respondent: 2")

    epsilon.fill("0.5")
    expect(page.locator("#figures-body .headline")).to_contain_text("ε per respondent: 0.5")
    assert "ε per respondent: 0.5" in page.locator("#figures-status").inner_text()
    page.get_by_label("Mode").select_option("mrr")
    assert page.get_by_label("θ (MRR)").is_visible() and not epsilon.is_visible()
    page.get_by_label("θ (MRR)").fill("0.7")
    expect(body).to_contain_text("PSE")
    assert "mode" in body.inner_text() and "late" in body.inner_text()
    page.get_by_label("θ (MRR)").fill("1.5")
    expect(body).to_contain_text("cannot be used")
    survey.refresh_from_db()
    assert survey.mode == "ldp" and survey.epsilon == 2.0  # nothing saved by watching
    assert "θ (MRR): θ must be in (0, 1]." in body.inner_text()
    page.get_by_label("θ (MRR)").fill("0.7")
    page.get_by_label("Mode").select_option("ldp")
    epsilon.fill("1")
    expect(page.locator("#figures-body .headline")).to_contain_text("ε per respondent: 1 ")

    # The preview beside the editor: the saved survey, nothing sent from it.
    preview = page.frame_locator("#preview-frame")
    preview.locator(".preview-banner").wait_for()
    preview.get_by_role("group", name="Were you late this week?").wait_for()
    accessible(page, "the workspace (desktop)")
    shot(page, "design-workspace-desktop", full=False)
    if SHOTS:
        for name, heading in (("design-questions-desktop", "#h-questions"), ("design-privacy-desktop", "#h-privacy")):
            page.locator(heading).scroll_into_view_if_needed()
            page.evaluate("(selector) => document.querySelector(selector).scrollIntoView()", heading)
            page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))

    # A phone: one column, the preview below the editor.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.get_by_role("heading", name="Commuting").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    accessible(page, "the workspace (phone)")
    shot(page, "design-workspace-phone", full=False)
    page.set_viewport_size({"width": 1280, "height": 900})

    # German.
    page.get_by_role("button", name="Deutsch").click()
    page.locator("html[lang=de]").wait_for()
    accessible(page, "the workspace (German)")
    page.get_by_role("button", name="English").click()
    page.locator("html[lang=en]").wait_for()

    # Open, after the confirmation page; the privacy settings are then locked.
    page.get_by_role("link", name="Open…").click()
    page.get_by_role("heading", name="Open “Commuting”?").wait_for()
    assert_accessible(page, "the confirmation to open")
    shot(page, "design-open-confirm", full=False)
    survey.refresh_from_db()
    assert survey.status == "draft"
    page.get_by_role("button", name="Yes, open it").click()
    page.locator(".messages .success").wait_for()
    survey.refresh_from_db()
    assert survey.status == "open"
    assert page.get_by_label("ε (LDP)").is_disabled() and page.get_by_role("button", name="Move up").count() == 0
    accessible(page, "the workspace of an open survey")

    page.get_by_role("link", name="Your surveys").click()
    assert_accessible(page, "the survey list")
    shot(page, "design-list-desktop", full=False)
    assert errors == []
    context.close()


def test_the_workspace_works_by_keyboard_alone(browser, live_server):
    """Tab reaches the question's move buttons and the save button; Space on "Move down" reorders."""
    alice = designer()
    survey = Survey.objects.create(title="Keys", slug="keys", mode="ldp", epsilon=1.0, encoding="oue")
    survey.designers.add(alice)
    for position, name in enumerate(("first", "second")):
        survey.questions.create(name=name, text=f"The {name}?", kind="binary", position=position,
                                is_class=name == "second")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/design/survey/keys/")
    page.locator("#questions").wait_for()
    reached = set()
    for _ in range(80):
        page.keyboard.press("Tab")
        label = page.evaluate("document.activeElement.textContent || document.activeElement.name || ''")
        reached.add(label.strip())
        if label.strip() == "Move down":
            page.keyboard.press("Space")
            break
    assert "Move down" in reached
    assert names(page)[:2] == ["second", "first"]
    page.get_by_role("button", name="Save").focus()
    page.keyboard.press("Enter")
    page.locator(".messages .success").wait_for()
    assert [q.name for q in survey.questions.all()] == ["second", "first"]
    context.close()
