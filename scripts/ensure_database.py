"""Create the database named by DATABASE_URL and its vector extension, when missing."""

import os
import sys

import dj_database_url
import psycopg
from psycopg import sql

# Parsed the way the settings parse it (metnos_site/env.py): a percent-encoded password is decoded,
# a socket folder is a host, and query options such as sslmode are passed on to the connection.
db = dj_database_url.parse(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos"))
name = db["NAME"]
server = {
    "host": db["HOST"] or None,
    "port": db["PORT"] or None,
    "user": db["USER"] or None,
    "password": db["PASSWORD"] or None,
    "connect_timeout": 5,
    **db.get("OPTIONS", {}),
}
try:
    with psycopg.connect(dbname="postgres", autocommit=True, **server) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")
    with psycopg.connect(dbname=name, autocommit=True, **server) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
except psycopg.Error as exc:
    sys.exit(f"ensure_database: cannot prepare {name!r} at {db['HOST']}:{db['PORT'] or 5432}: {exc}")
