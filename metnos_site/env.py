"""Typed settings helpers: every setting comes from the environment (a secret, else from the file
setup wrote into var/) and a bad value fails loudly. Importable without Django's settings: setup
and the scripts use them too."""

import os
import secrets
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, default: str, schemes: tuple[str, ...]) -> str:
    raw = os.environ.get(name, default)
    parts = urlsplit(raw)
    if parts.scheme not in schemes or not parts.hostname:
        raise ImproperlyConfigured(f"{name} must be a {'/'.join(schemes)} URL with a host, got {raw!r}")
    return raw


def env_secret(name: str, file: Path) -> str:
    """A secret from the environment, else from a file in var/ that setup wrote once (so it
    survives restarts); "" when neither has it."""
    value = os.environ.get(name, "")
    if value:
        return value
    return file.read_text().strip() if file.exists() else ""


def derived_key_pepper(secret_key: str) -> str:
    """The pepper gateway keys were hashed with before the pepper had a setting of its own. An
    install that has keys from then keeps this value (setup writes it), or those keys stop working."""
    return f"metnos-key-pepper:{secret_key}"


def ensure_key_pepper(var_dir: Path) -> Path | None:
    """Setup: write `var_dir/key_pepper` once, unless METNOS_KEY_PEPPER is set. Run before the
    secret key is generated: an install that already has a secret key may hold gateway keys hashed
    with the pepper derived from it, so it gets that value; a new install gets a random one, which
    no later rotation of the secret key touches. Returns the file written, or None."""
    pepper_file = var_dir / "key_pepper"
    if os.environ.get("METNOS_KEY_PEPPER") or (pepper_file.exists() and pepper_file.read_text().strip()):
        return None
    secret_key = env_secret("DJANGO_SECRET_KEY", var_dir / "secret_key")
    pepper = derived_key_pepper(secret_key) if secret_key else secrets.token_urlsafe(50)
    var_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(pepper_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(pepper + "\n")
    return pepper_file


def database_from_url(url: str, *, pool_max: int = 0, pgbouncer: bool = False) -> dict:
    """postgres://user:password@host:port/name?option=value -> a Django DATABASES entry (psycopg 3),
    parsed by dj-database-url: percent-encoded user names and passwords are decoded, a host that is
    a percent-encoded path is a Unix socket folder, and query options (sslmode, ...) become OPTIONS.
    pool_max > 0 turns on psycopg's connection pool (the way to reuse connections under ASGI).

    pgbouncer: the URL names a PgBouncer in transaction mode, which hands each transaction to any
    of its server connections. What lives on one server connection beyond a transaction is then
    lost: a prepared statement (psycopg prepares a query run 5 times; prepare_threshold None never
    does) and a WITH HOLD cursor (Django's server-side cursors for .iterator(): turned off). The
    pool stays: it keeps this process's connections to PgBouncer, which bounds those to Postgres."""
    db = dict(dj_database_url.parse(url, conn_max_age=0, conn_health_checks=False))
    if not db.get("NAME"):
        raise ImproperlyConfigured(f"DATABASE_URL has no database name: {_redacted(url)!r}")
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(f"DATABASE_URL must name a PostgreSQL database, got {_redacted(url)!r}")
    options = {"connect_timeout": 5, **db.get("OPTIONS", {})}
    if pool_max:
        options["pool"] = {"min_size": 1, "max_size": pool_max, "timeout": 5}
    if pgbouncer:
        options["prepare_threshold"] = None  # Django's default today; pinned, since PgBouncer depends on it
        db["DISABLE_SERVER_SIDE_CURSORS"] = True
    # No check each time the pool hands a connection out (CONN_HEALTH_CHECKS: a round trip per
    # request): core.outages checks the pool's idle connections on the first database error.
    return {**db, "PORT": str(db.get("PORT") or 5432), "OPTIONS": options}


def database_url(db: dict) -> str:
    """The inverse of database_from_url, for child processes given a DATABASES entry (tests,
    benches): the password percent-encoded, OPTIONS other than the pool kept in the query."""
    credentials = quote(db.get("USER") or "", safe="")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = quote(db.get("HOST") or "", safe="")  # a socket folder is a path: its slashes are encoded
    port = f":{db['PORT']}" if db.get("PORT") else ""
    options = {k: v for k, v in (db.get("OPTIONS") or {}).items() if isinstance(v, str | int) and k != "pool"}
    query = f"?{urlencode(options)}" if options else ""
    return f"postgres://{credentials}{'@' if credentials else ''}{host}{port}/{quote(db['NAME'], safe='')}{query}"


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)).geturl()
