"""Debian's Caddy running docker/Caddyfile on loopback, and the one directive that differs between Caddy versions.

docker/compose.yml pins the Caddy image whose directives docker/Caddyfile uses (``request_buffers <size>``, Caddy
≥ 2.7); Debian's caddy 2.6.2 (``/usr/bin/caddy``) takes the older spelling of the same setting, ``buffer_requests`` with
``max_buffer_size <size>`` (2.7 accepted both; 2.8 removed the old one). ``debian_caddyfile`` derives Debian's copy by
that substitution alone — ``test_caddyfile.py`` checks that nothing else differs and that the copy adapts to the same
JSON handler settings. The site address, its bind address and the upstream come from the environment
(``COINFLIP_SITE_ADDRESS``, ``COINFLIP_PROXY_BIND``, ``COINFLIP_UPSTREAM_HOST`` / ``_PORT``), as in compose, where they
default to the domain, every interface and Docker's ``web`` service.
"""
from __future__ import annotations

import contextlib
import re
import socket
import subprocess
from pathlib import Path

from tests.integration.processes import Process, free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "docker" / "Caddyfile"
DEBIAN_CADDY = Path("/usr/bin/caddy")
_REQUEST_BUFFERS = re.compile(r"^(\s*)request_buffers (\S+)$", re.M)


def debian_caddyfile(text: str | None = None) -> str:
    """docker/Caddyfile for Debian's caddy 2.6.2: ``request_buffers N`` becomes ``buffer_requests`` and
    ``max_buffer_size N``."""
    text = CADDYFILE.read_text() if text is None else text
    converted, count = _REQUEST_BUFFERS.subn(r"\1buffer_requests\n\1max_buffer_size \2", text)
    if count != 1:
        raise ValueError(f"expected one request_buffers directive in the Caddyfile, found {count}")
    return converted


def caddy_version() -> str:
    return subprocess.run([str(DEBIAN_CADDY), "version"], capture_output=True, text=True, check=True).stdout.split()[0]


def site_env(home: Path, site_port: int, upstream_port: int) -> dict:
    """Caddy's environment: plain HTTP on 127.0.0.1:``site_port`` to gunicorn on 127.0.0.1:``upstream_port``, its
    state under ``home`` (no admin endpoint: ``admin off``)."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "COINFLIP_SITE_ADDRESS": f"http://127.0.0.1:{site_port}",
            "COINFLIP_PROXY_BIND": "127.0.0.1", "COINFLIP_UPSTREAM_HOST": "127.0.0.1",
            "COINFLIP_UPSTREAM_PORT": str(upstream_port)}


class Caddy(Process):
    """``caddy run`` with Debian's copy of docker/Caddyfile, in front of gunicorn at ``upstream_port``."""

    def __init__(self, home: Path, upstream_port: int):
        home.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        config = home / "Caddyfile"
        config.write_text(debian_caddyfile())
        super().__init__([str(DEBIAN_CADDY), "run", "--config", str(config), "--adapter", "caddyfile"],
                         site_env(home, self.port, upstream_port), home / "caddy.log")

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
