"""One load run: prepare the surveys and stream, load the product, fold, check; then the same stream on the floor.

``run(options, database_url, redis_url)`` expects Django already set up against ``database_url`` (``__main__``
creates and migrates a fresh database first; the smoke test uses pytest-django's). The servers, the folds and the
final ``retrain`` run in subprocesses, like the real deployment; this process only prepares, generates load and
checks.
"""
from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.db import connection

from . import checks, client, cpu, servers, surveys, tokens
from .database import name_of
from .servers import Gunicorn

PROTOCOL_PATH = "/api/surveys/{slug}/protocol/"


@dataclass(frozen=True)
class Options:
    duration: float = 60.0  #: seconds of sending (bounded in time)
    rate: float = 1100.0  #: offered reports per second, open loop (0: closed loop over ``connections``)
    max_requests: int = 200_000  #: bound on the pre-generated stream (bounded in count)
    connections: int = 64
    timeout: float = 10.0  #: seconds a request may take before it counts as unanswered
    grace: float = 0.0  #: seconds requests already due may still be sent after ``duration`` (the smoke test's)
    warmup: float = 3.0  #: seconds of GETs before each load (workers booted, caches filled)
    quiet_wait: float = 0.0  #: wait up to this long for a quiet machine before each load (shared machine)
    quiet_cores: float = 0.25  #: "quiet": the machine busy less than this many cores over 5 s
    seed_reports: int = 1000  #: reports stored per survey before the load (a published first model)
    fold_every: float = 20.0  #: fold every survey this often during the load (0: only the final fold)
    fold_phased: bool = False  #: survey i of n folds at fold_every·(k + i/n), not every survey at once (fold.py)
    floor: bool = True  #: also run the same stream against the floor peer
    floor_stack: bool = True  #: and against the floor's view under the product's middleware chain
    protocol_gets: float = 10.0  #: seconds of protocol GETs after the load (``protocol_gets``; 0: none)
    gunicorn: Gunicorn = field(default_factory=Gunicorn)
    celery_concurrency: int = 2  #: pool processes of the folding Celery worker (compose: CELERY_CONCURRENCY)
    random_seed: int = 20261123
    log_dir: Path = servers.ROOT / "var" / "bench-load"

    @property
    def requests(self) -> int:
        return self.max_requests if self.rate <= 0 else min(self.max_requests, int(self.rate * self.duration))


@dataclass
class Phase:
    """One server under the stream: its load result, CPU use and exactly-once checks."""

    name: str
    result: client.LoadResult
    cores: dict[str, float]
    checks: list[checks.Check]
    folds: list[dict] = field(default_factory=list)
    retrain_errors: list[dict] = field(default_factory=list)


@dataclass
class Outcome:
    options: Options
    prepared: surveys.Prepared
    product: Phase
    floor: Phase | None
    prepare_seconds: float
    protocol_gets: ProtocolGets | None = None
    floor_stack: Phase | None = None


@dataclass
class ProtocolGets:
    """The protocol GETs measured after the load (``protocol_gets``): what a respondent's browser fetches before
    answering and again before sending (static/js), every survey in turn, closed loop."""

    result: client.LoadResult
    cores: dict[str, float]
    connections: int

    @property
    def per_second(self) -> float:
        return float((self.result.status == 200).sum()) / self.result.elapsed


def _python_env(database_url: str, redis_url: str) -> dict:
    return servers.server_env(database_url, redis_url, "coinflip.settings")


#: The Celery worker's niceness (``celery_worker``).
FOLDER_NICENESS = 10


