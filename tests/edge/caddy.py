"""Debian's Caddy running docker/Caddyfile on loopback (``bench.load.proxy`` derives Debian's copy of the file: one
directive differs between the compose image and Debian's caddy 2.6.2)."""
from __future__ import annotations

import contextlib
import socket
from pathlib import Path

from bench.load.proxy import CADDYFILE, DEBIAN_CADDY, caddy_version, command, debian_caddyfile, site_env, write_config
from tests.integration.processes import Process, free_port, wait_for

__all__ = ["CADDYFILE", "DEBIAN_CADDY", "Caddy", "caddy_version", "debian_caddyfile", "site_env"]


class Caddy(Process):
    """``caddy run`` with Debian's copy of docker/Caddyfile, in front of gunicorn at ``upstream_port``."""

    def __init__(self, home: Path, upstream_port: int):
        self.port = free_port()
        super().__init__(command(write_config(home)), site_env(home, self.port, upstream_port), home / "caddy.log")

    def start(self, timeout: float = 30):
        super().start()

        def listening():
            if self.popen.poll() is not None:
                raise RuntimeError(f"caddy exited:\n{self.log()[-3000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
            return False
        wait_for(listening, timeout, "caddy", interval=0.1)
        return self
