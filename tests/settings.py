"""Test settings: the real PostgreSQL of the machine unless DATABASE_URL says otherwise.

Only the embedded-default tests (tests/test_project.py) use SQLite, in a subprocess with a clean environment.
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

from coinflip.settings import *  # noqa: E402,F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast users in tests

# A test database of this run's own (pytest-xdist adds its worker suffix), so that several test runs on one machine —
# developers side by side, or a run beside CI — never create or drop each other's database.
DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_coinflip_{os.getpid()}"  # noqa: F405
