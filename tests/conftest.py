"""Shared fixtures."""
import datetime
import time
from pathlib import Path

import numpy as np
import pytest
from django.core.servers.basehttp import WSGIServer

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "data" / "datasets"

# pytest-django's live server (Django's ThreadedWSGIServer) listens with a queue of 10 connections; the race tests
# open 30 at once (tests/survey/test_token_race.py), and one of them was once reset before its answer under a full
# `make test`. The product's servers have their own backlog (gunicorn: 2048); this is the test server's only.
WSGIServer.request_queue_size = 128


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


#: Models are published only outside the last minutes of a UTC day (aggregator.services.PUBLISH_QUIET), and the
#: tests that publish by the real clock (real worker processes) take up to a few minutes: one that starts this close
#: to midnight waits for the new day rather than see no version.
BEFORE_MIDNIGHT = datetime.timedelta(minutes=12)


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """LocaleMiddleware leaves the language of a request active in its thread (a test client's request in German):
    each test starts in the default language, as a new request without Accept-Language would."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _not_across_midnight():
    now = datetime.datetime.now(datetime.UTC)
    midnight = datetime.datetime.combine(now.date() + datetime.timedelta(days=1), datetime.time(), datetime.UTC)
    if midnight - now < BEFORE_MIDNIGHT:
        time.sleep((midnight - now).total_seconds() + 1)
