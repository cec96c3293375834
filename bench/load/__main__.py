"""python -m bench.load — the load benchmark (``make bench-load``); see ``bench/load/README.md``.

Creates the database ``coinflip_load`` (PostgreSQL of ``--database-url``), migrates it, runs the load
(``bench.load.run``) against what compose deploys — Caddy → gunicorn (compose's workers and threads) → PostgreSQL, with
Redis db 12 and a Celery worker folding — over loopback, then the same stream on the plain-Django floor through the
same Caddy, prints the table, rewrites the ``bench.load`` block of docs/benchmarks.md (full-length runs only) and drops
the database. Exit status 1 with ``--strict`` when a target is missed.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
from dataclasses import replace

from .servers import ROOT, Gunicorn

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/coinflip_load"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/12"
DOCS = ROOT / "docs" / "benchmarks.md"


def machine() -> str:
    """CPU model, cores, memory, and the versions that matter, in one line."""
    import psycopg

    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        memory = next(int(row.split()[1]) for row in open("/proc/meminfo") if row.startswith("MemTotal")) / 2**20
    except (OSError, StopIteration):
        memory = float("nan")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0].split()[0]
    import django
    import gunicorn

    return (f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB, Linux {platform.release()}; Python "
            f"{platform.python_version()}, Django {django.get_version()}, gunicorn {gunicorn.__version__}, "
            f"psycopg {psycopg.__version__}, PostgreSQL {pg}")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of sending (default 60)")
    parser.add_argument("--rate", type=float, default=1100.0, help="offered reports/s, open loop; 0: closed loop")
    parser.add_argument("--connections", type=int, default=64, help="keep-alive connections of the generator")
    parser.add_argument("--max-requests", type=int, default=200_000,
                        help="respondents pre-generated (bounds a closed loop, --rate 0: the ceilings' run)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (compose: WEB_CONCURRENCY=2)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (compose: GUNICORN_THREADS=4)")
    parser.add_argument("--celery-concurrency", type=int, default=2,
                        help="the folding Celery worker's pool processes (compose: CELERY_CONCURRENCY=2)")
    parser.add_argument("--fold-every", type=float, default=20.0,
                        help="fold every survey this often during the load (0: never)")
    parser.add_argument("--fold-phased", action="store_true",
                        help="fold survey i of n at every·(k + i/n), not all at once (bench/load/fold.py)")
    parser.add_argument("--seed-reports", type=int, default=1000, help="reports stored per survey before the load")
    parser.add_argument("--no-floor", action="store_true", help="skip the floor peer")
    parser.add_argument("--no-floor-stack", action="store_true",
                        help="skip the floor's view under the product's middleware chain")
    parser.add_argument("--no-invitations", action="store_true",
                        help="only the open-link surveys (no token surveys' redemption + report)")
    parser.add_argument("--quiet-wait", type=float, default=600.0,
                        help="before each load, wait up to this many seconds for the machine to be quiet (0: don't)")
    parser.add_argument("--quick", action="store_true", help="10 s per server, docs untouched")
    parser.add_argument("--no-docs", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--strict", action="store_true", help="exit status 1 when a target is missed")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--drop-only", action="store_true", help="drop the benchmark database and exit")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_LOAD_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_LOAD_REDIS_URL", DEFAULT_REDIS_URL))
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    from . import database

    if args.drop_only:
        database.drop(args.database_url)
        return 0
    os.environ.update(DATABASE_URL=args.database_url, REDIS_URL=args.redis_url,
                      DJANGO_SETTINGS_MODULE="coinflip.settings")
    database.create(args.database_url)
    try:
        database.migrate(args.database_url, args.redis_url)
        import django

        django.setup()
        from . import report
        from .run import Options, run

        options = Options(duration=args.duration, rate=args.rate, connections=args.connections,
                          max_requests=args.max_requests,
                          seed_reports=args.seed_reports, fold_every=args.fold_every, floor=not args.no_floor,
                          floor_stack=not args.no_floor_stack,
                          fold_phased=args.fold_phased,
                          quiet_wait=args.quiet_wait,
                          celery_concurrency=args.celery_concurrency,
                          gunicorn=Gunicorn(args.workers, args.threads))
        if args.quick:
            options = replace(options, duration=10.0, fold_every=min(args.fold_every, 4.0), protocol_gets=5.0)
        from .surveys import MECHANISMS

        mechanisms = [m for m in MECHANISMS if not (args.no_invitations and m.invitations)]
        outcome = run(options, args.database_url, args.redis_url, mechanisms,
                      progress=lambda m: print(m, file=sys.stderr))
        block = report.render(outcome, machine())
        print(block)
        if not (args.quick or args.no_docs):
            report.write_docs(DOCS, block)
            print(f"\nwrote the bench.load block of {DOCS.relative_to(ROOT)}", file=sys.stderr)
        return 1 if args.strict and not report.passed(outcome) else 0
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            database.drop(args.database_url)


if __name__ == "__main__":
    sys.exit(main())
