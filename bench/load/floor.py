"""The floor peer: what plain Django (no DRF, no validation) does with the same request stream on this machine.

A minimal Django project in one module — its settings, its URLconf and its one view — served by gunicorn exactly
like the product (``servers.FLOOR``: ``DJANGO_SETTINGS_MODULE=bench.load.floor``, Django's own WSGI factory). The
view answers ``POST /api/surveys/<slug>/reports/`` by parsing the JSON body and inserting ``(slug, report)`` into
the table ``bench_floor_report`` with one parameterised INSERT on a persistent connection; no middleware, no
survey lookup, no report validation. Whatever the product spends beyond this is its own cost: the floor is the
throughput bound for "Django + PostgreSQL + one INSERT per request" here, not a competitor to beat.

``bench.load.floor_stack`` serves the same view under the product's settings — its whole middleware chain (security
headers, CSP, language, sessions, CSRF, …) — which separates what Django's request path with those middlewares costs
from what the product's own work (the survey, the report's checks, the credential) costs.
"""
from __future__ import annotations

import json
import os

import dj_database_url
from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

TABLE = "bench_floor_report"
CREATE_TABLE = (f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigserial PRIMARY KEY, slug varchar(80) NOT NULL, "
                "payload jsonb NOT NULL, received_on date NOT NULL DEFAULT CURRENT_DATE)")

# -- settings -----------------------------------------------------------------------------------------------
DEBUG = False
SECRET_KEY = "bench-floor-not-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
ROOT_URLCONF = __name__
USE_TZ = True
DATABASES = {"default": dj_database_url.config(conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")))}


# -- the view ----------------------------------------------------------------------------------------------
@csrf_exempt  # no effect here (no middleware); under the product's chain (``floor_stack``) as the product's view
def report(request, slug: str):
    if request.method != "POST":
        return HttpResponse(status=405)
    try:
        payload = json.loads(request.body)["report"]
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"detail": "malformed"}, status=400)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE} (slug, payload) VALUES (%s, %s)", [slug, json.dumps(payload)])
    return JsonResponse({"status": "stored"}, status=201)


urlpatterns = [path("api/surveys/<slug:slug>/reports/", report)]
