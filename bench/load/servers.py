"""Starting and stopping the servers under load: gunicorn with the product's WSGI app, or with the floor peer.

Both run from the main ``.venv`` (the product's own environment), on a free loopback port, with
``DJANGO_SETTINGS_MODULE`` and ``DATABASE_URL`` / ``REDIS_URL`` set explicitly (never inherited from a test run's
settings). ``DEBUG`` stays off, as in production; ``COINFLIP_PRODUCTION`` too (it would redirect plain HTTP to
HTTPS), and gunicorn writes no access log.
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

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"

#: The product: ``coinflip.wsgi`` with the project's settings.
PRODUCT = ("coinflip.wsgi:application", "coinflip.settings")
#: The floor peer: a plain-Django app without DRF (``bench.load.floor``), built by Django's own WSGI factory.
FLOOR = ("django.core.wsgi:get_wsgi_application()", "bench.load.floor")
#: The production worker class (docker/gunicorn.conf.py): gthread reading each request whole before a thread takes it.
PRODUCTION_WORKER = "coinflip.buffering.BufferingThreadWorker"
#: A peer server instead of gunicorn (``--worker-class granian``): granian's Rust HTTP server with its WSGI interface,
#: ``threads`` blocking threads per worker (requirements-dev.txt). Not the production server (bench/load/README.md).
GRANIAN = "granian"


@dataclass(frozen=True)
class Gunicorn:
    """gunicorn settings: worker count and class (the production ``PRODUCTION_WORKER``, ``gthread`` or ``sync``),
    threads per worker, keep-alive."""

    workers: int = 2
    worker_class: str = PRODUCTION_WORKER
    threads: int = 1
    keep_alive: int = 30

    def describe(self) -> str:
        if self.worker_class == GRANIAN:
            return f"granian {self.workers} WSGI workers × {self.threads} blocking thread{'s' * (self.threads != 1)}"
        threads = f" × {self.threads} thread{'s' * (self.threads != 1)}" if self.worker_class != "sync" else ""
        name = {PRODUCTION_WORKER: "BufferingThreadWorker (production)"}.get(self.worker_class, self.worker_class)
        return f"gunicorn {self.workers} {name} workers{threads}"


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
    """A running gunicorn; ``stop()`` ends it (SIGTERM to its master, which stops its workers)."""

    process: subprocess.Popen
    port: int
    log: Path
    config: Gunicorn = field(default_factory=Gunicorn)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def pids(self) -> list[int]:
        """The master and its worker processes (for CPU accounting)."""
        pids = [self.process.pid]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                pids.append(int(stat.parent.name))
        return pids


def start(app: tuple[str, str], config: Gunicorn, database_url: str, redis_url: str, log: Path,
          ready_path: str = "/api/surveys/-/reports/", wait: float = 60.0) -> Server:
    """Start gunicorn (or granian) serving ``app`` (``PRODUCT`` or ``FLOOR``) and wait until it answers HTTP."""
    wsgi, settings_module = app
    port = free_port()
    # The product runs under the production configuration file (its logger and worker hooks), the command line
    # setting what the run varies; its access log stays off (``server_env``).
    conf = ["--config", str(ROOT / "docker" / "gunicorn.conf.py")] if app == PRODUCT else []
    command = [python(), "-m", "gunicorn", wsgi, *conf, "--bind", f"{HOST}:{port}", "--workers", str(config.workers),
               "--worker-class", config.worker_class, "--threads", str(config.threads),
               "--keep-alive", str(config.keep_alive), "--backlog", "2048", "--log-level", "warning",
               "--error-logfile", "-", "--chdir", str(ROOT)]
    if config.worker_class == GRANIAN:  # the same app, settings and environment; its access log is off by default
        target, factory = (wsgi[:-2], ["--factory"]) if wsgi.endswith("()") else (wsgi, [])
        command = [python(), "-m", "granian", target, *factory, "--interface", "wsgi", "--host", HOST,
                   "--port", str(port), "--workers", str(config.workers), "--blocking-threads", str(config.threads),
                   "--http", "1", "--no-ws", "--backlog", "2048", "--log-level", "warning",
                   "--working-dir", str(ROOT)]
    handle = open(log, "ab")
    process = subprocess.Popen(command, cwd=ROOT, env=server_env(database_url, redis_url, settings_module),
                               stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    server = Server(process, port, log, config)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}; see {log}")
        try:
            with socket.create_connection((HOST, port), timeout=1) as s:
                s.sendall(f"GET {ready_path} HTTP/1.0\r\nHost: {HOST}\r\n\r\n".encode())
                if s.recv(12).startswith(b"HTTP/1."):
                    return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"the server did not answer within {wait:g} s; see {log}")
