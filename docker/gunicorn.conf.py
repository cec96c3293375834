"""gunicorn configuration of the Coinflip web process (`gunicorn -c docker/gunicorn.conf.py coinflip.wsgi`).

Every value can be set from the environment (docker/README.md lists them). gunicorn's stock threaded worker
(``gthread``): a request mostly waits on PostgreSQL, so threads serve more reports per process than sync workers;
each thread holds one database connection: keep workers × threads, summed over the web containers and plus the
Celery processes, under PostgreSQL's max_connections.

gunicorn runs behind the proxy (docker/Caddyfile), which does the edge's work: it reads every request whole, with
its own timeouts, before gunicorn sees it, so no slow client holds a thread here. The timeouts (seconds):

- ``timeout`` (30): a worker whose main loop has not reported to the arbiter for this long is killed and replaced
  (a request waiting on PostgreSQL holds its thread, not the loop: it is not killed for that);
- ``graceful_timeout`` (20): on SIGTERM, workers finish their requests for up to this long;
- ``keepalive`` (5): an idle connection from the proxy is closed after this long. It must exceed the proxy's own idle
  timeout for upstream connections (``transport http { keepalive 2s }``): the proxy then always closes first, and never
  sends a request on a connection gunicorn is closing (a 502 it would not retry for a POST).

Access log and privacy: a line holds the time, method, path, protocol, status, body size and duration — never the
client's address, user agent, referrer, query string or any request header, and invitation tokens in survey paths
(``/s/<slug>/t/<token>/``) are replaced by ``<token>`` (coinflip.security.redact_path). ``PrivateLogger`` (gunicorn's
``logger_class`` setting) enforces that whatever ``GUNICORN_ACCESS_LOG_FORMAT`` says: the atoms that could identify
a respondent are blanked. The error log goes through ``coinflip.security.RedactAddressesFilter`` too: gunicorn writes
"Invalid request from ip=…" and "Error handling request <uri>", which become ``ip=<address>`` and the path without
token or query string.
"""
import multiprocessing
import os
import sys
from pathlib import Path

from gunicorn.glogging import Logger

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the project root, for coinflip.security
from coinflip.security import RedactAddressesFilter, redact_path  # noqa: E402


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = _int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count(), 8))
worker_class = "gthread"
threads = _int("GUNICORN_THREADS", 4)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
keepalive = _int("GUNICORN_KEEPALIVE", 5)  # longer than the proxy's upstream keep-alive (docstring)
# Recycle workers now and then (jittered so they do not all restart at once): bounds any slow memory growth. Rarely:
# a new worker rebuilds its protocols (``post_worker_init``), and at 500 requests/s a worker reached 5,000 every 10 s.
max_requests = _int("GUNICORN_MAX_REQUESTS", 200_000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 20_000)
# Heartbeat files in memory, not on the container's (possibly read-only) disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
proc_name = "coinflip-web"

accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")  # "-": standard output; empty string: no access log
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = os.environ.get("GUNICORN_ACCESS_LOG_FORMAT", '%(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms')

#: Atoms a format may use; every other one (%(h)s address, %(a)s user agent, %(f)s referrer, %(q)s query string,
#: %({header}i)s request headers, %({name}e)s environment) is written as "-".
SAFE_ATOMS = ("t", "m", "H", "s", "b", "B", "T", "D", "M", "L", "p")


class PrivateLogger(Logger):
    """gunicorn's logger with an access log that cannot identify a respondent, and an error log with no address,
    token or query string (see the module docstring)."""

    def setup(self, cfg):
        super().setup(cfg)
        if not any(isinstance(f, RedactAddressesFilter) for f in self.error_log.filters):
            self.error_log.addFilter(RedactAddressesFilter())

    def atoms(self, resp, req, environ, request_time):
        full = super().atoms(resp, req, environ, request_time)
        atoms = {name: full[name] for name in SAFE_ATOMS}
        path = redact_path(full["U"] or "")
        atoms.update(U=path, r=f"{full['m']} {path} {full['H']}", h="-", l="-", u="-", f="-", a="-", q="")
        return atoms


logger_class = PrivateLogger


def post_worker_init(worker):
    """A started (or recycled) worker builds the open surveys' protocols, and reads the token surveys' keys, before it
    takes requests (``survey_app.api.warm_protocols``), within a third of ``timeout`` (the arbiter's heartbeat
    limit). A failure (say, the database not up yet) is logged and the worker serves anyway, building on first use."""
    try:
        from survey_app.api import warm_protocols

        worker.log.info("warmed the protocols of %d open surveys", warm_protocols(budget=timeout / 3))
    except Exception as exc:  # noqa: BLE001 — never keep a worker from serving
        worker.log.warning("protocol warm-up skipped: %s", type(exc).__name__)
if not accesslog:
    accesslog = None
