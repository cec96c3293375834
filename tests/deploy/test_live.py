"""The production processes for real (Docker cannot run here): gunicorn with docker/gunicorn.conf.py and a Celery
worker, both on the production settings (COINFLIP_PRODUCTION=1), against the local PostgreSQL (database
``helper_d_live``, created and dropped here) and Redis (database 11). What the image's build and entry point do is
done the same way: static files collected with the Dockerfile's build environment (no database, no Redis) and the
database migrated by docker/migrate.py.

Checked through HTTP, as a TLS-terminating proxy would forward it (``X-Forwarded-Proto: https``,
``COINFLIP_TRUSTED_PROXIES=1``): the health check, the HTTPS redirect, a survey page and its security headers, the
randomizer's modules served by whitenoise (JavaScript type, immutable long cache, compressed, matching their
integrity), the verification procedure of docs/verify-randomizer.md, a report POSTed through the API and folded by the
worker, and an access log with no address, user agent, query string or token. One test function: its processes
and database are shared by every step, and xdist could not split it across workers.
"""
import base64
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import redis

from survey_app.credentials import finish_credential, start_credential
from tests.integration.processes import BIN, Process, Worker, celery_client, free_port, wait_for

from .production import PYTHON, ROOT, production_env

pytestmark = pytest.mark.slow
REDIS_URL = os.environ.get("COINFLIP_TEST_REDIS", "redis://127.0.0.1:6379") + "/11"
LIVE_DB = "helper_d_live"
HTTPS = {"X-Forwarded-Proto": "https"}  # what the TLS-terminating proxy adds


def server_url() -> str:
    """The PostgreSQL server of the test run (DATABASE_URL, as tests/settings.py defaults it), without a database."""
    parts = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    return urlunsplit(parts._replace(path=""))


@pytest.fixture
def live_database():
    admin = server_url() + "/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{LIVE_DB}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{LIVE_DB}"')
    yield f"{server_url()}/{LIVE_DB}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{LIVE_DB}" WITH (FORCE)')


@pytest.fixture
def live_redis():
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.flushdb()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"no Redis server at {REDIS_URL} ({exc}); set COINFLIP_TEST_REDIS")
    yield REDIS_URL
    client.flushdb()
    client.close()


def dockerfile_build_env() -> dict:
    """The variables the Dockerfile's build stage sets for ``collectstatic``."""
    text = (ROOT / "docker" / "Dockerfile").read_text().replace("\\\n", " ")
    command = re.search(r"^RUN (.*?manage\.py collectstatic[^&]*)", text, re.M).group(1)
    words = shlex.split(command)
    return dict(w.split("=", 1) for w in words[:words.index("python")])


