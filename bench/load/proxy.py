"""The edge of the benchmark: Debian's Caddy (``/usr/bin/caddy``) running docker/Caddyfile on loopback, in front of
the server under load — the product and the floor peer alike, so both pay the same proxy.

docker/compose.yml pins the Caddy image whose directives docker/Caddyfile uses (``request_buffers <size>``, Caddy
≥ 2.7); Debian's caddy 2.6.2 takes the older spelling of the same setting, ``buffer_requests`` with
``max_buffer_size <size>`` (2.7 accepted both; 2.8 removed the old one). ``debian_caddyfile`` derives Debian's copy
by that substitution alone (tests/edge/test_caddyfile.py checks that nothing else differs). The site address, its
bind address and the upstream come from the environment (``site_env``), as in compose.
"""
from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

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
    """Caddy's environment: plain HTTP on 127.0.0.1:``site_port`` to a server on 127.0.0.1:``upstream_port``, its
    state under ``home`` (no admin endpoint: ``admin off``)."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "COINFLIP_SITE_ADDRESS": f"http://127.0.0.1:{site_port}",
            "COINFLIP_PROXY_BIND": "127.0.0.1", "COINFLIP_UPSTREAM_HOST": "127.0.0.1",
            "COINFLIP_UPSTREAM_PORT": str(upstream_port)}


def command(config: Path) -> list[str]:
    return [str(DEBIAN_CADDY), "run", "--config", str(config), "--adapter", "caddyfile"]


def write_config(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    config = home / "Caddyfile"
    config.write_text(debian_caddyfile())
    return config


@dataclass
class Proxy:
    """A running Caddy; ``stop()`` ends it."""

    process: subprocess.Popen
    port: int

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(home: Path, site_port: int, upstream_port: int, log: Path, wait: float = 30.0) -> Proxy:
    """Start Caddy on 127.0.0.1:``site_port`` in front of 127.0.0.1:``upstream_port`` and wait until it listens."""
    if not DEBIAN_CADDY.exists():
        raise RuntimeError("no /usr/bin/caddy: apt-get install caddy (Debian's package; .ci/run installs it)")
    config = write_config(home)
    with open(log, "ab") as handle:
        process = subprocess.Popen(command(config), env=site_env(home, site_port, upstream_port), stdout=handle,
                                   stderr=subprocess.STDOUT)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"caddy exited with status {process.returncode}; see {log}")
        try:
            with socket.create_connection(("127.0.0.1", site_port), timeout=1):
                return Proxy(process, site_port)
        except OSError:
            time.sleep(0.1)
    Proxy(process, site_port).stop()
    raise RuntimeError(f"caddy did not listen within {wait:g} s; see {log}")
