"""Starting and stopping the servers under load, as compose deploys them: Caddy (docker/Caddyfile, ``proxy.py``) in
front of gunicorn — with the product's WSGI app under docker/gunicorn.conf.py, or with the floor peer under the same
worker class, workers, threads and keep-alive — so that both pay the same proxy.

Both run from the main ``.venv`` (the product's own environment), on free loopback ports, with
``DJANGO_SETTINGS_MODULE`` and ``DATABASE_URL`` / ``REDIS_URL`` set explicitly (never inherited from a test run's
settings). ``DEBUG`` stays off, as in production; ``COINFLIP_PRODUCTION`` too (it would redirect Caddy's plain HTTP
to HTTPS), and gunicorn writes no access log.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import proxy

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"

#: The product: ``coinflip.wsgi`` with the project's settings.
PRODUCT = ("coinflip.wsgi:application", "coinflip.settings")
#: The floor peer: a plain-Django app without DRF (``bench.load.floor``), built by Django's own WSGI factory.
FLOOR = ("django.core.wsgi:get_wsgi_application()", "bench.load.floor")
#: The same view under the product's settings and middleware chain (``bench.load.floor_stack``).
FLOOR_STACK = ("django.core.wsgi:get_wsgi_application()", "bench.load.floor_stack")


@dataclass(frozen=True)
class Gunicorn:
    """gunicorn settings: workers and threads per worker (compose's web service: ``WEB_CONCURRENCY=2``,
    ``GUNICORN_THREADS=4``) of gunicorn's stock ``gthread`` worker; keep-alive as docker/gunicorn.conf.py."""

    workers: int = 2
    threads: int = 4
    keep_alive: int = 5

    def describe(self) -> str:
        return (f"Caddy {proxy.caddy_version()} (docker/Caddyfile) → gunicorn {self.workers} gthread workers × "
                f"{self.threads} thread{'s' * (self.threads != 1)}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def python() -> str:
    """The main venv's interpreter when it exists (the server's own environment), else this one."""
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


#: Database connections persist for the whole run (the settings' default is 60 s): a backend that closed mid-run
#: would take its CPU time out of the accounting (``cpu.py`` sees processes alive at the end).
CONN_MAX_AGE = "600"


def server_env(database_url: str, redis_url: str, settings_module: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST", "COINFLIP_"))}
    env.update(DATABASE_URL=database_url, REDIS_URL=redis_url, DJANGO_SETTINGS_MODULE=settings_module,
               PYTHONPATH=str(ROOT), DJANGO_LOG_LEVEL="WARNING", GUNICORN_ACCESS_LOG="")
    env.setdefault("DATABASE_CONN_MAX_AGE", CONN_MAX_AGE)
    return env


@dataclass
class Server:
    """A running gunicorn behind its Caddy: clients use ``port`` (Caddy's); ``stop()`` ends both."""

    process: subprocess.Popen
    upstream_port: int
    log: Path
    config: Gunicorn = field(default_factory=Gunicorn)
    edge: proxy.Proxy | None = None

    @property
    def port(self) -> int:
        return self.edge.port if self.edge is not None else self.upstream_port

    def roots(self) -> dict[str, int]:
        """The process groups of the CPU accounting (``cpu.usage``): gunicorn's master (and its workers), Caddy."""
        return {"server": self.process.pid, **({"proxy": self.edge.process.pid} if self.edge else {})}

    def stop(self) -> None:
        if self.edge is not None:
            self.edge.stop()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(app: tuple[str, str], config: Gunicorn, database_url: str, redis_url: str, log: Path,
          ready_path: str = "/api/surveys/-/reports/", wait: float = 60.0) -> Server:
    """Start gunicorn serving ``app`` (``PRODUCT``, ``FLOOR`` or ``FLOOR_STACK``) and Caddy in front of it; wait until
    both answer."""
    wsgi, settings_module = app
    port = free_port()
    # The product — and the floor under its middleware, so that the two differ only in the view — runs under the
    # production configuration file (its worker class, timeouts, logger and worker hooks), the command line setting
    # only what the run varies; its access log stays off (``server_env``).
    conf = ["--config", str(ROOT / "docker" / "gunicorn.conf.py")] if app in (PRODUCT, FLOOR_STACK) else []
    command = [python(), "-m", "gunicorn", wsgi, *conf, "--bind", f"{HOST}:{port}", "--workers", str(config.workers),
               "--worker-class", "gthread", "--threads", str(config.threads), "--keep-alive", str(config.keep_alive),
               "--backlog", "2048", "--log-level", "warning", "--error-logfile", "-", "--chdir", str(ROOT)]
    handle = open(log, "ab")
    process = subprocess.Popen(command, cwd=ROOT, env=server_env(database_url, redis_url, settings_module),
                               stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    server = Server(process, port, log, config)
    deadline = time.monotonic() + wait
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with status {process.returncode}; see {log}")
            if _answers(port, ready_path):
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"the server did not answer within {wait:g} s; see {log}")
        server.edge = proxy.start(log.parent / f"caddy-{log.stem}", free_port(), port, log.with_suffix(".caddy.log"))
        if not _answers(server.port, ready_path):
            raise RuntimeError(f"caddy did not answer; see {log.with_suffix('.caddy.log')}")
    except BaseException:
        server.stop()
        raise
    return server


def _answers(port: int, path: str) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=5) as s:
            s.sendall(f"GET {path} HTTP/1.0\r\nHost: {HOST}\r\n\r\n".encode())
            return s.recv(12).startswith(b"HTTP/1.")
    except OSError:
        return False
