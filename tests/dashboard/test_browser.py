"""The dashboard in a real browser (Debian's Chromium driven by Playwright) against the live server, under a strict
Content-Security-Policy: staff sign in, the survey page draws its charts (canvases with a size, no page error, no
CSP violation), the question selector redraws, and "Retrain now" (eager Celery) reaches "Published version 2".

The policy is added to the dashboard's pages by the test itself (Playwright fulfils them with the header), so the
pages are checked against it whatever the project's own CSP middleware sends: no inline script, no inline style.
Set DASHBOARD_SCREENSHOTS to a directory to keep a screenshot of the survey page there.
"""
import os
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from aggregator import services
from survey_app.models import Report
from tests.aggregator.helpers import add_reports, make_survey

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
pytestmark = [
    pytest.mark.skipif(not shutil.which(CHROMIUM), reason=f"Chromium not installed at {CHROMIUM} (.ci/run installs it)"),
    pytest.mark.django_db(transaction=True),
]
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio loop on this thread; the ORM calls in these tests are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


class StrictCSP:
    """A route handler that fulfils the dashboard's pages (GET documents) with the strict policy added to their
    headers, and remembers which; anything else goes through untouched. Playwright does not route the request a
    browser sends to follow a redirect, so the test opens the pages it checks with ``page.goto``."""

    def __init__(self):
        self.served: list[str] = []

    def __call__(self, route):
        request = route.request
        if request.method != "GET" or request.resource_type != "document" or "/dashboard/" not in request.url.split("?")[0]:
            return route.continue_()
        response = route.fetch(max_redirects=0)
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})
        self.served.append(request.url)


def test_staff_see_the_charts_and_retrain_now(browser, live_server, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    User.objects.create_superuser("boss", "boss@example.invalid", "correct horse")
    survey = make_survey(mode="mrr", validation_share=0.2)
    reports = add_reports(survey, 1500)
    for report in reports[:300]:
        Report.objects.filter(pk=report.pk).update(payload={"validation": report.payload})
    services.retrain(survey)
    add_reports(survey, 50, seed=1)  # for the second version

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    csp = StrictCSP()
    context.route("**/*", csp)
    page = context.new_page()
    errors, console = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)

    survey_url = f"{live_server.url}/dashboard/surveys/{survey.slug}/"
    page.goto(survey_url)
    assert "/admin/login/" in page.url  # staff only: signed-out visitors are sent to the login
    page.fill("#id_username", "boss")
    page.fill("#id_password", "correct horse")
    page.click("input[type=submit]")
    page.wait_for_url(survey_url)
    page.goto(survey_url)  # again, through the strict policy (StrictCSP docstring)
    assert csp.served[-1] == survey_url
    page.wait_for_function("document.querySelectorAll('canvas').length === 5 && "
                           "Array.from(document.querySelectorAll('canvas')).every((c) => window.Chart.getChart(c))")
    sizes = page.eval_on_selector_all("canvas", "cs => cs.map(c => [c.id, c.getBoundingClientRect().width, c.getBoundingClientRect().height])")
    assert [s[0] for s in sizes] == ["chart-reports", "chart-accuracy", "chart-distribution", "chart-epsilon", "chart-pse"]
    assert all(width > 100 and height > 100 for _, width, height in sizes), sizes
    assert page.evaluate("window.Chart.getChart(document.getElementById('chart-distribution')).data.labels") == \
        ["never", "sometimes", "daily"]
    page.select_option("#attribute-select", label="age")  # the numeric question, discretized into bins
    assert len(page.evaluate("window.Chart.getChart(document.getElementById('chart-distribution')).data.labels")) == 4
    assert "conservative" in page.locator("#interval-note").inner_text()
    if os.environ.get("DASHBOARD_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["DASHBOARD_SCREENSHOTS"]) / "dashboard_survey.png"), full_page=True)

    page.get_by_role("button", name="Retrain now").click()
    page.wait_for_url(lambda url: "?job=" in url)
    with page.expect_response(lambda r: "/dashboard/jobs/" in r.url) as polled:
        page.goto(page.url.split("#")[0])  # through the strict policy; the page polls the job's JSON
    assert polled.value.ok
    page.wait_for_function("document.getElementById('job-message').textContent.includes('Published version 2')")
    assert page.locator("#job-progress").evaluate("p => p.value") == 1
    assert page.locator("#job-reload").is_visible()
    assert "?job=" in csp.served[-1]

    assert errors == []
    assert page.evaluate("window.__cspViolations") == []
    assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], console
    context.close()
