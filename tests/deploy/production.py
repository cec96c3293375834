"""The environment of a production process (COINFLIP_PRODUCTION=1) for the subprocess tests."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SECRET_KEY = "test-only-9f3c1a7e5b2d4c6e8a0b1d3f5e7a9c2b4d6f8e0a1c3e5g7i9k"


def production_env(**extra: str) -> dict:
    """A clean environment: nothing of the test run's DJANGO_*/COINFLIP_*/CELERY_* variables, the production flag,
    a secret key, and ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "CELERY_", "COINFLIP_", "PYTEST_", "GUNICORN_", "WEB_CONCURRENCY"))
           and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_SETTINGS_MODULE="coinflip.settings", COINFLIP_PRODUCTION="1", DJANGO_SECRET_KEY=SECRET_KEY,
               PYTHONUNBUFFERED="1")
    env.update(extra)
    return env
