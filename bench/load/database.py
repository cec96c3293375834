"""The benchmark's own PostgreSQL database: created fresh, migrated, dropped at the end.

The benchmark never touches another database: it refuses to reuse one that exists (``--keep`` leaves it behind for
inspection; drop it with ``--drop-only``), and it connects to the server's maintenance database ``postgres`` only to
CREATE and DROP its own.
"""
from __future__ import annotations

import subprocess
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from .servers import ROOT, python, server_env


def with_name(url: str, name: str) -> str:
    """``url`` (postgres://…/db) pointing at database ``name`` instead."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def name_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def _admin(url: str) -> psycopg.Connection:
    return psycopg.connect(with_name(url, "postgres").replace("postgres://", "postgresql://", 1), autocommit=True)


def create(url: str) -> None:
    """Create the (new) database of ``url``; ``RuntimeError`` if it already exists."""
    name = name_of(url)
    with _admin(url) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            raise RuntimeError(f"database {name!r} already exists (a previous run kept it?); drop it with --drop-only")
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop(url: str) -> None:
    """Drop the database of ``url`` if it exists (closing its leftover sessions first)."""
    with _admin(url) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name_of(url))))


def migrate(url: str, redis_url: str) -> None:
    """``manage.py migrate`` in a subprocess with the product's settings."""
    subprocess.run([python(), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env=server_env(url, redis_url, "coinflip.settings"))
