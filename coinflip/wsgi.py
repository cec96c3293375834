"""WSGI entry point (``gunicorn -c docker/gunicorn.conf.py coinflip.wsgi``).

``/healthz`` is answered here, before Django's middleware (no host check, no HTTPS redirect, no session), so that a
container health check can call ``http://127.0.0.1:8000/healthz`` whatever ``DJANGO_ALLOWED_HOSTS`` and the TLS
settings say: 200 ``ok`` when the application is loaded and PostgreSQL answers ``SELECT 1`` within
``HEALTH_TIMEOUT`` seconds, 503 otherwise. It reveals
nothing else (no version, no error text). A respondent's usual report or redemption POST is answered next, before
Django's handler (``coinflip.fastpath``); everything else goes to Django.
"""
import os
import threading

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")
django_application = get_wsgi_application()

from coinflip.fastpath import RespondentFastPath  # noqa: E402 — needs the settings configured above

#: Django's application behind the respondents' fast path (``coinflip.fastpath``).
served_application = RespondentFastPath(django_application)

HEALTH_PATH = "/healthz"


#: Seconds the health check waits for PostgreSQL (the compose health check gives the whole request 4): a paused or
#: unreachable database makes it answer 503 within this time, never hold it or its thread longer.
HEALTH_TIMEOUT = 2.0
_probing = threading.Lock()  # held while a probe waits on PostgreSQL: at most one per process at any time


def _probe(answer: list) -> None:
    """``SELECT 1`` on this thread's own connection, closed afterwards; appends True to ``answer`` when it answered."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            if cursor.fetchone() == (1,):
                answer.append(True)
    except Exception:  # noqa: BLE001 — any failure means "not healthy"; the details go to no one
        pass
    finally:
        connection.close()
        _probing.release()


def database_answers() -> bool:
    """Whether PostgreSQL answers ``SELECT 1`` within ``HEALTH_TIMEOUT``, asked from a thread of its own so the check
    never waits longer; while an earlier probe still waits (a paused database), no other starts: False at once."""
    if not _probing.acquire(blocking=False):
        return False
    answer: list = []
    probe = threading.Thread(target=_probe, args=(answer,), name="healthz-probe", daemon=True)
    probe.start()
    probe.join(HEALTH_TIMEOUT)
    return bool(answer)


def health(environ, start_response):
    healthy = database_answers()
    body = b"ok\n" if healthy else b"unavailable\n"
    start_response("200 OK" if healthy else "503 Service Unavailable",
                   [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                    ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
    return [body]


def application(environ, start_response):
    if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
        return health(environ, start_response)
    return served_application(environ, start_response)


#: The fast path alone (``RespondentFastPath.fast_only``): what ``coinflip.buffering`` may run in its event loop.
application.fast_only = served_application.fast_only  # type: ignore[attr-defined]