def _fold(slugs: list[str], database_url: str, redis_url: str, *extra: str) -> subprocess.Popen:
    """``bench.load.fold``: the final retrain, or (``--every``) the schedule sending folds to the Celery worker."""
    command = [servers.python(), "-m", "bench.load.fold", *extra, *slugs]
    return subprocess.Popen(command,
                            cwd=servers.ROOT,
                            env=_python_env(database_url, redis_url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)


def celery_worker(database_url: str, redis_url: str, concurrency: int, log: Path) -> subprocess.Popen:
    """compose's worker command (``celery -A coinflip worker --prefetch-multiplier=1 -O fair``, ``concurrency``
    pool processes) at a lower CPU priority than the web server (``nice`` 10), as docker/compose.yml gives the worker
    a smaller CPU share than the web container: a fold yields the CPU to report requests."""
    command = ["nice", "-n", str(FOLDER_NICENESS), servers.python(), "-m", "celery", "-A", "coinflip", "worker",
               "-n", "bench-load@%h", "--concurrency", str(concurrency), "--prefetch-multiplier=1", "-O", "fair",
               "-l", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    with open(log, "ab") as handle:
        return subprocess.Popen(command, cwd=servers.ROOT, env=_python_env(database_url, redis_url), stdout=handle,
                                stderr=subprocess.STDOUT)


def _start_folding(folder: subprocess.Popen) -> None:
    """Let a periodic folder, booted and ``ready``, start its clock (bench/load/fold.py)."""
    if folder.stdout.readline().strip() != "ready":
        raise RuntimeError("bench.load.fold did not start")
    folder.stdin.write("go\n")
    folder.stdin.flush()


def _folds(process: subprocess.Popen, timeout: float) -> list[dict]:
    out, _ = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise RuntimeError(f"bench.load.fold exited with status {process.returncode}")
    return json.loads(out.strip().splitlines()[-1])["folds"]


#: Warm-up goes on until a round of protocol GETs — every survey, a few times per worker — had no answer slower than
#: this (seconds): every worker has then built every survey's engine protocol (``survey_app.protocol.get_protocol``
#: builds it on first use, with its privacy checks — ``aggregator.privacy`` — up to a second per survey on this
#: machine), which would otherwise fall into the first seconds of the load.
WARM_LATENCY = 0.1
#: … or until this many seconds have passed.
WARM_LIMIT = 180.0


def warm_up(server: servers.Server, slugs: list[str], path: str, options: Options) -> None:
    """Wait for a quiet machine (``options.quiet_wait``), then GETs for ``options.warmup`` seconds and until a whole
    round of them is fast (``WARM_LATENCY``; nothing is stored): every worker boots and reads the surveys."""
    if options.quiet_wait > 0:
        cpu.wait_for_quiet(options.quiet_cores, 5.0, options.quiet_wait)
    requests = [f"GET {path.format(slug=s)} HTTP/1.1\r\nHost: {servers.HOST}:{server.port}\r\n\r\n".encode()
                for s in slugs * 100]
    connections = min(options.connections, 16)
    client.run(servers.HOST, server.port, requests, rate=0, duration=options.warmup, connections=connections)
    round_ = requests[:len(slugs) * 4 * max(server.config.workers, 1)]
    deadline = time.monotonic() + WARM_LIMIT
    while time.monotonic() < deadline:
        result = client.run(servers.HOST, server.port, round_, rate=0, duration=WARM_LIMIT, connections=connections)
        if result.sent.all() and (result.status > 0).all() and float(result.latency.max()) < WARM_LATENCY:
            return


def _load(server: servers.Server, requests: list[bytes], options: Options, database: str,
          roots: dict[str, int]) -> tuple[client.LoadResult, dict[str, float]]:
    """The load on ``server``, and the cores each process group used meanwhile."""
    before, start = cpu.snapshot(), time.monotonic()
    result = client.run(servers.HOST, server.port, requests, rate=options.rate, duration=options.duration,
                        connections=options.connections, timeout=options.timeout, grace=options.grace)
    seconds = time.monotonic() - start
    cores = cpu.usage(before, cpu.snapshot(), roots, database, seconds)
    result.cpu_seconds = {name: value * seconds for name, value in cores.items()}
    return result, cores


def product_requests(prepared: surveys.Prepared, port: int) -> list[bytes | client.TwoStep]:
    """The product's stream: a report POST per link survey respondent, redemption + report per token survey one."""
    paths = [surveys.REPORTS_PATH.format(slug=s) for s in prepared.slugs]
    posts = client.build_requests(servers.HOST, port, paths, prepared.bodies)
    return [post if respondent is None else tokens.two_step(servers.HOST, port, slug, respondent)
            for post, slug, respondent in zip(posts, prepared.slugs, prepared.respondents, strict=True)]


def product_phase(prepared: surveys.Prepared, options: Options, database_url: str,
                  redis_url: str) -> tuple[Phase, ProtocolGets | None]:
    slugs = list(prepared.surveys)
    connection.close()  # the servers and folders use their own connections
    server = servers.start(servers.PRODUCT, options.gunicorn, database_url, redis_url, options.log_dir / "product.log")
    folder = worker = None
    try:
        requests = product_requests(prepared, server.port)
        roots = server.roots()
        if options.fold_every > 0:  # booted before the load, as a worker is
            worker = celery_worker(database_url, redis_url, options.celery_concurrency, options.log_dir / "celery.log")
            roots["worker"] = worker.pid
            folder = _fold(slugs, database_url, redis_url,
                           "--every", str(options.fold_every), "--for", str(options.duration),
                           *(["--phased"] if options.fold_phased else []))
        warm_up(server, slugs, PROTOCOL_PATH, options)
        if folder is not None:
            _start_folding(folder)
        result, cores = _load(server, requests, options, name_of(database_url), roots)
        folds = _folds(folder, options.duration + 600) if folder else []
        gets = protocol_gets(server, slugs, options, name_of(database_url)) if options.protocol_gets > 0 else None
    finally:
        if folder is not None and folder.poll() is None:
            folder.kill()
        if worker is not None:
            worker.terminate()  # warm shutdown: its folds are done (``_folds`` waited for every one)
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                worker.kill()
        server.stop()
    final = _fold(slugs, database_url, redis_url, "--dump", str(options.log_dir))  # manage.py retrain per survey
    retrains = _folds(final, 900)
    accepted = checks.per_slug(prepared.slugs, result.status, 201)
    unanswered = checks.per_slug(prepared.slugs, result.status, client.NO_ANSWER)
    redeemed = checks.per_slug(prepared.slugs, result.first_status, tokens.SIGNED)
    redeem_unanswered = checks.per_slug(prepared.slugs, result.first_status, client.NO_ANSWER)
    found = checks.check_product(prepared.surveys, prepared.seeded, accepted, unanswered, redeemed=redeemed,
                                 redeem_unanswered=redeem_unanswered)
    return Phase("Coinflip", result, cores, found, folds, [r for r in retrains if r["error"]]), gets


#: Connections of the protocol-GET run (``protocol_gets``): a closed loop, so this many GETs are in flight.
PROTOCOL_GET_CONNECTIONS = 16


def protocol_gets(server: servers.Server, slugs: list[str], options: Options, database: str) -> ProtocolGets:
    """``options.protocol_gets`` seconds of protocol GETs, closed loop over ``PROTOCOL_GET_CONNECTIONS``
    connections (the server's saturation rate for them), after the report load and its folds."""
    requests = [f"GET {PROTOCOL_PATH.format(slug=s)} HTTP/1.1\r\nHost: {servers.HOST}:{server.port}\r\n\r\n"
                .encode() for s in slugs] * 20_000
    before, start = cpu.snapshot(), time.monotonic()
    result = client.run(servers.HOST, server.port, requests, rate=0, duration=options.protocol_gets,
                        connections=PROTOCOL_GET_CONNECTIONS, timeout=options.timeout)
    cores = cpu.usage(before, cpu.snapshot(), server.roots(), database, time.monotonic() - start)
    return ProtocolGets(result, cores, PROTOCOL_GET_CONNECTIONS)


#: The floors' names in the tables, by their servers.
FLOOR_NAMES = {servers.FLOOR: "floor: plain Django", servers.FLOOR_STACK: "floor + Coinflip's middleware"}


def floor_phase(prepared: surveys.Prepared, options: Options, database_url: str, redis_url: str,
                app: tuple[str, str] = servers.FLOOR) -> Phase:
    """The stream against a floor (``servers.FLOOR`` or ``FLOOR_STACK``), its table emptied first."""
    from .floor import CREATE_TABLE, TABLE

    with connection.cursor() as cursor:
        cursor.execute(CREATE_TABLE)
        cursor.execute(f"TRUNCATE {TABLE}")
    connection.close()
    paths = [surveys.REPORTS_PATH.format(slug=s) for s in prepared.slugs]
    log = options.log_dir / ("floor.log" if app == servers.FLOOR else "floor-stack.log")
    server = servers.start(app, options.gunicorn, database_url, redis_url, log)
    try:
        requests = client.build_requests(servers.HOST, server.port, paths, prepared.bodies)
        warm_up(server, list(prepared.surveys), surveys.REPORTS_PATH, options)
        result, cores = _load(server, requests, options, name_of(database_url), server.roots())
    finally:
        server.stop()
    accepted = checks.per_slug(prepared.slugs, result.status, 201)
    unanswered = checks.per_slug(prepared.slugs, result.status, client.NO_ANSWER)
    return Phase(FLOOR_NAMES[app], result, cores, checks.check_floor(list(prepared.surveys), accepted, unanswered))


def run(options: Options, database_url: str, redis_url: str, mechanisms=surveys.MECHANISMS, progress=print) -> Outcome:
    options.log_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    progress(f"preparing {len(mechanisms)} surveys and {options.requests} requests …")
    prepared = surveys.prepare(options.requests, options.seed_reports, np.random.default_rng(options.random_seed),
                               mechanisms)
    prepare_seconds = time.monotonic() - start
    progress(f"loading Coinflip ({options.gunicorn.describe()}) for {options.duration:g} s …")
    product, gets = product_phase(prepared, options, database_url, redis_url)
    floor = None
    if options.floor:
        progress(f"loading the floor peer ({options.gunicorn.describe()}) for {options.duration:g} s …")
        floor = floor_phase(prepared, options, database_url, redis_url)
    stack = None
    if options.floor_stack:
        progress(f"loading the floor under Coinflip's middleware ({options.gunicorn.describe()}) for "
                 f"{options.duration:g} s …")
        stack = floor_phase(prepared, options, database_url, redis_url, servers.FLOOR_STACK)
    return Outcome(options, prepared, product, floor, prepare_seconds, gets, stack)
