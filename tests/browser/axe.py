"""axe-core in the Playwright tests (tests/browser/test_accessibility.py, test_glossary.py): run it on a page and
fail on serious or critical findings; sign staff in as the dashboard requires."""
import json

from django.contrib.auth.models import User
from django.templatetags.static import static

AXE = "vendor/axe-core/axe.min.js"  # under static/
#: The impacts that fail a page; "minor" and "moderate" findings are printed by a failing run but do not fail it.
BLOCKING = ("serious", "critical")
STAFF = ("axe-staff", "correct horse battery")
#: axe's "needs review" results of serious or critical impact fail a page too (a dangling aria-describedby is one:
#: axe cannot tell whether the element it names is still to come), except colour contrast, which axe leaves to review
#: wherever it cannot measure (a cell holding only "—", text over a gradient), and these, as (rule, node's selector).
UNMEASURED = {"color-contrast"}
KNOWN_INCOMPLETE: set[tuple[str, str]] = set()  # (rule, element) pairs let through, each with its reason


def axe_results(page) -> dict:
    """axe's violations and "needs review" results on the page as it stands (WCAG 2.x A/AA and best practices)."""
    page.add_script_tag(url=static(AXE))
    return page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
        const brief = (v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
        });
        return {violations: result.violations.map(brief), incomplete: result.incomplete.map(brief)};
    }""")


def assert_accessible(page, what: str):
    results = axe_results(page)
    blocking = [v for v in results["violations"] if v["impact"] in BLOCKING]
    unsure = [{**v, "nodes": nodes} for v in results["incomplete"]
              if v["impact"] in BLOCKING and v["id"] not in UNMEASURED
              if (nodes := [n for n in v["nodes"] if (v["id"], n["target"]) not in KNOWN_INCOMPLETE])]
    assert not blocking and not unsure, (
        f"{what}: {len(blocking)} serious or critical axe violations, {len(unsure)} to review\n"
        + json.dumps({"violations": results["violations"], "to review": unsure}, indent=2, ensure_ascii=False))


def sign_in(page, live_server, url: str):
    """Staff sign-in through the admin login, as the dashboard sends anonymous visitors there; ends on ``url``."""
    User.objects.create_superuser(STAFF[0], "axe@example.invalid", STAFF[1])
    page.goto(f"{live_server.url}{url}")
    page.fill("#id_username", STAFF[0])
    page.fill("#id_password", STAFF[1])
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}{url}")
