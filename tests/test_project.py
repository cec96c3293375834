"""The Django project starts on the embedded default and serves its front page and API schema."""
import pytest
from django.conf import settings


def test_embedded_default_uses_sqlite_and_filesystem_broker(monkeypatch):
    if "DATABASE_URL" in __import__("os").environ:
        pytest.skip("DATABASE_URL is set: not the embedded default")
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    if not settings.REDIS_URL:
        assert settings.CELERY_BROKER_URL == "filesystem://"


@pytest.mark.django_db
def test_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Coinflip" in response.content


@pytest.mark.django_db
def test_openapi_schema(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"openapi" in response.content
