"""Take the README's screenshots: the respondent page (desktop and phone), the dashboard and the planner.

    .venv/bin/python docs/screenshots/take.py [--keep] [--respondent-only]

Everything runs against a throwaway SQLite database and var directory in a temporary folder (the developer's
``var/db.sqlite3`` is never touched): ``migrate``, ``demo --respondents 2000``, then ``runserver`` on a free port with
eager Celery (the planner's job runs inside its request, so no worker is needed). Debian's Chromium, driven by
Playwright, signs in as the demo staff user (``demo`` / $COINFLIP_DEMO_PASSWORD, default "demo") and writes the PNGs
next to this file. ``--keep`` leaves the temporary folder (database, server log) in place and prints its path.

The respondent page is taken in English and in German (a browser whose language is German: Playwright's locale
"de-DE" sends ``Accept-Language: de-DE``), ``respondent-<desktop|phone>[-de][-review].png``; the staff pages in English.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
from tests.browser_support import ARGS, CHROMIUM  # noqa: E402

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SURVEY = "demo-ldp"
DASHBOARD_SURVEY = "demo-mrr"  # its accuracy estimate has an interval at once (README, "The two commands")
USER, PASSWORD = "demo", os.environ.get("COINFLIP_DEMO_PASSWORD", "demo")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(tmp: Path) -> dict:
    env = dict(os.environ)
    for name in ("REDIS_URL", "COINFLIP_PRODUCTION", "DJANGO_STATIC_ROOT", "DJANGO_MEDIA_ROOT"):
        env.pop(name, None)
    env |= {
        "COINFLIP_VAR_DIR": str(tmp / "var"),
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DJANGO_DEBUG": "0",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "COINFLIP_DEMO_PASSWORD": PASSWORD,
        "PYTHONUNBUFFERED": "1",
    }
    return env


def manage(env: dict, *args: str) -> None:
    print("manage.py", " ".join(args), flush=True)
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def wait_until_up(url: str, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"runserver exited with {server.returncode}")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"runserver did not answer {url} within {timeout:.0f} s")


def shoot(page, name: str, full_page: bool = False, until: str | None = None, edge: str = "top") -> None:
    """Save ``name``.png: the viewport, the whole page, or the page from its top down to the ``edge`` ("top" or
    "bottom") of the element ``until`` (a selector)."""
    path = HERE / f"{name}.png"
    clip = None
    if until:
        bottom = page.eval_on_selector(until, f"e => e.getBoundingClientRect().{edge} + window.scrollY")
        width = page.evaluate("document.documentElement.clientWidth")
        clip = {"x": 0, "y": 0, "width": width, "height": bottom + (16 if edge == "bottom" else -8)}
    page.screenshot(path=str(path), full_page=full_page or clip is not None, clip=clip)
    print(f"  {path.relative_to(ROOT)}  ({path.stat().st_size // 1024} KB)", flush=True)


def answer_every_page(page) -> None:
    """Answer each page of the survey (first choice of every question; a number at the middle of its range) until the
    review step."""
    for _ in range(50):
        section = page.locator("section.page:not([hidden])")
        if "review" in (section.get_attribute("class") or ""):
            return
        for group in section.locator("fieldset").all():
            group.locator("input[type=radio]").first.check()
        for field in section.locator("input[type=number]").all():
            low, high = float(field.get_attribute("min")), float(field.get_attribute("max"))
            field.fill(f"{(low + high) / 2:g}")
        for select in section.locator("select").all():
            select.select_option(index=1 if select.locator("option").count() > 1 else 0)
        page.locator("form .nav button[type=submit]").click()
    raise RuntimeError("the survey never reached its review step")


def respondent(browser, base: str, viewport: dict, suffix: str, locale: str = "en-US") -> None:
    context = browser.new_context(viewport=viewport, device_scale_factor=1, locale=locale,
                                  is_mobile=viewport is PHONE, has_touch=viewport is PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/s/{SURVEY}/")
    page.wait_for_selector("section.page:not([hidden]) input")
    page.evaluate("document.activeElement.blur()")  # no focus ring in the picture
    if viewport is PHONE:
        shoot(page, f"respondent-{suffix}")  # where the page lands: it scrolls to its first question
    else:  # the title, the privacy words and the first questions
        shoot(page, f"respondent-{suffix}", until="section.page:not([hidden]) fieldset:nth-of-type(2)",
              edge="bottom")
    answer_every_page(page)
    page.wait_for_selector("pre.payload")
    page.locator("section.review h2").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.querySelector('section.review').getBoundingClientRect().top"
                  " + window.scrollY - 16)")
    shoot(page, f"respondent-{suffix}-review")
    if errors:
        print(f"  page errors on the respondent page ({suffix}): {errors}", flush=True)
    context.close()  # nothing is sent: the review step is as far as the screenshots go


def staff_pages(browser, base: str) -> None:
    context = browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/dashboard/")
    page.fill("#id_username", USER)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/dashboard/")
    shoot(page, "dashboard", full_page=True)

    page.goto(f"{base}/dashboard/surveys/{DASHBOARD_SURVEY}/")
    page.wait_for_function("Array.from(document.querySelectorAll('canvas')).length > 0 && "
                           "Array.from(document.querySelectorAll('canvas')).every((c) => window.Chart.getChart(c))")
    page.wait_for_timeout(800)  # Chart.js animations
    shoot(page, "dashboard-survey", until="#warnings-h")  # down to the charts (not the warnings and versions)

    page.goto(f"{base}/dashboard/planner/")
    page.select_option("#id_dataset", "mushroom")
    for box in page.locator("input[name=methods]").all():
        box.set_checked(box.get_attribute("value") in ("oue", "olh", "mrr"))
    page.fill("#id_reps", "3")
    page.fill("#id_respondents", "2000")
    page.evaluate("document.activeElement.blur()")
    shoot(page, "planner-form", full_page=True)
    started = time.monotonic()
    page.get_by_role("button", name="Run the planner").click()  # eager Celery: the job runs in this request
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1].isdigit(), timeout=600_000)
    page.wait_for_function("['chart-epsilon', 'chart-theta', 'chart-curve'].every("
                           "(id) => window.Chart.getChart(document.getElementById(id)))", timeout=60_000)
    page.wait_for_timeout(800)
    print(f"  planner ran in {time.monotonic() - started:.0f} s", flush=True)
    shoot(page, "planner", full_page=True)
    if errors:
        print(f"  page errors on the staff pages: {errors}", flush=True)
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary database and server log")
    parser.add_argument("--respondent-only", action="store_true",
                        help="only the respondent pages (English and German), not the dashboard and the planner")
    opts = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="coinflip-screenshots-"))
    env = environment(tmp)
    server = None
    try:
        manage(env, "migrate", "--noinput")
        manage(env, "demo", "--respondents", "2000")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = open(tmp / "runserver.log", "w")
        server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                                  cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_until_up(f"{base}/", server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            respondent(browser, base, DESKTOP, "desktop")
            respondent(browser, base, PHONE, "phone")
            respondent(browser, base, DESKTOP, "desktop-de", locale="de-DE")
            respondent(browser, base, PHONE, "phone-de", locale="de-DE")
            if not opts.respondent_only:
                staff_pages(browser, base)
            browser.close()
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        if opts.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
