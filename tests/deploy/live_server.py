"""A production web process for the slow-client and log tests: a fresh PostgreSQL database migrated by
docker/migrate.py, an open survey with honest reports to POST, and gunicorn started with docker/gunicorn.conf.py on
the production settings (COINFLIP_PRODUCTION=1), as the image runs it — on loopback only."""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.integration.processes import BIN, Process, free_port, wait_for

from .production import PYTHON, ROOT, production_env

HTTPS = {"X-Forwarded-Proto": "https"}  # what the TLS-terminating proxy adds
SETUP = """
import json
import numpy as np
from survey_app.protocol import get_protocol
from tests.factories import make_survey
survey = make_survey("slow")
rng = np.random.default_rng(7)
protocol = get_protocol(survey)
reports = [protocol.encode(np.array([[2, 51.5]]), np.array([1]), rng)[0] for _ in range(%d)]
print(json.dumps({"slug": survey.slug, "reports": reports}))
"""


def server_url() -> str:
    """The PostgreSQL server of the test run (DATABASE_URL, as tests/settings.py defaults it), without a database."""
    parts = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    return urlunsplit(parts._replace(path=""))


@contextlib.contextmanager
def production_database(name: str, reports: int = 400):
    """(DATABASE_URL, survey data) of a fresh, migrated database holding one open survey; dropped afterwards."""
    admin = server_url() + "/postgres"
    name = f"{name}_{os.getpid()}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    url = f"{server_url()}/{name}"
    try:
        env = production_env(DATABASE_URL=url, DJANGO_ALLOWED_HOSTS="127.0.0.1")
        subprocess.run([PYTHON, "docker/migrate.py"], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
        out = subprocess.run([PYTHON, "manage.py", "shell", "-v", "0", "-c", SETUP % reports], cwd=ROOT, env=env,
                             check=True, capture_output=True, text=True, timeout=120).stdout
        yield url, json.loads(out.strip().splitlines()[-1])
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def production_gunicorn(database_url: str, log: Path, *options: str, **variables: str):
    """gunicorn -c docker/gunicorn.conf.py (plus ``options``) with the compose defaults (2 workers × 4 threads) and
    ``variables``; yields (port, process). No Redis: a report POST only writes to PostgreSQL."""
    port = free_port()
    env = production_env(**{"DATABASE_URL": database_url, "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
                            "COINFLIP_TRUSTED_PROXIES": "1", "GUNICORN_BIND": f"127.0.0.1:{port}",
                            "WEB_CONCURRENCY": "2", "GUNICORN_THREADS": "4",
                            "DJANGO_STATIC_ROOT": str(log.parent / "static"), **variables})
    web = Process([str(BIN / "gunicorn"), "-c", "docker/gunicorn.conf.py", *options, "coinflip.wsgi:application"],
                  env, log).start()
    try:
        def listening():
            if web.popen.poll() is not None:
                return True
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
            return False
        wait_for(listening, 60, "gunicorn", interval=0.2)
        assert web.popen.poll() is None, web.log()
        yield port, web
    finally:
        web.stop()


def raw_request(port: int, data: bytes, timeout: float = 10, source: str = "127.0.0.1") -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (or ``timeout``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as sock:
        sock.sendall(data)
        chunks, deadline = [], time.monotonic() + timeout
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks)
