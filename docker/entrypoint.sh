#!/bin/sh
# Entry point of the Coinflip image: migrate first when COINFLIP_MIGRATE=1 (the web service sets it; the workers and
# beat wait for web to be healthy instead), then run the command (default: gunicorn, see the Dockerfile's CMD).
set -eu

if [ "${COINFLIP_MIGRATE:-0}" = "1" ]; then
    python /app/docker/migrate.py
fi

exec "$@"