def run(argv, env, timeout=120):
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{argv}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def get(url, headers=HTTPS, **extra):
    """(status, headers, body) of a GET, without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    request = urllib.request.Request(url, headers={**headers, **extra})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def post_json(url, body, headers=HTTPS):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={**headers, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def sri(body: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode()


def check_security_headers(headers, html: bool, referrer: str = "same-origin"):
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == referrer
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Server"] == "gunicorn"  # no version
    assert "X-Powered-By" not in headers
    if html:
        assert headers["X-Frame-Options"] == "DENY"
        policy = headers["Content-Security-Policy"]
        assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy


def test_production_processes_end_to_end(live_database, live_redis, tmp_path):
    static_root = tmp_path / "static"
    # The image's build stage: collectstatic with the Dockerfile's environment (no database or Redis reachable).
    build_env = {**production_env(), **dockerfile_build_env(), "DJANGO_STATIC_ROOT": str(static_root),
                 "COINFLIP_VAR_DIR": str(tmp_path / "build-var")}
    run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"], build_env)
    assert (static_root / "staticfiles.json").exists()

    port = free_port()
    env = production_env(DATABASE_URL=live_database, REDIS_URL=live_redis, DJANGO_STATIC_ROOT=str(static_root),
                         DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost", COINFLIP_TRUSTED_PROXIES="1",
                         GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="1", GUNICORN_THREADS="4",
                         DJANGO_LOG_LEVEL="INFO")
    # The image's entry point (COINFLIP_MIGRATE=1): docker/migrate.py, then the data this test needs.
    run([PYTHON, "docker/migrate.py"], env)
    data = json.loads(run([PYTHON, "manage.py", "shell", "-v", "0", "-c",
                           (Path(__file__).parent / "live_setup.py").read_text()], env).strip().splitlines()[-1])

    web = Process([str(BIN / "gunicorn"), "-c", "docker/gunicorn.conf.py", "coinflip.wsgi:application"], env,
                  tmp_path / "gunicorn.log").start()
    worker = Worker("live", env, tmp_path / "worker.log")
    try:
        worker.start(timeout=90)
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: web.popen.poll() is not None or get(base + "/healthz", headers={})[0] == 200, 60,
                 "gunicorn's /healthz", interval=0.2)
        assert web.popen.poll() is None, web.log()
        check_health_and_redirect(base)
        modules = check_survey_page(base, data)
        check_static_modules(base, modules)
        check_verification_procedure(base, data, tmp_path)
        check_report_and_fold(base, data, env)
    finally:
        web.stop()
        worker.stop()
    check_access_log(web.log(), data)


def check_health_and_redirect(base):
    status, headers, body = get(base + "/healthz", headers={})
    assert (status, body) == (200, b"ok\n")
    status, headers, _ = get(base + "/s/live/", headers={})  # plain HTTP, not through the proxy
    assert status == 301 and headers["Location"] == base.replace("http://", "https://") + "/s/live/"


def check_survey_page(base, data) -> dict:
    status, headers, body = get(f"{base}/s/{data['slug']}/")
    assert status == 200
    check_security_headers(headers, html=True, referrer="no-referrer")  # a respondent page
    html = body.decode()
    import_map_text = re.search(r'<script type="importmap">(.*?)</script>', html).group(1)
    digest = base64.b64encode(hashlib.sha256(import_map_text.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in headers["Content-Security-Policy"].split("script-src", 1)[1].split(";")[0]
    import_map = json.loads(import_map_text)
    assert all(re.search(r"\.[0-9a-f]{12}\.m?js$", url) for url in import_map["integrity"])  # hashed names
    assert set(import_map["imports"].values()) <= set(import_map["integrity"])
    status, headers, body = get(f"{base}/s/{data['invited']}/i/")  # an invitation page (the token in the fragment)
    assert status == 200 and headers["Referrer-Policy"] == "no-referrer"
    status, headers, body = get(f"{base}/s/{data['invited']}/t/{data['token']}/")  # a link of the earlier form
    assert status == 302 and headers["Location"].endswith(f"/s/{data['invited']}/i/#{data['token']}")
    return import_map["integrity"]


def check_static_modules(base, modules: dict):
    for url, integrity in modules.items():
        status, headers, body = get(base + url)
        assert status == 200 and sri(body) == integrity, url
        assert headers["Content-Type"].startswith("text/javascript"), headers["Content-Type"]
        assert "immutable" in headers["Cache-Control"] and "max-age=315360000" in headers["Cache-Control"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        status, headers, compressed = get(base + url, **{"Accept-Encoding": "gzip"})
        if headers.get("Content-Encoding") == "gzip":
            assert gzip.decompress(compressed) == body, url
        else:  # whitenoise keeps no .gz where gzip saves under 5 % (a module of a few bytes)
            assert compressed == body and len(gzip.compress(body)) >= 0.95 * len(body), url


def check_verification_procedure(base, data, tmp_path):
    """docs/verify-randomizer.md, as written: its script against the page, then sha256sum in the source's static/."""
    doc = (ROOT / "docs" / "verify-randomizer.md").read_text()
    script = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    script = "\n".join(line[3:] if line.startswith("   ") else line for line in script.splitlines())  # list indent
    (tmp_path / "verify_randomizer.py").write_text(script)
    # The proxy's header, for every request urllib makes (the script itself is unchanged).
    runner = ("import sys, urllib.request; opener = urllib.request.build_opener(); "
              "opener.addheaders = [('X-Forwarded-Proto', 'https')]; urllib.request.install_opener(opener); "
              "sys.argv = ['verify_randomizer.py', sys.argv[1]]; exec(open('verify_randomizer.py').read())")
    page = f"{base}/s/{data['slug']}/"
    out = subprocess.run([PYTHON, "-c", runner, page], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    fingerprint = re.search(r"fingerprint ([0-9a-f]{64})", out.stdout).group(1)
    if shutil.which("sha256sum"):
        checked = subprocess.run(["sha256sum", "-c", str(tmp_path / "randomizer.sha256sum")], cwd=ROOT / "static",
                                 capture_output=True, text=True)
        assert checked.returncode == 0 and "FAILED" not in checked.stdout, checked.stdout
    assert hashlib.sha256((tmp_path / "randomizer.sha256sum").read_bytes()).hexdigest() == fingerprint


def check_report_and_fold(base, data, env):
    url = f"{base}/api/surveys/{data['slug']}/reports/"
    status, headers, body = post_json(url, {"report": data["report"]})
    assert status == 201, body
    check_security_headers(headers, html=False)
    # An invitation as a browser uses it (issue 11): redeem the token for a blind signature, then report with the
    # unblinded credential; the token never rides with the report, and each credential counts once.
    status, _, body = get(f"{base}/api/surveys/{data['invited']}/protocol/")
    assert status == 200
    blinded, pending = start_credential(json.loads(body)["credential"])
    status, _, body = post_json(f"{base}/api/surveys/{data['invited']}/invitations/redeem/",
                                {"token": data["token"], "blinded_msg": blinded, "key_id": pending.key_id})
    assert status == 200, body
    credential = finish_credential(pending, json.loads(body)["blind_signature"])
    invited = f"{base}/api/surveys/{data['invited']}/reports/"
    assert post_json(invited, {"report": data["invited_report"], "credential": credential})[0] == 201
    assert post_json(invited, {"report": data["invited_report"], "credential": credential})[0] == 409  # spent
    # A model includes whole UTC days only: date these reports two days back, as if their day had ended.
    run([PYTHON, "manage.py", "shell", "-v", "0", "-c",
         "from survey_app.models import Survey; from tests.factories import days_pass; "
         f"days_pass(Survey.objects.get(pk={data['survey_id']}))"], env)
    with celery_client(REDIS_URL) as client:
        version = client.send_task("aggregator.tasks.retrain_survey", args=[data["survey_id"]]).get(timeout=60)
    assert version == 1
    status, _, body = get(f"{base}/api/surveys/{data['slug']}/model/")
    assert status == 200
    model = json.loads(body)
    assert (model["version"], model["report_count"]) == (1, 401)


def check_access_log(log: str, data):
    access = [line for line in log.splitlines() if re.search(r'"(GET|POST|HEAD) /', line)]
    assert any(f'"GET /s/{data["invited"]}/t/<token>/ HTTP/1.1" 302' in line for line in access), access
    assert any(f'"POST /api/surveys/{data["slug"]}/reports/ HTTP/1.1" 201' in line for line in access)
    assert data["token"] not in log
    for line in access:
        assert "127.0.0.1" not in line and "Python-urllib" not in line and "?" not in line, line
