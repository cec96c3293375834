"""Coinflip settings, read from environment variables.

Embedded default (no variables set): SQLite in ``var/`` and Celery over kombu's filesystem transport, so one
command runs the whole product on a laptop. ``DATABASE_URL`` (e.g. ``postgres://user@127.0.0.1:5432/coinflip``)
and ``REDIS_URL`` (e.g. ``redis://127.0.0.1:6379/0``) switch to PostgreSQL and Redis.

``COINFLIP_PRODUCTION=1`` turns on the production settings (section "Production and security" below; every variable
is listed in docker/README.md): HTTPS only (redirect, HSTS, secure cookies), collected and content-hashed static
files, and a required ``DJANGO_SECRET_KEY``. ``python manage.py check --deploy`` is clean under them
(tests/deploy/test_check_deploy.py). In every mode: a Content-Security-Policy without 'unsafe-inline' and login
throttling (django-axes).
"""
from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("COINFLIP_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


PRODUCTION = env_bool("COINFLIP_PRODUCTION")
DEBUG = env_bool("DJANGO_DEBUG", default=False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or (
    "insecure-development-key-set-DJANGO_SECRET_KEY-in-production" if DEBUG or not PRODUCTION else ""
)
if not SECRET_KEY:
    raise RuntimeError("DJANGO_SECRET_KEY must be set when COINFLIP_PRODUCTION is on")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",  # the management API's tokens (survey_app/manage_api.py)
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our static files, not a CDN
    "django_celery_beat",
    "csp",
    "axes",
    "survey_app",
    "aggregator",
]

MIDDLEWARE = [
    "coinflip.middleware.HealthCheckMiddleware",  # first: /healthz before the host check and the HTTPS redirect
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "coinflip.middleware.DatabaseUnavailableMiddleware",
    "coinflip.middleware.NulByteMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # after sessions, before common: cookie or Accept-Language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: answers a locked-out login with 429
]

ROOT_URLCONF = "coinflip.urls"
WSGI_APPLICATION = "coinflip.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # embedded default keeps its files here

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # An unreachable server fails a request within seconds (a 503) instead of holding a worker's thread until
    # gunicorn's arbiter kills the worker.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
    if os.environ.get("DATABASE_PREPARED_STATEMENTS", "1") != "0":
        # Parameters bound by the server and a statement prepared on its third execution in a connection: PostgreSQL
        # then parses and plans a report's INSERT once per connection, not per report. "0" behind a pooler that
        # cannot keep prepared statements
        # (PgBouncer before 1.21, or without max_prepared_statements, in transaction mode): docker/README.md.
        for option, value in (("server_side_binding", True), ("prepare_threshold", 2)):
            DATABASES["default"]["OPTIONS"].setdefault(option, value)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages of the pages (docs/operations.md, "Languages"): chosen from the browser's Accept-Language, or the
# switch in the page header (Django's set_language view, which sets the language cookie). The catalogue is
# locale/<code>/LC_MESSAGES/django.po (compiled django.mo committed); the JavaScript's is static/js/locale/<code>.mjs.
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Coinflip API",
    "DESCRIPTION": "Randomized-response surveys: protocols, randomized reports and published Naive Bayes models.",
    "VERSION": "0.1.0",
    # Swagger UI from drf-spectacular-sidecar's static files (no CDN: the CSP allows only 'self'). Its page needs the
    # split view (coinflip/urls.py: SpectacularSwaggerSplitView), which loads the initialising script from a URL
    # instead of inlining it; the page's one inline <style> is allowed by its hash (COINFLIP_CSP_SWAGGER_UI_STYLE,
    # below).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # drf-spectacular's default hook, and the report body's schema closed
    # (survey_app.respondent_views.close_report_body).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "survey_app.respondent_views.close_report_body"],
}

