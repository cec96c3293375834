"""No invitation token and no IP address in any log of the embedded default (`make run`: runserver on SQLite with the
filesystem broker): runserver is started in a subprocess as the Procfile starts it, an invited respondent opens the
token page, redeems the token and sends a report (``manage.py simulate`` over HTTP), opens the page again (409: used);
then a Celery worker (as the Procfile starts it, on the filesystem broker) runs the drain. Everything the server and
the worker wrote — every logger, stdout and stderr — is read: no token, no address, and no success line (with its
duration) of the drain."""
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from aggregator.management.commands.simulate import read_tokens

ROOT = Path(__file__).resolve().parents[2]
VOTE = ROOT / "data" / "datasets" / "vote.csv"
IPV4 = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_runserver_logs_no_token_and_no_address_during_a_redemption_and_a_report(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(COINFLIP_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="coinflip.settings", PYTHONUNBUFFERED="1")

    def manage(*args):
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True)

    manage("migrate", "--noinput", "-v", "0")
    manage("create_survey", str(VOTE), "--slug", "vote-invited", "--mode", "mrr", "--theta", "0.7", "--open",
           "--access", "tokens", "--class-column", "class")
    manage("invitations", "vote-invited", "--count", "2", "--out", str(tmp_path / "tokens.csv"))
    tokens = read_tokens(str(tmp_path / "tokens.csv"))
    port = _free_port()
    base = f"http://localhost:{port}"
    out, err = (tmp_path / "server.out").open("w"), (tmp_path / "server.err").open("w")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"localhost:{port}", "--noreload"],
                              cwd=ROOT, env=env, stdout=out, stderr=err)
    try:
        for _ in range(100):
            try:
                _status(f"{base}/")
                break
            except OSError:
                time.sleep(0.2)
        page = f"{base}/s/vote-invited/t/{tokens[0]}/"
        assert _status(page) == 200  # after the redirect to /s/<slug>/i/#<token>
        subprocess.run([sys.executable, "manage.py", "simulate", "vote-invited", str(VOTE), "--respondents", "2",
                        "--url", base, "--tokens", str(tmp_path / "tokens.csv"), "--seed", "1"],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        assert _status(page) == 409  # used: the status alone must not tell which token
        # runserver writes a request's line after the response has gone: wait for it before stopping the server
        for _ in range(100):
            if " 409 " in (tmp_path / "server.err").read_text() + (tmp_path / "server.out").read_text():
                break
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=20)
        out.close()
        err.close()
    worker_log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "coinflip", "worker", "--loglevel=INFO",
                               "--concurrency=1"], cwd=ROOT, env=env, stdout=worker_log, stderr=subprocess.STDOUT)
    try:
        subprocess.run([sys.executable, "-c", "import django; django.setup(); from aggregator import tasks; "
                        "tasks.drain_inboxes.delay()"], cwd=ROOT, env=env, check=True, capture_output=True)
        database = sqlite3.connect(tmp_path / "db.sqlite3")
        for _ in range(300):
            if database.execute("SELECT count(*) FROM survey_app_pendingreport").fetchone()[0] == 0:
                break
            time.sleep(0.2)
        assert database.execute("SELECT count(*) FROM survey_app_report").fetchone()[0] == 2  # drained
        database.close()
        time.sleep(1)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        worker_log.close()
    worked = (tmp_path / "worker.log").read_text()
    assert "Task aggregator.tasks.drain_inboxes[" in worked and " received" in worked  # the worker's log was read
    assert "drain_inboxes" not in "".join(line for line in worked.splitlines() if "succeeded" in line), worked
    logged = (tmp_path / "server.out").read_text() + (tmp_path / "server.err").read_text() + worked
    # the request lines were read, redacted: the link of the earlier form redirects to the fragment form (302)
    assert '"GET /s/vote-invited/t/<token>/ HTTP/1.1" 302' in logged
    print("\n".join(line for line in logged.splitlines() if "/t/" in line or "/i/" in line))
    assert any("/t/<token>/" in line and " 409" in line for line in logged.splitlines()), logged
    assert "POST /api/surveys/vote-invited/invitations/redeem/" in logged
    assert "POST /api/surveys/vote-invited/reports/" in logged
    assert not [t for t in tokens if t in logged], logged
    assert not IPV4.findall(logged) and "::1" not in logged, logged
