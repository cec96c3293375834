"""Shared helper of the concurrency tests: a thread with its own database connection. Surveys and reports are built
by tests/factories.py."""
import threading

from django.db import connection

# Transition only: modules written in parallel with tests/factories.py still import these two from here.
from tests.factories import add_reports, make_survey  # noqa: F401  (re-exported until they import tests.factories)


def in_thread(target) -> threading.Thread:
    """Start ``target`` in a thread that closes its own database connection when done (each thread has one)."""
    def run():
        try:
            target()
        finally:
            connection.close()
    thread = threading.Thread(target=run)
    thread.start()
    return thread
