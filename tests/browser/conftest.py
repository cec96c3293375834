"""Fixtures of the browser tests in this folder."""
import pytest


@pytest.fixture
def page(browser):
    """A desktop-sized page whose uncaught script errors fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == []
