"""Wait for the database, then apply Django's migrations — one container at a time (docker/entrypoint.sh).

Several web containers may start together (``docker compose up --scale web=3``); on PostgreSQL they take turns
through an advisory lock held while migrating, so two ``migrate`` never run at once. Waits up to
``COINFLIP_DB_WAIT_SECONDS`` (default 60) for the database to accept connections.
"""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the project root
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")

import django  # noqa: E402

MIGRATION_LOCK = 0x436F696E  # any constant shared by every container ("Coin")


def wait_for_database(connection, seconds: float) -> None:
    from django.db import OperationalError

    deadline = time.monotonic() + seconds
    while True:
        try:
            connection.ensure_connection()
            return
        except OperationalError as error:
            if time.monotonic() > deadline:
                raise SystemExit(f"database unreachable after {seconds:.0f} s: {error}") from error
            print("waiting for the database…", file=sys.stderr)
            time.sleep(2)


def main() -> None:
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    wait_for_database(connection, float(os.environ.get("COINFLIP_DB_WAIT_SECONDS", "60")))
    locked = connection.vendor == "postgresql"
    if locked:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATION_LOCK])
    try:
        call_command("migrate", interactive=False, verbosity=1)
    finally:
        if locked:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATION_LOCK])


if __name__ == "__main__":
    main()
