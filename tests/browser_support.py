"""What every browser test shares: Debian's Chromium driven by Playwright (the ``browser`` fixture is in
tests/conftest.py). A browser test module sets ``pytestmark = BROWSER_TEST``: it is skipped where Chromium is not
installed (.ci/run installs it) and runs against the live server with a transactional database."""
import json
import os
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BROWSER_TEST = [
    pytest.mark.skipif(not shutil.which(CHROMIUM),
                       reason=f"Chromium not installed at {CHROMIUM} (.ci/run installs it)"),
    pytest.mark.django_db(transaction=True),
]


def answer_daily_73_yes(page):
    """On a survey of ``tests.factories.make_habits_survey``: smokes daily, aged 73.25, ill this year; ends on the
    review step."""
    page.get_by_label("daily").check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your age (18 to 98)").fill("73.25")
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Review what will be sent").click()


def wait_for_credential(page, slug: str, timeout_s: float = 20.0):
    """Wait until the page keeps a finished credential for survey ``slug`` (an invitation redeemed at the first
    answer). Polled through page.evaluate, which the page's Content-Security-Policy allows (wait_for_function's
    string predicates need eval)."""
    import time

    deadline = time.monotonic() + timeout_s
    while "signature" not in (page.evaluate(f"localStorage.getItem('coinflip:report:{slug}')") or ""):
        assert time.monotonic() < deadline, "the invitation was not redeemed"
        page.wait_for_timeout(50)


def open_page(browser, url: str):
    """A fresh browser context on ``url``: (context, page, the POST requests it sends, its uncaught errors)."""
    context = browser.new_context()
    page = context.new_page()
    posts, errors = [], []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return context, page, posts, errors


def send_as_shown(page, slug: str, posts: list, errors: list) -> dict:
    """Click "Send" on the review step; check that exactly what the page showed left it (one POST, no page error)
    and return the body sent."""
    shown = json.loads(page.locator("pre.payload").inner_text())
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{slug}/thanks/")
    assert errors == []
    assert len(posts) == 1
    body = json.loads(posts[0].post_data)
    assert body == shown  # what the respondent saw is exactly what was sent
    return body


# -- the keyboard (tests/browser/test_keyboard.py, test_question_types.py) --------------------------------------

def focused(page) -> dict:
    """What has the focus: its tag, accessible text, radio group, id and whether a focus outline is drawn."""
    return page.evaluate("""() => {
        const node = document.activeElement;
        const style = getComputedStyle(node);
        return {tag: node.tagName.toLowerCase(), text: (node.textContent || "").trim(), group: node.name || "",
                id: node.id || "",
                outlined: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0};
    }""")


class Keyboard:
    """The keyboard, counting the Tab presses."""

    def __init__(self, page):
        self.page, self.tabs = page, 0

    def press(self, key: str):
        self.page.keyboard.press(key)

    def tab(self) -> dict:
        self.tabs += 1
        self.page.keyboard.press("Tab")
        now = focused(self.page)
        assert now["outlined"], f"no visible focus on {now}"
        return now

    def tab_to(self, text: str, limit: int) -> int:
        """Tab until the focused element's text is ``text``; how many presses (at most ``limit``)."""
        for presses in range(1, limit + 1):
            if self.tab()["text"] == text:
                return presses
        raise AssertionError(f"{text!r} not reached in {limit} Tab presses")
