"""docker/Caddyfile and docker/gunicorn.conf.py against each other, and against the Caddy versions that run them: the
compose image (pinned in docker/compose.yml) and Debian's caddy 2.6.2, whose copy differs by one directive only."""
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from .caddy import CADDYFILE, DEBIAN_CADDY, caddy_version, debian_caddyfile, site_env

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "docker" / "gunicorn.conf.py"


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", value).groups()
    return float(number) * {"ms": 0.001, "s": 1, "m": 60}[unit]


def directives(text: str) -> list[str]:
    """The configuration's lines without comments and blank lines."""
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def test_debians_copy_differs_by_the_request_buffers_directive_alone():
    compose_lines, debian_lines = directives(CADDYFILE.read_text()), directives(debian_caddyfile())
    assert [line for line in compose_lines if line not in debian_lines] == ["request_buffers 10MiB"]
    assert [line for line in debian_lines if line not in compose_lines] == ["buffer_requests",
                                                                            "max_buffer_size 10MiB"]


def test_the_compose_image_is_pinned_to_a_version_that_takes_request_buffers():
    """request_buffers exists from Caddy 2.7 on; the image is pinned to an exact release, not a moving tag."""
    image = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())["services"]["proxy"]["image"]
    major, minor, _patch = re.fullmatch(r"caddy:(\d+)\.(\d+)\.(\d+)-alpine", image).groups()
    assert (int(major), int(minor)) >= (2, 7)


@pytest.mark.skipif(not DEBIAN_CADDY.exists(), reason="Debian's caddy is not installed (.ci/run installs it)")
def test_debians_caddy_adapts_the_copy_to_the_intended_handler(tmp_path):
    """caddy adapt: every body buffered whole up to 10 MiB (more than any body allowed), report bodies capped at the
    API's MAX_REPORT_BYTES and others at 10 MB, the timeouts, and an upstream keep-alive shorter than gunicorn's."""
    from survey_app.api import MAX_REPORT_BYTES

    assert caddy_version().lstrip("v").startswith("2.6.")
    config = tmp_path / "Caddyfile"
    config.write_text(debian_caddyfile())
    out = subprocess.run([str(DEBIAN_CADDY), "adapt", "--config", str(config), "--adapter", "caddyfile"],
                         env=site_env(tmp_path, 8443, 8000), capture_output=True, text=True, check=True).stdout
    server = json.loads(out)["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == ["127.0.0.1:8443"]
    assert server["read_header_timeout"] == 10e9 and server["read_timeout"] == 30e9
    handlers = [h for route in server["routes"][0]["handle"][0]["routes"] for h in route["handle"]]
    limits = sorted(h["max_size"] for h in handlers if h["handler"] == "request_body")
    assert limits == [MAX_REPORT_BYTES, 10_000_000]
    (proxy,) = [h for h in handlers if h["handler"] == "reverse_proxy"]
    assert proxy["buffer_requests"] is True and proxy["max_buffer_size"] > max(limits)
    assert proxy["dynamic_upstreams"] == {"source": "a", "name": "127.0.0.1", "port": "8000", "refresh": 10e9}
    assert "trusted_proxies" not in json.dumps(server)  # Caddy sets X-Forwarded-For and -Proto itself: one hop
    idle = proxy["transport"]["keep_alive"]["idle_timeout"] / 1e9
    assert idle < gunicorn_keepalive()


def gunicorn_keepalive() -> float:
    return float(re.search(r'^keepalive = _int\("GUNICORN_KEEPALIVE", (\d+)\)', GUNICORN_CONF.read_text(),
                           re.M).group(1))


def test_caddys_upstream_keepalive_is_shorter_than_gunicorns_by_a_poll_interval():
    """gunicorn closes an idle connection between ``keepalive`` and ``keepalive`` + 1 s (its event loop wakes every
    second); Caddy's idle timeout must end before the first of those, with a second to spare."""
    caddy = re.search(r"transport http \{\s*keepalive (\S+)", CADDYFILE.read_text()).group(1)
    assert seconds(caddy) + 1 <= gunicorn_keepalive()


def test_gunicorn_runs_its_stock_threaded_worker():
    text = GUNICORN_CONF.read_text()
    assert re.search(r'^worker_class = "gthread"$', text, re.M)
    assert "coinflip." not in re.search(r"^worker_class = .*$", text, re.M).group(0)
