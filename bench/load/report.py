"""Figures and tables of a load run: throughput and latency per mechanism, the exactly-once checks, the targets.

Latencies are over every request that got an HTTP answer, from its due time (open loop) or its send (closed loop).
"Sustained" is the lowest accepted-reports rate over the run's whole 5-second windows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .client import NO_ANSWER, LoadResult

#: Targets of issue 5 ("Load").
TARGET_RATE = 1000.0
TARGET_P99_MS = 250.0
WINDOW_S = 5.0

BEGIN, END = "<!-- bench.load:begin -->", "<!-- bench.load:end -->"


@dataclass
class Row:
    name: str
    sent: int
    accepted: int
    rejected: int
    server_errors: int
    unanswered: int
    rate: float
    p50: float
    p95: float
    p99: float
    worst: float

    def cells(self) -> list[str]:
        return [self.name, str(self.sent), str(self.accepted), str(self.rejected), str(self.server_errors),
                str(self.unanswered), f"{self.rate:,.0f}", f"{self.p50:.1f}", f"{self.p95:.1f}", f"{self.p99:.1f}",
                f"{self.worst:.0f}"]


HEADER = ["mechanism", "sent", "201", "4xx", "5xx", "no answer", "accepted/s", "p50 ms", "p95 ms", "p99 ms", "max ms"]


def row(name: str, result: LoadResult, mask: np.ndarray) -> Row:
    status = result.status[mask]
    answered = status > NO_ANSWER
    latency_ms = result.latency[mask][answered] * 1000.0
    p50, p95, p99, worst = (np.percentile(latency_ms, [50, 95, 99, 100]) if latency_ms.size else (np.nan,) * 4)
    accepted = int((status == 201).sum())
    return Row(name, int((status != -1).sum()), accepted, int(((status >= 400) & (status < 500)).sum()),
               int((status >= 500).sum()), int((status == NO_ANSWER).sum()),
               accepted / result.elapsed if result.elapsed else 0.0, p50, p95, p99, worst)


def rows(result: LoadResult, slugs: list[str], labels: dict[str, str], overall: str = "all mechanisms") -> list[Row]:
    """One row per mechanism (in ``labels`` order), then the overall row."""
    slug_array = np.asarray(slugs)
    out = [row(label, result, slug_array == slug) for slug, label in labels.items()]
    out.append(row(overall, result, np.ones(len(slugs), dtype=bool)))
    return out


def sustained(result: LoadResult, duration: float) -> float:
    """The lowest accepted-reports rate over the whole ``WINDOW_S`` windows of ``[0, duration)``."""
    done = result.finished[result.status == 201]
    windows = int(duration // WINDOW_S)
    if windows == 0:
        return float(len(done)) / duration if duration else 0.0
    counts, _ = np.histogram(done, bins=windows, range=(0.0, windows * WINDOW_S))
    return float(counts.min()) / WINDOW_S


def markdown_table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def write_docs(path: Path, block: str) -> None:
    """Replace the text between the ``bench.load`` markers of ``path`` (appending a Load section if absent)."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    generated = f"{BEGIN}\n{block.strip()}\n{END}"
    if BEGIN in text and END in text:
        text = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: generated, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n## Load\n\n" + generated + "\n"
    path.write_text(text)


def _cores(cores: dict[str, float]) -> str:
    return ", ".join(f"{name} {value:.2f}" for name, value in cores.items())


def _per_request(result: LoadResult) -> str:
    """CPU milliseconds the server and PostgreSQL spent per answered request."""
    answered = int((result.status > NO_ANSWER).sum())
    parts = [f"{name} {1000 * result.cpu_seconds.get(name, 0.0) / answered:.2f}" for name in ("server", "postgres")]
    return ", ".join(parts) + " ms CPU per request" if answered else "no answer"


