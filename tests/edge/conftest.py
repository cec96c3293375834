"""The edge stack of this folder's tests, once per module: a private PostgreSQL cluster (``cluster.py``) with a
database migrated by docker/migrate.py and an open survey, the static files collected as the image's build stage does,
gunicorn started with docker/gunicorn.conf.py and compose's 2 workers × 4 threads under the production settings, and
Debian's Caddy running docker/Caddyfile in front of it — plain HTTP on loopback (no TLS: the proxy terminates it in
compose, which changes nothing of the framing, buffering and timeouts tested here)."""
from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.deploy.production import PYTHON, ROOT, production_env
from tests.integration.processes import BIN, REDIS_SERVER, Process, free_port, redis_db, wait_for

from .caddy import DEBIAN_CADDY, Caddy
from .cluster import Cluster

#: compose.yml's web service: WEB_CONCURRENCY and GUNICORN_THREADS.
WORKERS, THREADS = 2, 4
SETUP = """
import json
import numpy as np
from survey_app.protocol import get_protocol
from tests.factories import make_survey
survey = make_survey("edge")
rng = np.random.default_rng(25)
protocol = get_protocol(survey)
reports = [protocol.encode(np.array([[i %% 3, 20.0 + i %% 60]]), np.array([i %% 2]), rng)[0] for i in range(%d)]
print(json.dumps({"survey_id": survey.id, "slug": survey.slug, "reports": reports}))
"""


@dataclass
class Stack:
    cluster: Cluster
    database_url: str
    survey: dict
    gunicorn: Process
    gunicorn_port: int
    caddy: Caddy
    static_path: str
    env: dict

    def stored(self) -> int:
        """The survey's stored reports (inbox and folded)."""
        with psycopg.connect(self.database_url, connect_timeout=5) as connection:
            return connection.execute(
                "SELECT (SELECT count(*) FROM survey_app_pendingreport WHERE survey_id = %(id)s)"
                " + (SELECT count(*) FROM survey_app_report WHERE survey_id = %(id)s)",
                {"id": self.survey["survey_id"]}).fetchone()[0]

    def nonces(self) -> tuple[int, int]:
        """(rows, distinct nonces) of the survey's stored reports that carry a nonce (inbox and folded)."""
        with psycopg.connect(self.database_url, connect_timeout=5) as connection:
            return connection.execute(
                "SELECT count(*), count(DISTINCT nonce) FROM (SELECT nonce FROM survey_app_pendingreport WHERE"
                " survey_id = %(id)s AND nonce IS NOT NULL UNION ALL SELECT nonce FROM survey_app_report WHERE"
                " survey_id = %(id)s AND nonce IS NOT NULL) AS stored", {"id": self.survey["survey_id"]}).fetchone()

    def worker_pids(self) -> list[int]:
        """gunicorn's worker processes (its master's children)."""
        master = self.gunicorn.popen.pid
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError):
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                    pids.append(int(stat.parent.name))
        return pids

    def body(self, index: int) -> bytes:
        return json.dumps({"report": self.survey["reports"][index % len(self.survey["reports"])]}).encode()

    @property
    def reports_path(self) -> str:
        return f"/api/surveys/{self.survey['slug']}/reports/"


#: What each gunicorn worker logs once its ``post_worker_init`` (docker/gunicorn.conf.py) is done and it serves.
WARMED = r"warmed the protocols|protocol warm-up skipped"


def start_gunicorn(env: dict, log: Path, **variables: str) -> tuple[Process, int]:
    """gunicorn -c docker/gunicorn.conf.py with ``env`` and ``variables`` on a free port, once every worker serves."""
    port = free_port()
    web = Process([str(BIN / "gunicorn"), "-c", "docker/gunicorn.conf.py", "coinflip.wsgi:application"],
                  {**env, "GUNICORN_BIND": f"127.0.0.1:{port}", **variables}, log).start()

    def listening():
        if web.popen.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{web.log()[-3000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
        return False
    wait_for(listening, 60, "gunicorn", interval=0.2)
    workers = int(variables.get("WEB_CONCURRENCY", env["WEB_CONCURRENCY"]))
    wait_for(lambda: len(re.findall(WARMED, web.log())) >= workers, 120, "gunicorn's workers to warm up", interval=0.2)
    return web, port


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not DEBIAN_CADDY.exists():
        pytest.skip("Debian's caddy is not installed (apt-get install caddy; .ci/run does)")
    root = tmp_path_factory.mktemp("edge")
    cluster = Cluster(root / "pg").start()
    started: list[Process] = []
    try:
        with psycopg.connect(cluster.url(), autocommit=True) as connection:
            connection.execute("CREATE DATABASE coinflip")
        url = cluster.url("coinflip")
        static = root / "static"
        env = production_env(DATABASE_URL=url, REDIS_URL=f"{REDIS_SERVER}/{redis_db()}",
                             DJANGO_ALLOWED_HOSTS="127.0.0.1", COINFLIP_TRUSTED_PROXIES="1",
                             FORWARDED_ALLOW_IPS="127.0.0.1", DJANGO_STATIC_ROOT=str(static),
                             # Plain HTTP on loopback: no redirect to HTTPS (Caddy says X-Forwarded-Proto: http).
                             DJANGO_SECURE_SSL_REDIRECT="0", WEB_CONCURRENCY=str(WORKERS),
                             GUNICORN_THREADS=str(THREADS))
        collect = subprocess.Popen([PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # meanwhile: no database
        subprocess.run([PYTHON, "docker/migrate.py"], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
        assert collect.wait(300) == 0, "collectstatic failed"
        out = subprocess.run([PYTHON, "manage.py", "shell", "-v", "0", "-c", SETUP % 300], cwd=ROOT, env=env,
                             check=True, capture_output=True, text=True, timeout=120).stdout
        survey = json.loads(out.strip().splitlines()[-1])
        web, port = start_gunicorn(env, root / "gunicorn.log")
        started.append(web)
        caddy = Caddy(root / "caddy", port).start()
        started.append(caddy)
        yield Stack(cluster, url, survey, web, port, caddy, "/static/js/bits.mjs", env)
    finally:
        for process in reversed(started):
            process.stop(timeout=5)
        cluster.stop()
