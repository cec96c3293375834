"""The Django project: the embedded default (SQLite + filesystem broker) and the front page / API schema."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_embedded_default_runs_on_sqlite_and_filesystem_broker(tmp_path):
    """With no DATABASE_URL / REDIS_URL, the product migrates into SQLite under COINFLIP_VAR_DIR and uses kombu's
    filesystem transport (what `make run` relies on)."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env["COINFLIP_VAR_DIR"] = str(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    assert (tmp_path / "db.sqlite3").stat().st_size > 0
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_BROKER_URL)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                         env={**env, "DJANGO_SETTINGS_MODULE": "coinflip.settings"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["django.db.backends.sqlite3", "filesystem://"]


@pytest.mark.django_db
def test_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Coinflip" in response.content


@pytest.mark.django_db
def test_openapi_schema_lists_the_report_api(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/surveys/{slug}/reports/" in response.content
