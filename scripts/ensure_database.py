"""Create the database named by DATABASE_URL and its vector extension, when missing."""

import os
import sys
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos")
parts = urlsplit(url)
name = parts.path.lstrip("/")
admin_url = urlunsplit(parts._replace(path="/postgres"))
try:
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
except psycopg.Error as exc:
    sys.exit(f"ensure_database: cannot prepare {name!r} at {parts.hostname}:{parts.port or 5432}: {exc}")
