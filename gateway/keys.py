"""Gateway keys: issued once, stored as HMAC-SHA256 with a server pepper, checked on every
request (no cache, so a revocation holds from the next request on)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import transaction

from billing.models import Budget, RateLimit, Team
from core.clock import now
from gateway.models import GatewayKey

PREFIX = "gw_"


class KeyError_(Exception):
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
    )
    if budget_usd is not None:
        Budget.objects.create(scope="key", scope_id=str(key.id), limit_usd=budget_usd, period=budget_period, hard=True)
    if rpm or tpm:
        RateLimit.objects.create(scope="key", scope_id=str(key.id), rpm=rpm, tpm=tpm)
    return Issued(key, raw)


def authenticate(raw: str | None) -> GatewayKey:
    if not raw or not raw.startswith(PREFIX):
        raise KeyError_("missing or malformed API key: send `Authorization: Bearer gw_…` or `x-api-key: gw_…`")
    wanted = digest(raw)
    key = GatewayKey.objects.select_related("user", "team").filter(key_hash=wanted).first()
    # The lookup is by a hash of the secret; the comparison of what was found is constant-time.
    if key is None or not hmac.compare_digest(key.key_hash, wanted):
        raise KeyError_("invalid API key")
    if key.revoked:
        raise KeyError_("this API key has been revoked")
    if key.expires_at is not None and key.expires_at <= now():
        raise KeyError_("this API key has expired")
    moment = now()
    if key.last_used_at is None or (moment - key.last_used_at).total_seconds() > 60:
        GatewayKey.objects.filter(pk=key.pk).update(last_used_at=moment)  # to the minute: no write per request
    return key


def revoke(key: GatewayKey) -> None:
    GatewayKey.objects.filter(pk=key.pk).update(revoked=True)
