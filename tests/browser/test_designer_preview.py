"""A designer's draft, start to preview, in a real browser (Debian's Chromium driven by Playwright; issue 12 item 2):
signed in to the admin, the designer types a question's choices on the survey's own page, saves, opens the preview
from that page, sees the banner, answers, reaches the review — and cannot send: the page makes no request to the
report API and the database holds no report, credential or key afterwards."""
from django.apps import apps
from django.contrib.auth.models import Permission, User

from survey_app.models import Question, Survey
from tests.browser.axe import assert_accessible
from tests.browser_support import BROWSER_TEST

pytestmark = BROWSER_TEST

PASSWORD = "correct horse battery staple"


def rows() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for app in ("survey_app", "aggregator")
            for m in apps.get_app_config(app).get_models()}


def test_a_designer_types_choices_inline_previews_the_draft_and_cannot_send(browser, live_server):
    alice = User.objects.create_user("alice", password=PASSWORD, is_staff=True)
    alice.user_permissions.set(Permission.objects.filter(
        codename__in=[f"{a}_{m}" for a in ("add", "change", "view", "delete") for m in ("survey", "question",
                                                                                           "choice")]))
    survey = Survey.objects.create(title="Commuting", slug="commuting", mode="ldp", epsilon=1.0, encoding="oue",
                                   validation_share=0.0)  # a draft
    survey.designers.add(alice)
    Question.objects.create(survey=survey, name="late", text="Were you late this week?", kind="binary",
                            is_class=True, position=1)
    Question.objects.create(survey=survey, name="mode", text="How do you get to work?", kind="categorical",
                            position=0)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors, reports = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # Any request to the report API, or to redeem an invitation, from any page of this browser is recorded.
    context.route("**/reports/**", lambda route: (reports.append(route.request.url), route.abort()))
    context.route("**/invitations/**", lambda route: (reports.append(route.request.url), route.abort()))

    page.goto(f"{live_server.url}/admin/login/?next=/admin/survey_app/survey/{survey.pk}/change/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_label("Choices (one per line)").first.wait_for()

    # The choices, typed on the survey's page: the "mode" question comes first (position 0).
    box = page.locator("textarea[name$='-choices_text']").first
    box.fill("Walk\nBike\nBike\nCar")
    page.get_by_role("button", name="Save and continue editing").click()
    assert "“Bike” is given twice (lines 2 and 3)" in page.locator(".errorlist").first.inner_text()
    page.locator("textarea[name$='-choices_text']").first.fill("Walk\nBike\nBus or train\nCar")
    page.get_by_role("button", name="Save and continue editing").click()
    page.locator("ul.messagelist").wait_for()
    assert [c.label for c in survey.questions.get(name="mode").choices.all()] == ["Walk", "Bike", "Bus or train",
                                                                                  "Car"]
    assert page.locator("textarea[name$='-choices_text']").first.input_value() == "Walk\nBike\nBus or train\nCar"

    before = rows()
    link = page.get_by_role("link", name="Preview as respondents see it")
    with context.expect_page() as opened:
        link.click()
    preview = opened.value
    preview.on("pageerror", lambda e: errors.append(str(e)))
    preview.locator("#privacy-figure").wait_for()
    banner = preview.locator(".preview-banner")
    assert banner.is_visible() and "Preview — nothing is sent." in banner.inner_text()
    # What is kept: nothing here, and what the survey's own page keeps on Send (never "nothing" for the real page).
    kept = preview.locator("#memo-words").inner_text()
    assert kept.startswith("In this preview nothing is kept. On the survey's page: What this browser keeps: when you "
                           "press “Send”, your browser saves a copy of the randomized report")

    preview.get_by_role("group", name="How do you get to work?").get_by_label("Bus or train").check()
    preview.get_by_role("group", name="Were you late this week?").get_by_label("yes").check()
    preview.get_by_role("button", name="Review what will be sent").click()
    preview.get_by_role("heading", name="What leaves your browser").wait_for()
    send = preview.locator(".nav button[type=submit]")
    assert send.inner_text() == "Preview: nothing is sent" and send.is_disabled()
    assert '"report"' in preview.locator("pre.payload").inner_text()  # the exact report, as respondents see it
    send.click(force=True)  # a disabled button: nothing happens
    preview.keyboard.press("Enter")
    preview.wait_for_timeout(500)
    assert banner.is_visible() and preview.url.endswith(f"/s/{survey.slug}/preview/")
    assert_accessible(preview, "the preview's review step")

    assert reports == [] and errors == []
    assert rows() == before  # no report, credential, key or any other row
    # Nothing kept in the browser either (the admin's own keys, such as its theme, are the admin's).
    assert preview.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('coinflip'))") == []
    context.close()
