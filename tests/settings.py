"""Test settings: the real PostgreSQL of the machine unless DATABASE_URL says otherwise.

Only the embedded-default tests (tests/test_project.py) use SQLite, in a subprocess with a clean environment.
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

from coinflip.settings import *  # noqa: E402,F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast users in tests
