"""docker/: the files a deployment uses, checked against each other and against the settings (Docker itself cannot
run here; test_live.py runs the same processes). The compose stack has its five services, health checks, volumes and
environment; the image is multi-stage, collects static files at build time and runs unprivileged; every variable the
settings and gunicorn's configuration read is documented in docker/README.md."""
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
APP_SERVICES = ("web", "worker", "beat")


def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yml").read_text())


def test_compose_services_health_checks_and_volumes():
    stack = compose()
    services = stack["services"]
    assert set(services) >= {"web", "worker", "beat", "redis", "db", "proxy"}
    for name in APP_SERVICES:
        service = services[name]
        assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
        assert service["read_only"] is True and service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
        environment = service["environment"]
        for variable in ("COINFLIP_PRODUCTION", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL",
                         "REDIS_URL"):
            assert environment.get(variable), (name, variable)
        assert environment["DATABASE_URL"].endswith("@db:5432/coinflip")
        assert environment["REDIS_URL"] == "redis://redis:6379/0"
    assert services["web"]["environment"]["COINFLIP_MIGRATE"] == "1"
    assert "COINFLIP_MIGRATE" not in services["worker"]["environment"]
    for name in ("web", "worker", "redis", "db"):
        assert services[name]["healthcheck"]["test"], name
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["worker"]["depends_on"]["web"]["condition"] == "service_healthy"
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1
    assert set(stack["volumes"]) >= {"pgdata", "redis", "media"}
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    published = [name for name, service in services.items() if service.get("ports")]
    assert published == ["proxy"]  # only the TLS proxy is reachable from outside


def test_worker_command_is_the_documented_one():
    command = compose()["services"]["worker"]["command"]
    assert command[:4] == ["celery", "-A", "coinflip", "worker"]
    assert "--prefetch-multiplier=1" in command and "fair" in command and "worker@%h" in command


def test_dockerfile_is_multi_stage_collects_static_and_runs_unprivileged():
    text = (DOCKER / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)", text, re.M)
    assert stages == ["build", "runtime"]
    build, runtime = text.split("AS runtime")
    assert "manage.py collectstatic --noinput" in build
    assert "COPY --from=build /app /app" in runtime and "COPY --from=build /opt/venv /opt/venv" in runtime
    user = re.findall(r"^USER (\S+)", runtime, re.M)
    assert user and not user[-1].startswith(("root", "0"))
    assert "gunicorn.conf.py" in re.search(r"^CMD (.*)$", runtime, re.M).group(1)
    assert re.search(r"^HEALTHCHECK .*\n.*healthz", runtime, re.M)
    ignored = (DOCKER / "Dockerfile.dockerignore").read_text().split()
    assert {"**/.venv", "**/.git", "docker/.env"} <= set(ignored)


def variables_read() -> set[str]:
    """Every environment variable that the settings, gunicorn's configuration and the entry point read."""
    sources = [ROOT / "coinflip" / "settings.py", DOCKER / "gunicorn.conf.py", DOCKER / "migrate.py",
               DOCKER / "entrypoint.sh", DOCKER / "Caddyfile"]
    pattern = re.compile(r"""(?:environ(?:\.get)?[(\[]\s*|env_bool\(|env_list\(|_int\(|\$\{)["']?([A-Z][A-Z0-9_]+)""")
    return {name for source in sources for name in pattern.findall(source.read_text())}


def test_every_variable_is_documented():
    readme = (DOCKER / "README.md").read_text()
    undocumented = {name for name in variables_read() - {"CELERY_TASK_ALWAYS_EAGER", "DJANGO_DEBUG"}
                    if f"`{name}`" not in readme}
    assert undocumented == set()
    assert {"DJANGO_SECRET_KEY", "COINFLIP_TRUSTED_PROXIES", "WEB_CONCURRENCY"} <= variables_read()


def test_env_example_names_the_secrets_compose_requires():
    required = set(re.findall(r"\$\{(\w+):\?", (DOCKER / "compose.yml").read_text()))
    example = (DOCKER / "env.example").read_text()
    assert required == {"DJANGO_SECRET_KEY", "POSTGRES_PASSWORD"}
    assert all(re.search(rf"^{name}=$", example, re.M) for name in required)


def test_the_proxy_bounds_bodies_and_overwrites_forwarding_headers():
    """The Caddyfile's half of the proxy contract, read as text (tests/edge runs it with Debian's Caddy and checks what
    it buffers and bounds): report bodies capped at the API's MAX_REPORT_BYTES, read timeouts, and no trusted_proxies
    (Caddy then overwrites X-Forwarded-For: one hop, COINFLIP_TRUSTED_PROXIES=1)."""
    from survey_app.api import MAX_REPORT_BYTES

    caddyfile = (DOCKER / "Caddyfile").read_text()
    code = "\n".join(line.split("#", 1)[0] for line in caddyfile.splitlines())
    units = {"KiB": 1024, "MiB": 1024 ** 2, "KB": 1000, "MB": 1000 ** 2}
    reports = re.search(r"request_body @reports \{\s*max_size (\d+)(\w+)", code)
    assert int(reports.group(1)) * units[reports.group(2)] == MAX_REPORT_BYTES
    assert re.search(r"@reports path_regexp \^/api/surveys/\[\^/\]\+/reports/\$", code)
    assert re.search(r"read_header \d+s", code) and re.search(r"read_body \d+s", code)
    assert "trusted_proxies" not in code and "X-Forwarded-For" not in code  # Caddy's own, overwriting defaults
    proxy = compose()["services"]["proxy"]
    assert re.fullmatch(r"caddy:2\.([5-9]|\d\d)[\w.-]*", proxy["image"])  # >= 2.5: untrusted X-Forwarded-* dropped
    assert proxy["environment"]["COINFLIP_SITE_ADDRESS"] == "${COINFLIP_DOMAIN:-localhost}"
    web = compose()["services"]["web"]["environment"]
    assert web["COINFLIP_TRUSTED_PROXIES"] == "1"
