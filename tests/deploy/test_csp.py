"""The Content-Security-Policy (django-csp) on every page, and every page's HTML within it: no inline script, style,
event handler or javascript: URL except the survey page's import map and Swagger UI's one <style>, each allowed by
its hash. The browser's own verdict is in test_browser.py."""
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import User
from django.urls import reverse

from survey_app import integrity
from survey_app.models import InvitationToken
from survey_app.services import generate_tokens
from tests.factories import make_survey

from .csp import InlineContent, directives, source_hash, violations

pytestmark = pytest.mark.django_db


@pytest.fixture
def surveys():
    open_survey = make_survey("open-one")
    invited = make_survey("invited", access="tokens")
    tokens = generate_tokens(invited, 2)
    InvitationToken.objects.filter(pk=tokens[1].pk).update(used=True)
    make_survey("closed-one", status="closed")
    return {"open": open_survey, "invited": invited, "token": tokens[0].token, "used": tokens[1].token}


def public_pages(s):
    return [
        ("/", 200), (f"/s/{s['open'].slug}/", 200), (f"/s/{s['open'].slug}/thanks/", 200),
        (f"/s/{s['invited'].slug}/i/", 200), (f"/s/{s['invited'].slug}/t/{s['token']}/", 302),
        (f"/s/{s['invited'].slug}/", 403),
        (f"/s/{s['invited'].slug}/t/{s['used']}/", 409), ("/s/closed-one/", 410), ("/s/nothing-here/", 404),
        ("/admin/login/", 200), ("/api/docs/", 200), (f"/api/surveys/{s['open'].slug}/protocol/", 200),
    ]


def admin_pages(s):
    """The admin's index, and the list and add pages of every registered model, plus a survey's change page."""
    pages = ["/admin/", reverse("admin:survey_app_survey_import"),
             reverse("admin:survey_app_survey_change", args=[s["open"].pk])]
    for model in (model for model in apps.get_models() if admin.site.is_registered(model)):
        meta = model._meta
        pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        if admin.site.get_model_admin(model).has_add_permission(type("R", (), {"user": User(is_superuser=True,
                                                                                         is_active=True)})()):
            pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
    return pages


def check(response, path):
    header = response.get("Content-Security-Policy")
    assert header, f"{path}: no Content-Security-Policy"
    if response["Content-Type"].startswith("text/html"):
        assert not any(tag in response.content.decode() for tag in ("{#", "{%", "{{")), f"{path}: template syntax"
        problems = violations(response.content.decode(), header)
        assert problems == [], f"{path}: {problems}"
    return directives(header)


def test_every_public_page_is_within_the_policy(client, surveys):
    for path, status in public_pages(surveys):
        response = client.get(path)
        assert response.status_code == status, path
        check(response, path)


def test_every_admin_and_dashboard_page_is_within_the_policy(client, surveys):
    client.force_login(User.objects.create_superuser("boss", "boss@example.org", "pw-long-enough-1"))
    for path in [*admin_pages(surveys), "/dashboard/", f"/dashboard/surveys/{surveys['open'].slug}/"]:
        response = client.get(path)
        assert response.status_code == 200, path
        check(response, path)


def test_the_policy(client):
    policy = check(client.get("/"), "/")
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'", settings.COINFLIP_CSP_CELERY_BEAT_SCRIPT]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["form-action"] == ["'self'"]


def test_survey_page_allows_exactly_its_import_map(client, surveys):
    response = client.get(f"/s/{surveys['open'].slug}/")
    policy = check(response, "survey page")
    code = integrity.randomizer()
    assert policy["script-src"] == ["'self'", settings.COINFLIP_CSP_CELERY_BEAT_SCRIPT, code.import_map_csp_source]
    html = response.content.decode()
    assert f'<script type="importmap">{code.import_map}</script>' in html
    assert f'<script type="module" src="{code.entry.url}" integrity="{code.entry.integrity}"></script>' in html
    for module in code.modules:
        assert f'<link rel="modulepreload" href="{module.url}" integrity="{module.integrity}">' in html
        assert f"<code>{'<wbr>'.join(module.sha256_parts)}<wbr></code>" in html
    shown = re.search(r'<code class="randomizer-hash">(.*?)</code>', html).group(1).replace("<wbr>", "")
    assert shown == code.sha256
    assert "docs/verify-randomizer.md" in html  # no COINFLIP_VERIFY_RANDOMIZER_URL: the page names the document


def test_verify_link_when_configured(client, surveys, settings):
    settings.COINFLIP_VERIFY_RANDOMIZER_URL = "https://example.org/coinflip/docs/verify-randomizer.md"
    html = client.get(f"/s/{surveys['open'].slug}/").content.decode()
    assert '<a href="https://example.org/coinflip/docs/verify-randomizer.md">how to verify the randomizer</a>' in html


def test_swagger_ui_is_served_locally_and_its_style_hash_is_the_installed_templates():
    """drf-spectacular-sidecar serves Swagger UI (no CDN); COINFLIP_CSP_SWAGGER_UI_STYLE must be the hash of the
    <style> of the installed drf-spectacular template (recompute it after upgrading drf-spectacular)."""
    import drf_spectacular

    template = Path(drf_spectacular.__file__).parent / "templates" / "drf_spectacular" / "swagger_ui.html"
    style = re.search(r"<style>(.*?)</style>", template.read_text(), re.S).group(1)
    assert settings.COINFLIP_CSP_SWAGGER_UI_STYLE == source_hash(style)
    assert settings.SPECTACULAR_SETTINGS["SWAGGER_UI_DIST"] == "SIDECAR"


def test_celery_beat_admin_script_hash_is_the_installed_templates(client):
    """COINFLIP_CSP_CELERY_BEAT_SCRIPT must be the hash of the inline script of django-celery-beat's periodic-task form
    (the crontab help; the rest of that form works without it)."""
    client.force_login(User.objects.create_superuser("boss", "boss@example.org", "pw-long-enough-1"))
    page = InlineContent()
    page.feed(client.get(reverse("admin:django_celery_beat_periodictask_add")).content.decode())
    assert [source_hash(text) for _, text in page.scripts] == [settings.COINFLIP_CSP_CELERY_BEAT_SCRIPT]


def test_swagger_ui_loads_its_script_from_a_url(client):
    """/api/docs/ must be drf-spectacular's split view: its initialising script comes from ?script (a CSP-allowed
    URL), not inline."""
    html = client.get("/api/docs/").content.decode()
    assert re.search(r'<script src="/api/docs/\?[^"]*script', html), html
    assert "cdn.jsdelivr.net" not in html and "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