def render(outcome, machine: str) -> str:
    """The markdown block of a run (``run.Outcome``): setup, throughput/latency, exactly-once checks, targets."""
    options, prepared, product, floor = outcome.options, outcome.prepared, outcome.product, outcome.floor
    labels = {slug: prepared.label(slug) for slug in prepared.surveys}
    mode = (f"open loop at {options.rate:,.0f} requests/s offered" if options.rate > 0
            else f"closed loop over {options.connections} connections")
    folds = product.folds
    fold_text = (f"{len(folds)} folds raced the inserts (every {options.fold_every:g} s per survey; longest "
                 f"{1000 * max(f['seconds'] for f in folds):.0f} ms)" if folds else "no fold during the load")
    lines = [
        f"Run: {machine}; {options.gunicorn.describe()}; {mode}, {options.duration:g} s, up to "
        f"{options.connections} keep-alive connections; {options.requests:,} pre-generated requests over "
        f"{len(labels)} surveys ({options.seed_reports} seed reports each); {fold_text}.",
        "",
        f"CPU during the Coinflip load (cores): {_cores(product.cores)} — {_per_request(product.result)}"
        + (f"; during the floor load: {_cores(floor.cores)} — {_per_request(floor.result)}" if floor else "")
        + ".",
        "",
    ]
    product_rows = rows(product.result, prepared.slugs, labels, overall="**all mechanisms**")
    body = [["Coinflip"] + r.cells() for r in product_rows]
    if floor:
        everything = np.ones(len(prepared.slugs), bool)
        body.append(["floor: plain Django"] + row("same stream", floor.result, everything).cells())
    lines += [markdown_table(["server"] + HEADER, body), ""]

    check_body = [[labels[c.slug], str(c.seeded), str(c.accepted), str(c.stored),
                   verdict(c.stored_ok) + ("" if c.exact else f" (±{c.unanswered} unanswered)"),
                   str(c.folded), verdict(c.folded_ok)] for c in product.checks]
    if floor:
        check_body.append(["floor (all slugs)", "0", str(sum(c.accepted for c in floor.checks)),
                           str(sum(c.stored for c in floor.checks)),
                           verdict(all(c.stored_ok for c in floor.checks)), "—", "—"])
    lines += [markdown_table(["survey", "seeded", "201", "stored", "stored = seeded + 201", "folded",
                              "folded = stored, statistics = fold from scratch"], check_body), ""]

    overall = product_rows[-1]
    window = sustained(product.result, options.duration)
    exact = all(c.ok and c.exact for c in product.checks)
    targets = [
        ["≥ 1,000 accepted reports/s sustained", f"{overall.rate:,.0f}/s overall, lowest {WINDOW_S:g}-s window "
         f"{window:,.0f}/s", verdict(overall.rate >= TARGET_RATE and window >= TARGET_RATE)],
        ["p99 < 250 ms", f"{overall.p99:.1f} ms", verdict(overall.p99 < TARGET_P99_MS)],
        ["zero lost or duplicated reports", f"{sum(c.ok for c in product.checks)}/{len(product.checks)} surveys "
         f"exact; {overall.server_errors} 5xx, {overall.unanswered} unanswered, {overall.rejected} 4xx",
         verdict(exact and overall.server_errors == 0 and overall.unanswered == 0 and overall.rejected == 0)],
    ]
    if floor:
        floor_row = row("floor", floor.result, np.ones(len(prepared.slugs), bool))
        targets.append(["Coinflip vs the floor", f"{overall.rate:,.0f} vs {floor_row.rate:,.0f} accepted/s; p99 "
                        f"{overall.p99:.1f} vs {floor_row.p99:.1f} ms", "—"])
    lines += [markdown_table(["target", "measured", "verdict"], targets)]
    for error in product.retrain_errors:
        lines += ["", f"`manage.py retrain {error['slug']}` failed after its fold: {error['error']}"]
    return "\n".join(lines)


def passed(outcome) -> bool:
    product = outcome.product
    overall = rows(product.result, outcome.prepared.slugs, {})[-1]
    return (overall.rate >= TARGET_RATE and sustained(product.result, outcome.options.duration) >= TARGET_RATE
            and overall.p99 < TARGET_P99_MS and overall.server_errors == 0 and overall.unanswered == 0
            and overall.rejected == 0 and all(c.ok and c.exact for c in product.checks))
