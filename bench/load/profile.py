"""Where a report POST's CPU goes: ``python -m bench.load.profile [--n N] [--profile] [--top K]``.

In-process, no server and no network: the load's request bodies (``surveys.prepare``: one open-link survey per
mechanism family and the token surveys' redemption + report) go through the production WSGI application
(``coinflip.wsgi``: the respondents' fast path, or every middleware, DRF and the views) in one thread, against
PostgreSQL (a fresh database ``coinflip_profile``, dropped at the end). Prints the CPU time of this process per
request of each flow — link report, redemption, token report — which is the server's share of ``cpu.py``'s figure
without gunicorn's HTTP parsing; with ``--profile``, cProfile's top functions of each flow by CPU time (cumulative
and own). PostgreSQL's CPU is not counted.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/coinflip_profile"


def environ(path: str, body: bytes | None) -> dict:
    env = {"REQUEST_METHOD": "POST" if body is not None else "GET", "PATH_INFO": path, "QUERY_STRING": "",
           "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.version": (1, 0),
           "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body or b""), "wsgi.errors": sys.stderr,
           "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False, "HTTP_HOST": "127.0.0.1:8000",
           "HTTP_ACCEPT": "application/json", "REMOTE_ADDR": "127.0.0.1"}
    if body is not None:
        env.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
    return env


def call(app, path: str, body: bytes | None) -> tuple[int, bytes]:
    status = []
    chunks = app(environ(path, body), lambda s, h, exc=None: status.append(int(s.split()[0])))
    try:
        data = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    return status[0], data


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=600, help="respondents per flow (default 600)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions per flow")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--settings", default="coinflip.settings", help="DJANGO_SETTINGS_MODULE (an experiment's)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12")
    args = parser.parse_args(argv)
    from . import database, servers

    os.environ.update(servers.server_env(args.database_url, args.redis_url, args.settings))
    database.drop(args.database_url)
    database.create(args.database_url)
    try:
        database.migrate(args.database_url, args.redis_url)
        import django
        import numpy as np

        django.setup()
        from coinflip.wsgi import application as app  # the production entry: the respondents' fast path first

        from . import surveys, tokens

        chosen = [m for m in surveys.MECHANISMS if m.slug in ("load-oue", "load-gauss-1", "load-mrr", "load-split",
                                                                "load-oue-tokens", "load-gauss-1-tokens")]
        prepared = surveys.prepare(args.n * len(chosen), 300, np.random.default_rng(1), chosen)
        for slug in prepared.surveys:  # warm: caches, imports, the first connection
            call(app, f"/api/surveys/{slug}/protocol/", None)
        flows: dict[str, list] = {"link report": [], "redeem": [], "token report": []}
        for slug, body, respondent in zip(prepared.slugs, prepared.bodies, prepared.respondents, strict=True):
            if respondent is None:
                flows["link report"].append((f"/api/surveys/{slug}/reports/", body))
            else:
                flows["redeem"].append((tokens.REDEEM_PATH.format(slug=slug), respondent.redeem_body, respondent))
        # Warm-up: a few of each flow, then measured runs.
        answers = {}
        for name in ("link report", "redeem", "token report"):
            items = flows[name] if name != "token report" else [
                (f"/api/surveys/{r[0].split('/')[3]}/reports/", r[2].report_body(answers[id(r)]))
                for r in flows["redeem"]]
            profiler = cProfile.Profile() if args.profile else None
            statuses: dict[int, int] = {}
            start_cpu, start = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable()
            for item in items:
                code, data = call(app, item[0], item[1])
                statuses[code] = statuses.get(code, 0) + 1
                if name == "redeem":
                    answers[id(item)] = data
            if profiler:
                profiler.disable()
            cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
            print(f"{name}: {len(items)} requests, statuses {json.dumps(statuses)}, "
                  f"{1000 * cpu / max(len(items), 1):.3f} ms CPU and {1000 * wall / max(len(items), 1):.3f} ms wall "
                  "per request")
            if profiler:
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out)
                stats.sort_stats("cumulative").print_stats(args.top)
                stats.sort_stats("tottime").print_stats(args.top)
                print(out.getvalue())
        from django.db import connections

        connections.close_all()
    finally:
        database.drop(args.database_url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