# --- Celery ---------------------------------------------------------------------------------------
# Recovery bounds (docs/operations.md): no task runs longer than COINFLIP_TASK_TIME_LIMIT seconds (Celery's hard limit;
# the soft limit, a minute earlier or at 90 %, lets a job record why it stopped). Tasks are acknowledged late, so Redis
# redelivers the task of a worker killed outright once the visibility timeout has passed: the time limit plus a
# margin, so that no task still running is ever delivered a second time. A running job beats every quarter of
# COINFLIP_JOB_STALE_SECONDS; one silent for longer lost its worker and is marked failed (aggregator.jobs.reap_stale).
COINFLIP_TASK_TIME_LIMIT = env_int("COINFLIP_TASK_TIME_LIMIT", 1800)
COINFLIP_JOB_STALE_SECONDS = env_int("COINFLIP_JOB_STALE_SECONDS", 120)
# A model includes whole UTC days only: a day is closed this long after midnight (docs/threat-model.md), longer than
# any report request may take.
COINFLIP_CLOSE_GRACE_SECONDS = env_int("COINFLIP_CLOSE_GRACE_SECONDS", 600)
if COINFLIP_CLOSE_GRACE_SECONDS < 60:
    raise ImproperlyConfigured("COINFLIP_CLOSE_GRACE_SECONDS must be at least 60 (seconds after midnight, UTC).")
