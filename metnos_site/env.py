"""Typed settings helpers: every setting comes from the environment and a bad value fails loudly."""

import os
from urllib.parse import urlsplit

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


def database_from_url(url: str, *, pool_max: int = 0) -> dict:
    """postgres://user:password@host:port/name -> a Django DATABASES entry (psycopg 3).
    pool_max > 0 turns on psycopg's connection pool (the way to reuse connections under ASGI)."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name:
        raise ImproperlyConfigured(f"DATABASE_URL has no database name: {url!r}")
    options: dict = {"connect_timeout": 5}
    if pool_max:
        options["pool"] = {"min_size": 1, "max_size": pool_max, "timeout": 5}
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": parts.username or "",
        "PASSWORD": parts.password or "",
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or 5432),
        "CONN_MAX_AGE": 0,
        # With the pool: a connection broken while idle in it (the database restarted) is
        # replaced when handed out, so the first request after an outage does not fail on it.
        "CONN_HEALTH_CHECKS": bool(pool_max),
        "OPTIONS": options,
    }
