"""``manage.py check --deploy`` is clean under the production settings with only the four required variables set,
and the production settings refuse to start without a secret key (subprocesses: the settings read the environment
once, at import)."""
import subprocess

import pytest

from .production import PYTHON, ROOT, production_env

REQUIRED = {"DJANGO_ALLOWED_HOSTS": "survey.example.org", "DATABASE_URL": "postgres://coinflip@127.0.0.1:5432/coinflip",
            "REDIS_URL": "redis://127.0.0.1:6379/11"}


def manage(*args, **env):
    return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=production_env(**env), capture_output=True,
                          text=True, timeout=120)


def test_check_deploy_prints_no_warning():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **REQUIRED)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stderr and "security.W" not in result.stderr


def test_turning_off_a_protection_is_reported():
    """The check is live: dropping the HTTPS redirect or HSTS preload is a warning."""
    result = manage("check", "--deploy", "--fail-level", "WARNING", DJANGO_SECURE_SSL_REDIRECT="0",
                    DJANGO_SECURE_HSTS_PRELOAD="0", **REQUIRED)
    assert result.returncode != 0
    assert "security.W008" in result.stderr and "security.W021" in result.stderr


def test_production_values():
    code = ("from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, "
            "s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
            "getattr(s, 'SECURE_PROXY_SSL_HEADER', None), s.CSRF_TRUSTED_ORIGINS, "
            "s.STORAGES['staticfiles']['BACKEND'])")
    result = manage("shell", "-v", "0", "-c", code, COINFLIP_TRUSTED_PROXIES="1",
                    DJANGO_CSRF_TRUSTED_ORIGINS="https://survey.example.org, https://www.survey.example.org",
                    **REQUIRED)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "True 31536000 True True True ('HTTP_X_FORWARDED_PROTO', 'https') "
        "['https://survey.example.org', 'https://www.survey.example.org'] "
        "whitenoise.storage.CompressedManifestStaticFilesStorage")


@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY"])
def test_production_refuses_to_start_without_a_secret_key(missing):
    env = production_env(**REQUIRED)
    del env[missing]
    result = subprocess.run([PYTHON, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0 and "DJANGO_SECRET_KEY must be set" in result.stderr
