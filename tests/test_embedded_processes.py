"""`make run`'s processes on the embedded default (SQLite + kombu's filesystem broker), as honcho starts them from the
Procfile: they log no traceback or error while they run, and Ctrl-C stops them all (the worker's pool is threads, so
the group's SIGTERM reaches no pool process behind the worker's back)."""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_make_run_processes_log_no_error_and_stop_on_ctrl_c(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(COINFLIP_VAR_DIR=str(tmp_path), COINFLIP_PORT=str(free_port()), PATH=f"{BIN}:{env['PATH']}",
               PYTHONUNBUFFERED="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    log = tmp_path / "honcho.log"
    with log.open("w") as out:
        honcho = subprocess.Popen([str(BIN / "honcho"), "start", "-f", "Procfile"], cwd=ROOT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while "ready." not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.5)
            assert "ready." in log.read_text(), log.read_text()
            time.sleep(12)  # more than two of the worker's periodic checks (coinflip.celery.RESTORE_INTERVAL)
            os.killpg(honcho.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends: the whole process group
            honcho.wait(timeout=30)
        finally:
            if honcho.poll() is None:
                os.killpg(honcho.pid, signal.SIGKILL)
    text = log.read_text()
    assert "celery@" in text and "Starting development server" in text, text
    for bad in ("Traceback", "ERROR", "exited with", "could not requeue"):
        assert bad not in text, text
