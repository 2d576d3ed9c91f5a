"""Gateway keys: issued once, stored as HMAC-SHA256 with a server pepper, checked on every
request.

A process keeps the keys it has looked up (by hash) together with the key generation, a Redis
counter that every change to any key (a save, a revocation, a deletion) increments. Each request
reads the generation (one Redis GET) and serves the key from memory only while it is unchanged,
so a revocation holds from the next request on in every process, and a busy key costs no query.
Without Redis, or when the counter is gone (Redis restarted), every request reads the database."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from decimal import Decimal

import redis
from django.conf import settings
from django.db import transaction

from billing import gate
from billing.models import Budget, RateLimit, Team
from core.clock import now
from gateway.models import GatewayKey

logger = logging.getLogger(__name__)
PREFIX = "gw_"
_CACHE_MAX = 10_000
_CACHE_TTL_S = 300.0  # a bound for changes made behind the ORM's back (raw SQL)
_cache: dict[str, tuple[int, float, GatewayKey]] = {}  # hash -> (generation, loaded at, key)


class KeyRejected(Exception):
    """The request's key is missing, unknown, revoked or expired (HTTP 401)."""


def digest(raw: str) -> str:
    return hmac.new(settings.METNOS_KEY_PEPPER.encode(), raw.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Issued:
    key: GatewayKey
    raw: str  # shown once, never stored


@transaction.atomic
def issue(
    *,
    name: str,
    user,
    team: Team | None = None,
    budget_usd: Decimal | None = None,
    budget_period: str = "month",
    rpm: int = 0,
    tpm: int = 0,
    allowed_models: list[str] | None = None,
    expires_at=None,
    routing: str = GatewayKey.Routing.PINNED,
    workspace: str = "",
) -> Issued:
    raw = PREFIX + secrets.token_urlsafe(32)
    key = GatewayKey.objects.create(
        name=name,
        prefix=raw[:11],
        key_hash=digest(raw),
        user=user,
        team=team,
        allowed_models=allowed_models or [],
        expires_at=expires_at,
        routing=routing,
        workspace=workspace,
    )
    if budget_usd is not None:
        Budget.objects.create(scope="key", scope_id=str(key.id), limit_usd=budget_usd, period=budget_period, hard=True)
    if rpm or tpm:
        RateLimit.objects.create(scope="key", scope_id=str(key.id), rpm=rpm, tpm=tpm)
    return Issued(key, raw)


GENERATION_KEY = "metnos:gateway:key-generation"  # in Redis, through billing's long-lived client


def generation() -> int | None:
    """The current key generation, or None when Redis cannot say (then nothing is cached). It is
    read through the process's one Redis client, whose pooled connections live as long as the
    process: Django's cache would open a connection per request thread."""
    try:
        client = gate.client()
        value = client.get(GENERATION_KEY)
        if value is None:  # a fresh Redis: start from a value no process can have cached
            client.set(GENERATION_KEY, time.time_ns(), nx=True)
            value = client.get(GENERATION_KEY)
        return int(value)
    except (redis.RedisError, TypeError, ValueError) as exc:  # Redis down: read the database
        logger.warning("key generation unavailable (%s); keys are read from the database", exc)
        return None


def changed() -> None:
    """A key was saved, revoked or deleted: every process drops its cached keys."""
    _cache.clear()
    try:
        client = gate.client()
        # No counter yet (a fresh Redis): a new one differs from any generation a process cached.
        if not client.set(GENERATION_KEY, time.time_ns(), nx=True):
            client.incr(GENERATION_KEY)
    except redis.RedisError as exc:
        logger.warning("could not bump the key generation (%s); caches expire within %ss", exc, _CACHE_TTL_S)


def _lookup(wanted: str) -> GatewayKey | None:
    current = generation()
    hit = _cache.get(wanted)
    if current is not None and hit is not None and hit[0] == current and time.monotonic() - hit[1] < _CACHE_TTL_S:
        return hit[2]
    key = GatewayKey.objects.select_related("user", "team").filter(key_hash=wanted).first()
    if key is not None and current is not None:
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()
        _cache[wanted] = (current, time.monotonic(), key)
    return key


def authenticate(raw: str | None) -> GatewayKey:
    if not raw or not raw.startswith(PREFIX):
        raise KeyRejected("missing or malformed API key: send `Authorization: Bearer gw_…` or `x-api-key: gw_…`")
    wanted = digest(raw)
    key = _lookup(wanted)
    # The lookup is by a hash of the secret; the comparison of what was found is constant-time.
    if key is None or not hmac.compare_digest(key.key_hash, wanted):
        raise KeyRejected("invalid API key")
    if key.revoked:
        raise KeyRejected("this API key has been revoked")
    if key.expires_at is not None and key.expires_at <= now():
        raise KeyRejected("this API key has expired")
    moment = now()
    if key.last_used_at is None or (moment - key.last_used_at).total_seconds() > 60:
        GatewayKey.objects.filter(pk=key.pk).update(last_used_at=moment)  # to the minute: no write per request
        key.last_used_at = moment
    return key


def revoke(key: GatewayKey) -> None:
    GatewayKey.objects.filter(pk=key.pk).update(revoked=True)
    changed()