CELERY_TASK_TIME_LIMIT = COINFLIP_TASK_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = max(1, min(COINFLIP_TASK_TIME_LIMIT - 60, int(COINFLIP_TASK_TIME_LIMIT * 0.9)))
COINFLIP_VISIBILITY_TIMEOUT = COINFLIP_TASK_TIME_LIMIT + max(10, COINFLIP_TASK_TIME_LIMIT // 10)
# The live window (docs/threat-model.md): every survey's inbox is drained, and its redemptions rewritten, at least this
# often, whatever its retrain_minutes (which paces publishing only); 1 to 10 minutes.
COINFLIP_DRAIN_MINUTES = env_int("COINFLIP_DRAIN_MINUTES", 10)
if not 1 <= COINFLIP_DRAIN_MINUTES <= 10:
    raise ImproperlyConfigured("COINFLIP_DRAIN_MINUTES must be between 1 and 10 (minutes).")
CELERY_BEAT_SCHEDULE = {
    "reap stale jobs": {"task": "aggregator.tasks.reap_stale_jobs", "schedule": 60.0},
    "settle closed surveys": {"task": "aggregator.tasks.settle_closed_surveys", "schedule": 600.0},
    "drain inboxes": {"task": "aggregator.tasks.drain_inboxes", "schedule": 60.0 * COINFLIP_DRAIN_MINUTES},
    "survey calendars": {"task": "survey_app.tasks.apply_survey_calendars", "schedule": 60.0},
}
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND: str | None = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {"visibility_timeout": COINFLIP_VISIBILITY_TIMEOUT}
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": COINFLIP_VISIBILITY_TIMEOUT}
else:
    # Embedded default: kombu's filesystem transport needs no server.
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # django.request logs the path of every 4xx/5xx answer, and runserver's django.server every request line (`make
    # run`): invitation tokens in survey URLs are replaced; and no line keeps an IP address or a query string
    # (coinflip.security.RedactAddressesFilter). Celery logs no "succeeded" line for a drain task
    # (coinflip.security.QuietDrainFilter): its duration, result and time grow with the reports the drain moved.
    "filters": {"redact_tokens": {"()": "coinflip.security.RedactTokensFilter"},
                "redact_addresses": {"()": "coinflip.security.RedactAddressesFilter"},
                "quiet_drains": {"()": "coinflip.security.QuietDrainFilter"}},
    "formatters": {"server": {"()": "django.utils.log.ServerFormatter", "format": "[{server_time}] {message}",
                              "style": "{"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_tokens", "redact_addresses"]},
                 "server": {"class": "logging.StreamHandler", "formatter": "server",
                            "filters": ["redact_tokens", "redact_addresses"]}},
    "loggers": {"django.server": {"handlers": ["server"], "level": "INFO", "propagate": False,
                                  "filters": ["redact_addresses"]},
                "celery.app.trace": {"filters": ["quiet_drains", "redact_addresses"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}

# Outside production, serve static files straight from the source folders (no stale collectstatic output).
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = not PRODUCTION

# Uploaded files (public reference samples for PCA/DCA).
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "media/"

# --- Production and security ---------------------------------------------------------------------------------------
# Every variable below is described in docker/README.md. In production (COINFLIP_PRODUCTION=1) the defaults are the
# strict ones, and `manage.py check --deploy` prints no warning with only DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS,
# DATABASE_URL and REDIS_URL set.

# Reverse proxies in front of gunicorn (a TLS-terminating proxy or load balancer). With N >= 1, Django takes the
# scheme from X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER: the proxy must set that header itself, overwriting any value
# a client sent) and login throttling takes the client's address from X-Forwarded-For (coinflip.security.client_ip):
# the entry N places from the right — what the N proxies appended — and only on connections whose own address is in
# COINFLIP_TRUSTED_PROXY_NETWORKS (the nearest proxy; default loopback and private networks, where compose's Caddy
# and most load balancers connect from); any other connection counts against its own address, whatever it sends.
# Never set it without such a proxy: clients could then claim HTTPS.
COINFLIP_TRUSTED_PROXIES = int(os.environ.get("COINFLIP_TRUSTED_PROXIES", "0"))
COINFLIP_TRUSTED_PROXY_NETWORKS = env_list(
    "COINFLIP_TRUSTED_PROXY_NETWORKS", "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7")
if COINFLIP_TRUSTED_PROXIES > 0:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")  # e.g. https://survey.example.org
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    # The preload token only consents to inclusion in the browsers' HSTS lists; submitting the domain at
    # hstspreload.org is a separate, deliberate step. Set 0 to leave it out (check --deploy then warns W021).
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env_bool("DJANGO_CSRF_COOKIE_SECURE", default=True)
    LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE  # the language switch's cookie (coinflip/urls.py)

# Email (invitations by email: survey_app/mailing.py) through an SMTP server: DJANGO_EMAIL_HOST (default localhost),
# DJANGO_EMAIL_PORT (25), DJANGO_EMAIL_HOST_USER, DJANGO_EMAIL_HOST_PASSWORD, DJANGO_EMAIL_USE_TLS (STARTTLS) or
# DJANGO_EMAIL_USE_SSL, DJANGO_DEFAULT_FROM_EMAIL. The mails hold invitation links: no backend that writes them to a
# log or the console. COINFLIP_MAIL_CHUNK mails per SMTP connection, COINFLIP_MAIL_PAUSE seconds between connections.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = 30
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "coinflip@localhost")
COINFLIP_MAIL_CHUNK = int(os.environ.get("COINFLIP_MAIL_CHUNK", "50"))
COINFLIP_MAIL_PAUSE = float(os.environ.get("COINFLIP_MAIL_PAUSE", "1.0"))

# Content-Security-Policy (django-csp) on every response, in every mode, without 'unsafe-inline' or 'unsafe-eval':
# scripts, styles, fonts and images only from this site. The survey page adds the hash of its inline import map
# (survey_app/integrity.py). Two inline blocks of installed packages are allowed by their hashes, which
# tests/deploy/test_csp.py recomputes (update them after upgrading those packages): the <style> of drf-spectacular's
# Swagger UI page, and the script of django-celery-beat's periodic-task form (its crontab help).
COINFLIP_CSP_SWAGGER_UI_STYLE = "'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='"
COINFLIP_CSP_CELERY_BEAT_SCRIPT = "'sha256-QE3U2xYF7B4J2ro1/9oxiKhaWCGW39gB7ocQ/xlD0bE='"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", COINFLIP_CSP_CELERY_BEAT_SCRIPT],
        "style-src": ["'self'", COINFLIP_CSP_SWAGGER_UI_STYLE],
        "img-src": ["'self'", "data:"],  # Swagger UI's and the admin's stylesheets embed small data: images
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# Where the survey page's "how to verify the randomizer" link points (e.g. docs/verify-randomizer.md in the published
# source repository). Empty: the page names that file instead.
COINFLIP_VERIFY_RANDOMIZER_URL = os.environ.get("COINFLIP_VERIFY_RANDOMIZER_URL", "")

# Login throttling (django-axes): after COINFLIP_LOGIN_FAILURE_LIMIT failed logins for one username from one address,
# that pair is locked out for COINFLIP_LOGIN_COOLOFF_MINUTES (answer 429); a successful login resets the count.
# Axes stores the address and user agent of failed attempts only (no log of successful logins).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("COINFLIP_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("COINFLIP_LOGIN_COOLOFF_MINUTES", "30")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no log lines with addresses (the attempts are in the admin: Axes → Access attempts)
AXES_CLIENT_IP_CALLABLE = "coinflip.security.client_ip"
