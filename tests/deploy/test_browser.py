"""The policy and the integrity checks in a real browser (Debian's Chromium driven by Playwright, live server):
the survey page runs its randomizer under the CSP with every module integrity-checked, a tampered module or an
injected inline script is refused, and the admin and Swagger UI work with no CSP violation.

Violations are collected twice: the page's ``securitypolicyviolation`` events (an init script, which CSP does not
govern) and Chromium's console errors.
"""
import json
import re

import pytest
from django.contrib.auth.models import User

from survey_app import integrity
from tests.browser_support import BROWSER_TEST
from tests.factories import make_survey

pytestmark = BROWSER_TEST
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""



class Watched:
    """A page with its CSP violations, console errors, page errors, script requests and POSTs recorded."""

    def __init__(self, browser):
        self.context = browser.new_context()
        self.context.add_init_script(RECORD_VIOLATIONS)
        self.page = self.context.new_page()
        self.console, self.errors, self.scripts, self.posts = [], [], [], []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", self._request)

    def _request(self, request):
        if request.method == "POST":
            self.posts.append(request)
        elif request.resource_type == "script":
            self.scripts.append(request.url)

    def violations(self) -> list[str]:
        console = [m for m in self.console if "Content Security Policy" in m]
        return self.page.evaluate("window.__cspViolations") + console

    def close(self):
        self.context.close()


def answer_and_send(page, slug):
    page.get_by_label("daily").check()
    page.get_by_label("Age (18 to 98)").fill("40")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{slug}/thanks/")


def test_survey_runs_under_the_policy_with_every_module_integrity_checked(browser, live_server):
    survey = make_survey("csp-survey")
    code = integrity.randomizer()
    watched = Watched(browser)
    page = watched.page
    response = page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert "'unsafe-inline'" not in response.headers["content-security-policy"]
    page.wait_for_selector("#survey-app input")
    shown = page.locator("code.randomizer-hash").text_content()  # inside a closed <details>
    assert shown == code.sha256
    loaded = {url.removeprefix(live_server.url) for url in watched.scripts}
    assert loaded == {m.url for m in code.modules}  # the browser fetched exactly the pinned modules
    import_map = json.loads(page.locator('script[type="importmap"]').text_content())
    assert set(import_map["integrity"]) == loaded
    answer_and_send(page, survey.slug)
    assert watched.violations() == [] and watched.errors == []
    assert len(watched.posts) == 1 and survey.report_total() == 1
    watched.close()


def tampered(route):
    """Serve the module with one harmless extra line: same behaviour, different hash."""
    response = route.fetch()
    route.fulfill(response=response, body=response.text() + "\n// tampered\n")


def without_modulepreload(route):
    """The page without its <link rel="modulepreload" integrity=…>: only the import map pins the imported modules."""
    response = route.fetch()
    body = re.sub(r'<link rel="modulepreload"[^>]*>\n?', "", response.text())
    route.fulfill(response=response, body=body)


@pytest.mark.parametrize("module, preload", [("js/noise.mjs", True), ("js/survey.mjs", True),
                                             ("js/noise.mjs", False), ("js/oracles/unary.mjs", False)])
def test_a_tampered_module_is_refused_and_nothing_runs(browser, live_server, module, preload):
    """Each pin is enforced on its own: the modulepreload links' integrity, and the import map's (Chromium 127+)."""
    survey = make_survey("tamper")
    watched = Watched(browser)
    page = watched.page
    page.route(f"**/static/{module}", tampered)
    if not preload:
        page.route(f"**/s/{survey.slug}/", without_modulepreload)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_load_state("networkidle")
    assert page.locator("#survey-app input").count() == 0  # the randomizer never started
    assert page.locator("#no-js-message").is_visible()
    assert any("integrity" in message for message in watched.console), watched.console
    assert watched.posts == []
    watched.close()


def test_an_injected_inline_script_is_blocked(browser, live_server):
    """If the page's HTML were altered to carry a script of its own, the policy would refuse to run it."""
    survey = make_survey("inject")
    watched = Watched(browser)
    page = watched.page

    def inject(route):
        response = route.fetch()
        body = response.text().replace("</main>", "<script>window.injected = true;</script></main>")
        route.fulfill(response=response, body=body)

    page.route(f"**/s/{survey.slug}/", inject)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#survey-app input")  # the randomizer itself still runs
    assert page.evaluate("window.injected") is None
    assert any(v.startswith("script-src") for v in page.evaluate("window.__cspViolations"))
    watched.close()


def test_admin_and_api_docs_work_under_the_policy(browser, live_server):
    User.objects.create_superuser("boss", "boss@example.invalid", "correct horse battery")
    survey = make_survey("admin-csp")
    watched = Watched(browser)
    page = watched.page
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "correct horse battery")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    for path in ["/admin/survey_app/survey/", f"/admin/survey_app/survey/{survey.pk}/change/",
                 "/admin/django_celery_beat/periodictask/add/", "/admin/axes/accessattempt/", "/dashboard/"]:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert watched.violations() == [], path
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Coinflip API" in page.locator(".swagger-ui .info .title").inner_text()
    page.wait_for_selector(".opblock")  # the operations, from /api/schema/
    assert watched.violations() == [] and watched.errors == []
    watched.close()
