"""The Django project: the embedded default (SQLite + filesystem broker) and the front page / API schema."""
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from aggregator.management.commands.demo import DEMOS
from survey_app.models import Survey
from tests.factories import make_survey

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


def home_links(client) -> dict[str, str]:
    """The home page's links, {text: href}."""
    html = client.get("/").content.decode()
    main = html[html.index("<main"):html.index("</main>")]
    return {unescape(re.sub(r"<[^>]+>|\s+", " ", text)).strip(): href
            for href, text in re.findall(r'<a href="([^"]+)"[^>]*>(.*?)</a>', main, re.S)}


@pytest.mark.django_db
def test_home_page_leads_to_the_demo_surveys_the_staff_pages_and_the_docs(client):
    """Issue 12 item 8: the open demo surveys (and no other survey: a survey's link is its designer's to share), the
    designer's workspace, the dashboard, the planner, the administration and the API documentation; every link
    answers."""
    links = home_links(client)
    assert "No demo survey is open on this server" in client.get("/").content.decode()
    assert links == {"Your surveys": "/design/", "Dashboard": "/dashboard/", "Planner": "/dashboard/planner/",
                     "Administration": "/admin/", "API documentation": "/api/docs/"}
    (ldp_slug, ldp_title, _), (mrr_slug, mrr_title, _) = DEMOS
    Survey.objects.filter(pk=make_survey(slug=ldp_slug).pk).update(title=ldp_title)
    Survey.objects.filter(pk=make_survey(slug=mrr_slug, mode="mrr").pk).update(title=mrr_title)
    make_survey(slug="private-health")  # open, by link, but not a demo
    links = home_links(client)
    assert links[ldp_title] == f"/s/{ldp_slug}/" and links[mrr_title] == f"/s/{mrr_slug}/"
    assert list(links)[:2] == [ldp_title, mrr_title] and "/s/private-health/" not in links.values()
    assert client.get(links[ldp_title]).status_code == 200 and client.get(links["API documentation"]).status_code == 200
    for staff_page in ("Your surveys", "Dashboard", "Planner", "Administration"):  # staff only: the sign-in page
        assert client.get(links[staff_page]).status_code == 302
    # A closed demo, or one turned into an invitation-only survey, is not offered.
    Survey.objects.filter(slug=ldp_slug).update(status="closed")
    Survey.objects.filter(slug=mrr_slug).update(access="tokens")
    assert not {f"/s/{ldp_slug}/", f"/s/{mrr_slug}/"} & set(home_links(client).values())


@pytest.mark.django_db
def test_openapi_schema_lists_the_report_api(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/surveys/{slug}/reports/" in response.content


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    """``makemigrations --check``: the models and the migrations describe the same schema (a change to a field's
    index or constraint without its migration would reach production silently)."""
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
