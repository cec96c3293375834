"""The dashboard in a real browser (Debian's Chromium driven by Playwright) against the live server, under a strict
Content-Security-Policy: staff sign in, the survey page draws its charts (canvases with a size, no page error, no
CSP violation), the question selector redraws, and "Retrain now" (eager Celery) reaches "Published version 2"; a
designer runs the planner and applies its recommendation to a draft survey.

The policy is added to the dashboard's pages by the test itself (Playwright fulfils them with the header), so the
pages are checked against it whatever the project's own CSP middleware sends: no inline script, no inline style.
Set DASHBOARD_SCREENSHOTS to a directory to keep screenshots of the survey page and the planner's result there.
"""
import os
from pathlib import Path

from django.contrib.auth.models import User

from aggregator import services
from survey_app.models import PendingReport
from tests.browser_support import BROWSER_TEST
from tests.factories import add_reports, after_midnight, make_survey, pass_days

pytestmark = BROWSER_TEST
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
                          (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
"""



class StrictCSP:
    """A route handler that fulfils the dashboard's pages (GET documents) with the strict policy added to their
    headers, and remembers which; anything else goes through untouched. Playwright does not route the request a
    browser sends to follow a redirect, so the test opens the pages it checks with ``page.goto``."""

    def __init__(self):
        self.served: list[str] = []

    def __call__(self, route):
        request = route.request
        page_load = request.method == "GET" and request.resource_type == "document"
        if not page_load or "/dashboard/" not in request.url.split("?")[0]:
            return route.continue_()
        response = route.fetch(max_redirects=0)
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})
        self.served.append(request.url)


def test_staff_see_the_charts_and_retrain_now(browser, live_server, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    User.objects.create_superuser("boss", "boss@example.invalid", "correct horse")
    survey = make_survey(mode="mrr", validation_share=0.2)
    reports = add_reports(survey, 1500)
    for report in reports[:300]:
        PendingReport.objects.filter(pk=report.pk).update(payload={"validation": report.payload})
    services.retrain(survey, now=after_midnight())
    add_reports(survey, 50, seed=1)  # for the second version
    pass_days(monkeypatch, 2)  # "Retrain now" after their day has ended

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
    sizes = page.eval_on_selector_all(
        "canvas", "cs => cs.map(c => [c.id, c.getBoundingClientRect().width, c.getBoundingClientRect().height])")
    assert [s[0] for s in sizes] == ["chart-reports", "chart-accuracy", "chart-distribution", "chart-epsilon",
                                     "chart-pse"]
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


def test_the_planner_runs_and_applies_its_recommendation_to_a_draft(browser, live_server, settings):
    """Form → job (eager) → curves with interval bands, the table and the recommendation → "Apply" to a draft."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    designer = User.objects.create_user("designer", password="pw", is_staff=True)
    draft = make_survey(mode="ldp", slug="draft-one", status="draft")
    draft.designers.add(designer)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    csp = StrictCSP()
    context.route("**/*", csp)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/dashboard/planner/")
    page.fill("#id_username", "designer")
    page.fill("#id_password", "pw")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/dashboard/planner/")
    page.goto(f"{live_server.url}/dashboard/planner/")  # through the strict policy
    page.select_option("#id_dataset", "vote")
    for box in page.locator("input[name=methods]").all():
        box.set_checked(box.get_attribute("value") in ("oue", "mrr"))
    page.fill("#id_epsilons", "1, 4")
    page.fill("#id_thetas", "0.7, 0.9")
    page.fill("#id_reps", "2")
    page.get_by_role("button", name="Run the planner").click()
    page.wait_for_url(lambda url: "/dashboard/planner/" in url and url.rstrip("/").split("/")[-1].isdigit())
    page.goto(page.url)  # through the strict policy
    page.wait_for_function("['chart-epsilon', 'chart-theta', 'chart-curve'].every("
                           "(id) => window.Chart.getChart(document.getElementById(id)))")
    lines = page.evaluate(
        "window.Chart.getChart(document.getElementById('chart-epsilon')).data.datasets.map(d => d.label)")
    assert lines == ["oue (95 % interval)", "oue interval", "oue", "oue: private majority rule", "oue band",
                     "oue: best old rule, down to 1 point below", "No privacy", "Target",
                     "Always guessing the most frequent class: 61.4 %"]  # vote: 267 democrats of 435
    assert page.locator("tr.recommended").count() == 1
    if os.environ.get("DASHBOARD_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["DASHBOARD_SCREENSHOTS"]) / "dashboard_planner.png"), full_page=True)
    recommended = page.locator("tr.recommended th").inner_text()
    page.locator("tr.recommended").get_by_role("button", name="Apply").click()
    page.wait_for_selector(".messages li.success")
    assert "now uses" in page.locator(".messages").inner_text()
    draft.refresh_from_db()
    assert draft.mode == ("mrr" if recommended.startswith("mrr") else "ldp")
    assert errors == [] and page.evaluate("window.__cspViolations") == []
    context.close()
