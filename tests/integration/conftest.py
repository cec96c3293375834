"""Fixtures for the real-process tests: this test's Redis, the test database's URL, and process factories that
always clean up (workers and gunicorn stopped before pytest-django empties the database)."""
from __future__ import annotations

import pytest
import redis
from django.db import connection

from .processes import REDIS_SERVER, Gunicorn, TcpProxy, Worker, process_env, redis_db


@pytest.fixture
def redis_url():
    """This xdist worker's Redis database, flushed; the test is skipped when no Redis server answers."""
    url = f"{REDIS_SERVER}/{redis_db()}"
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.flushdb()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"no Redis server at {REDIS_SERVER} ({exc}); set COINFLIP_TEST_REDIS")
    finally:
        client.close()
    return url


@pytest.fixture
def database_url(transactional_db):
    """The URL of pytest-django's test database (data must be committed for other processes to see it)."""
    return database_url_via(connection.settings_dict["PORT"] or 5432)


def database_url_via(port: int) -> str:
    s = connection.settings_dict
    user = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{user}@{s['HOST'] or '127.0.0.1'}:{port}/{s['NAME']}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so that fixtures can tell at teardown whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def processes(request):
    """Started processes, stopped at the end of the test whatever happened; when the test failed, the tail of each
    one's log is printed (pytest shows it under "Captured stdout teardown")."""
    started = []
    yield started
    for process in reversed(started):
        process.stop()
    call = getattr(request.node, "report_call", None)
    if call is not None and call.failed:
        for process in started:
            print(f"--- {' '.join(process.argv[:4])} … ({process.log_path.name}), last lines:\n{process.log()[-4000:]}")


@pytest.fixture
def start_worker(processes, tmp_path):
    """``start_worker(name, database_url, redis_url, hooked=False, **env)``: a ready Celery worker process."""
    def start(name, database_url, redis_url, hooked=False, **env):
        worker = Worker(name, process_env(database_url, redis_url, **env), tmp_path / f"{name}.log", hooked=hooked)
        processes.append(worker)
        return worker.start()
    return start


@pytest.fixture
def start_gunicorn(processes, tmp_path):
    """``start_gunicorn(database_url, ready_path)``: a ready gunicorn serving ``coinflip.wsgi``."""
    def start(database_url, ready_path="/", **env):
        server = Gunicorn(process_env(database_url, **env), tmp_path / "gunicorn.log")
        processes.append(server)
        return server.start(ready_path)
    return start


@pytest.fixture
def tcp_proxy():
    """``tcp_proxy(port)``: a cuttable proxy to 127.0.0.1:port, closed at the end of the test."""
    proxies = []

    def make(port):
        proxies.append(TcpProxy(int(port)))
        return proxies[-1]
    yield make
    for proxy in proxies:
        proxy.close()
