"""Shared fixtures."""
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "data" / "datasets"


@pytest.fixture
def rng():
    """A seeded generator: every statistical test is reproducible."""
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    return DATASETS


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (tests/browser_support.py), one per test module."""
    import os

    from playwright.sync_api import sync_playwright

    from tests.browser_support import ARGS, CHROMIUM

    # Playwright's sync API keeps an asyncio loop on this thread; the ORM calls in these tests are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
