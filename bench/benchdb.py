"""The benches' own database, metnos_bench, beside the one DATABASE_URL names: created with its
extension, migrated, and Django set up on it. Returns its URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from metnos_site.env import database_from_url, database_url

ROOT = Path(__file__).resolve().parent.parent


def bench_url(url: str) -> str:
    """The same server, credentials and options (?sslmode=...) as `url`, database metnos_bench."""
    return database_url({**database_from_url(url), "NAME": "metnos_bench"})


def setup() -> str:
    db_url = bench_url(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos"))
    os.environ.update({"DATABASE_URL": db_url, "DJANGO_SETTINGS_MODULE": "metnos_site.settings"})
    subprocess.run([sys.executable, "scripts/ensure_database.py"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    import django

    django.setup()
    return db_url
