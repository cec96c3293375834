"""Who used the 2 cores during a run: CPU seconds per process group, read from ``/proc`` (Linux only).

Groups: the server (gunicorn's master and workers) and any other process tree named by the caller, the PostgreSQL
backends serving the benchmark's database (their command line names it), the load generator (this process), and
"other": the machine's busy time (``/proc/stat``) less those groups — other users' work, short-lived processes and
the kernel's (loopback networking included), which the table reports so a run on a busy machine reads as such.
"""
from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (all cores; not idle or waiting for I/O), from ``/proc/stat``."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / TICKS  # user … steal, less idle and iowait


def snapshot() -> dict[int, tuple[int, float, str]]:
    """{pid: (parent pid, CPU seconds so far, command line)} of every process visible now; key -1: the machine's
    busy CPU seconds (``machine_busy``)."""
    out = {-1: (0, machine_busy(), "")}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        out[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS, cmdline)
    return out


def usage(before: dict, after: dict, roots: dict[str, int], database: str, seconds: float) -> dict[str, float]:
    """Cores used on average by each group between two snapshots taken ``seconds`` apart; ``roots`` names the
    processes that, with their children, form a group (e.g. ``{"server": gunicorn master pid}``)."""
    me = os.getpid()
    cores = {**{name: 0.0 for name in roots}, "postgres": 0.0, "generator": 0.0, "other": 0.0}
    by_pid = {pid: name for name, pid in roots.items()}
    for pid, (ppid, cpu, cmdline) in after.items():
        if pid == -1:
            continue
        spent = cpu - before.get(pid, (0, 0.0, ""))[1]
        if pid in by_pid or ppid in by_pid:
            group = by_pid.get(pid) or by_pid[ppid]
        elif cmdline.startswith("postgres:") and f" {database} " in cmdline:
            group = "postgres"
        elif pid == me:
            group = "generator"
        else:
            group = "other"
        cores[group] += max(spent, 0.0) / seconds
    # Everything else: the machine's busy time less the groups above (processes that came and went in between,
    # kernel work such as loopback networking, other users).
    busy = (after[-1][1] - before[-1][1]) / seconds
    cores["other"] = max(busy - sum(v for k, v in cores.items() if k != "other"), cores["other"])
    return cores


def wait_for_quiet(cores: float, window: float, limit: float, sleep=None) -> float:
    """Wait until the machine was busy less than ``cores`` on average over ``window`` seconds (a shared machine:
    other users' jobs come and go), at most ``limit`` seconds; returns the busy cores of the last window."""
    import time

    sleep = sleep or time.sleep
    deadline = time.monotonic() + limit
    while True:
        before = machine_busy()
        sleep(window)
        busy = (machine_busy() - before) / window
        if busy < cores or time.monotonic() >= deadline:
            return busy
