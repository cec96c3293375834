"""The designers' pages in German in a browser (issue 12 item 3): the language switch in the admin's header, reached
by keyboard, turns the survey page German (fieldsets, labels, the kinds of question, the choices box) and keeps the
choice; the header with the switch has no serious or critical axe finding."""
import json

from django.templatetags.static import static

from tests.browser.axe import AXE, BLOCKING, sign_in
from tests.browser_support import BROWSER_TEST
from tests.factories import make_draft_survey

pytestmark = BROWSER_TEST


def assert_header_accessible(page, what: str):
    """axe-core on the admin's header (branding, user links, the language switch) only: Django's own admin pages
    have findings of their own elsewhere (breadcrumbs, the navigation tables), not this project's to fix here."""
    page.add_script_tag(url=static(AXE))
    results = page.evaluate("""async () => {
        const result = await axe.run({include: [["#header"]]}, {resultTypes: ["violations", "incomplete"]});
        return result.violations.concat(result.incomplete.filter((v) => v.id !== "color-contrast"))
            .map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" "))}));
    }""")
    blocking = [r for r in results if r["impact"] in BLOCKING]
    assert not blocking, f"{what}: " + json.dumps(blocking, indent=2, ensure_ascii=False)


def test_the_admin_switch_turns_the_survey_page_german(page, live_server):
    survey = make_draft_survey()
    url = f"/admin/survey_app/survey/{survey.pk}/change/"
    sign_in(page, live_server, url)
    switch = page.get_by_role("form", name="Language")
    assert switch.get_by_role("button", name="English").get_attribute("aria-pressed") == "true"
    assert_header_accessible(page, "the admin's header with its language switch")

    german = switch.get_by_role("button", name="Deutsch")
    german.focus()
    with page.expect_navigation(url=f"**{url}"):  # set_language, then back to this page
        page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.get_by_role("heading", name="Datenschutz").is_visible()
    assert page.get_by_label("Verfahren").input_value() == "ldp"
    assert page.get_by_label("Verfahren").locator("option:checked").inner_text() == "Lokale Differential Privacy (ε)"
    assert page.get_by_label("Auswahlmöglichkeiten (eine pro Zeile)").first.is_visible()
    assert page.get_by_role("link", name="Vorschau, wie Teilnehmende sie sehen (öffnet sich in einem neuen Tab)") \
        .is_visible()
    switch = page.get_by_role("form", name="Sprache")
    assert switch.get_by_role("button", name="Deutsch").get_attribute("aria-pressed") == "true"
    assert_header_accessible(page, "the admin's header in German")
    page.screenshot(path="/tmp/admin-de.png")
