"""Real processes for the integration tests: Celery workers, gunicorn, and a TCP proxy that can cut a connection.

Everything runs against the test database of pytest-django (the processes get its name in ``DATABASE_URL``, so the
tests must commit: ``django_db(transaction=True)``) and a Redis database of its own per xdist worker (13 for the
first, 14 for the second; ``COINFLIP_TEST_REDIS`` overrides the server, default ``redis://127.0.0.1:6379``), flushed
before each test. Workers run ``coinflip.settings`` — the production settings module — not the test settings.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from celery import Celery

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
REDIS_SERVER = os.environ.get("COINFLIP_TEST_REDIS", "redis://127.0.0.1:6379")
REDIS_DBS = (13, 14)


def redis_db() -> int:
    """This xdist worker's Redis database: gw0 (or no xdist) → 13, gw1 → 14."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker.startswith("gw") else 0
    return REDIS_DBS[index % len(REDIS_DBS)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what}")


def process_env(database_url: str, redis_url: str | None = None, **extra: str) -> dict:
    """The environment of a product process: production settings, the test database, this test's Redis."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "CELERY_", "COINFLIP_", "PYTEST_"))
           and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_SETTINGS_MODULE="coinflip.settings", DATABASE_URL=database_url, PYTHONUNBUFFERED="1",
               DJANGO_LOG_LEVEL="INFO")
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


class Process:
    """A child process in its own session (so a signal reaches its children too), logging to a file."""

    def __init__(self, argv: list[str], env: dict, log: Path):
        self.argv, self.env, self.log_path = argv, env, log
        self.popen: subprocess.Popen | None = None

    def start(self):
        self._log = open(self.log_path, "ab")
        self.popen = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, sig)

    def stop(self, timeout: float = 20) -> None:
        """Warm shutdown: SIGTERM to the main process only (as ``docker stop`` does; a Celery pool child receiving
        it would die mid-task), then SIGKILL to the whole group if it does not end in time."""
        if self.popen is None or self.popen.poll() is not None:
            return self._close()
        self.popen.terminate()
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()  # the group: anything left behind
        self._close()

    def kill(self) -> None:
        """SIGKILL the whole process group: no handler, no cleanup, no commit."""
        self.signal(signal.SIGKILL)
        self.popen.wait(20)
        self._close()

    def _close(self):
        if hasattr(self, "_log") and not self._log.closed:
            self._log.close()


class Worker(Process):
    """``celery -A coinflip worker`` (prefork, one child): one task at a time, acknowledged fairly.

    ``hooked=True`` runs the same worker through ``tests.integration.hooked_worker``, which pauses inside a
    transaction at ``COINFLIP_TEST_PAUSE`` so a test can kill it there."""

    def __init__(self, name: str, env: dict, log: Path, hooked: bool = False):
        options = ["--pool=prefork", "--concurrency=1", "-Q", "celery", "-n", f"{name}@%h", "--prefetch-multiplier=1",
                   "-O", "fair", "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO"]
        argv = ([str(BIN / "python"), "-m", "tests.integration.hooked_worker", *options] if hooked
                else [str(BIN / "celery"), "-A", "coinflip", "worker", *options])
        super().__init__(argv, env, log)
        self.name = name

    def start(self, timeout: float = 60):
        super().start()
        wait_for(lambda: " ready." in self.log() or self.popen.poll() is not None, timeout, f"worker {self.name}")
        if self.popen.poll() is not None:
            raise RuntimeError(f"worker {self.name} exited:\n{self.log()[-3000:]}")
        return self


class Gunicorn(Process):
    """``gunicorn coinflip.wsgi`` with threaded workers, serving on a free local port."""

    def __init__(self, env: dict, log: Path, workers: int = 2, threads: int = 8):
        self.port = free_port()
        super().__init__([str(BIN / "gunicorn"), "coinflip.wsgi:application", "-b", f"127.0.0.1:{self.port}",
                          "-k", "gthread", "--workers", str(workers), "--threads", str(threads),
                          "--timeout", "30", "--graceful-timeout", "5"], env, log)
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self, ready_path: str = "/", timeout: float = 60):
        super().start()

        def ready():
            if self.popen.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + ready_path, timeout=10) as response:
                    return response.status == 200
            except OSError:  # refused, reset, timed out (URLError is an OSError too)
                return False
        wait_for(ready, timeout, "gunicorn", interval=0.2)
        return self


def post_json(url: str, body: bytes, timeout: float = 30) -> int:
    """POST a JSON body; the status code (errors included)."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@contextlib.contextmanager
def celery_client(redis_url: str):
    """A Celery app of the test's own that sends tasks by name to ``redis_url`` and reads their results there
    (the test process's Django settings keep the embedded broker)."""
    app = Celery("coinflip-test-client", broker=redis_url, backend=redis_url, set_as_current=False)
    app.conf.update(task_serializer="json", accept_content=["json"], broker_connection_timeout=2,
                    broker_connection_retry_on_startup=False, redis_socket_connect_timeout=2)
    try:
        yield app
    finally:
        app.close()


class TcpProxy:
    """A TCP proxy (asyncio, in a thread) from a local port to ``target``, which a test can cut and restore.

    ``cut()`` stops listening (new connections are refused) and aborts every open connection, as a server that
    crashed or restarted would; ``restore()`` listens again on the same port."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1"):
        self.target = (target_host, target_port)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.port = 0
        self.server = None
        self.transports: set = set()
        self.connections = 0
        self.restore()

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    async def _pipe(self, reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()

    async def _handle(self, client_reader, client_writer):
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            return
        self.connections += 1
        pair = {client_writer.transport, upstream_writer.transport}
        self.transports |= pair
        try:
            await asyncio.gather(self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer))
        finally:
            self.transports -= pair

    async def _listen(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _cut(self):
        self.server.close()
        self.server = None
        for transport in list(self.transports):
            transport.abort()

    def restore(self) -> None:
        self._run(self._listen())

    def cut(self) -> None:
        self._run(self._cut())

    def close(self) -> None:
        if self.server is not None:
            self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
