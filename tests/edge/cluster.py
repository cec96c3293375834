"""A private PostgreSQL cluster for one test module: ``initdb`` and ``pg_ctl`` of the installed server on a free
loopback port, trust authentication, its own socket directory — so a test may pause it (SIGSTOP to every one of its
processes, then SIGCONT), which it must never do to the machine's shared server. PostgreSQL refuses to run as root:
run as root (a container, CI), the cluster belongs to the ``postgres`` user and lives in a directory of its own
outside pytest's (root-only) temporary folder."""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from tests.integration.processes import free_port


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(Path(p).parts[4]))
    if not found:
        raise FileNotFoundError(f"no /usr/lib/postgresql/*/bin/{name}")
    return found[-1]


class Cluster:
    def __init__(self, root: Path):
        self.as_user: list[str] = []
        self.own_root = None
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            root = self.own_root = Path(tempfile.mkdtemp(prefix="coinflip-edge-pg-"))
            os.chown(root, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.data, self.sockets, self.log = root / "data", root / "sockets", root / "postgres.log"
        self.sockets.mkdir(parents=True, exist_ok=True)
        if self.own_root is not None:
            os.chown(self.sockets, owner.pw_uid, owner.pw_gid)
        self.port = free_port()

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> Cluster:
        subprocess.run([*self.as_user, _bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                        "-E", "UTF8", "--locale=C", "--no-sync"], check=True, capture_output=True, timeout=120)
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c max_connections=60"
        subprocess.run([*self.as_user, _bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log),
                        "-w", "-t", "60", "start"], check=True, capture_output=True, timeout=90)
        return self

    def stop(self) -> None:
        self.resume()  # a stopped process would not stop
        with contextlib.suppress(subprocess.SubprocessError):
            subprocess.run([*self.as_user, _bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                            "stop"], capture_output=True, timeout=60)
        if self.own_root is not None:
            shutil.rmtree(self.own_root, ignore_errors=True)

    def pids(self) -> list[int]:
        """The postmaster and every process it started (backends, checkpointer, WAL writer, …)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError):
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    children.append(int(stat.parent.name))
        return [postmaster, *children]

    def _signal(self, sig: int) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def pause(self) -> None:
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.data.joinpath("postmaster.pid").exists():
            self._signal(signal.SIGCONT)
