"""The health check's bound (coinflip.middleware): a database that does not answer makes ``/healthz`` a 503 within
``HEALTH_TIMEOUT``, and while that probe still waits, every other check answers at once (tests/edge/test_edge.py
shows it against a paused PostgreSQL)."""
import threading
import time

from coinflip import middleware


def test_a_probe_that_waits_gives_false_within_the_timeout_and_blocks_no_other_check(monkeypatch):
    release = threading.Event()

    def stuck(answer):  # a SELECT 1 that PostgreSQL does not answer until released
        try:
            release.wait(10)
            answer.append(True)
        finally:
            middleware._probing.release()  # noqa: SLF001 — the module's own lock

    monkeypatch.setattr(middleware, "HEALTH_TIMEOUT", 0.2)
    monkeypatch.setattr(middleware, "_probe", stuck)
    started = time.monotonic()
    assert middleware.database_answers() is False
    assert 0.15 < time.monotonic() - started < 1
    started = time.monotonic()
    assert middleware.database_answers() is False and time.monotonic() - started < 0.05  # no second probe
    release.set()
    deadline = time.monotonic() + 5
    while middleware._probing.locked() and time.monotonic() < deadline:  # noqa: SLF001
        time.sleep(0.01)
    monkeypatch.setattr(middleware, "_probe", lambda answer: (answer.append(True), middleware._probing.release()))  # noqa: SLF001
    assert middleware.database_answers() is True
