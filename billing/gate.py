"""Budgets and rate limits, checked before a call and settled after it, atomically in Redis.

Budgets: each (scope, id, calendar period) has a Redis counter of spent + reserved USD, in units
of 1e-8 USD. Before a call its worst case is reserved with one Lua script that checks every hard
budget and increments all of them, or none: 50 concurrent calls at a budget that covers 5 get 5
reservations, never more. After the call the real cost replaces the reservation. The period is
in the key (`day:2026-11-26`, `week:2026-W48`, `month:2026-11`), so a new day starts a new
counter by itself: no job has to reset anything. A counter that is missing (Redis restarted, or
a new period) starts from the ledger's sum for that period: the script says which one is
missing, and runs again once it is set.

Rate limits: requests and tokens per minute, fixed windows per calendar minute, also in Redis."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

import redis
from django.conf import settings
from django.db.models import Q, Sum

from billing.cost import USD_QUANTUM, format_usd
from billing.models import Budget, LedgerEntry, RateLimit

logger = logging.getLogger(__name__)
UNITS = Decimal(1) / USD_QUANTUM  # 1e8 units per USD

_RESERVE = """
-- KEYS: the budget counters; ARGV: amount, then for each key its limit (-1: soft, never refuses),
-- then each key's TTL. Returns 0 (reserved), i (key i's limit refuses) or -i (key i is missing).
local amount = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then
    return -i
  end
end
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 1])
  if limit >= 0 then
    local current = tonumber(redis.call('GET', key) or '0')
    if current + amount > limit then
      return i
    end
  end
end
for i, key in ipairs(KEYS) do
  redis.call('INCRBY', key, amount)
  redis.call('EXPIRE', key, tonumber(ARGV[#KEYS + 1 + i]))
end
return 0
"""

_client: redis.Redis | None = None
_reserve_script = None


def client() -> redis.Redis:
    global _client, _reserve_script
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2.0, socket_connect_timeout=2.0)
        _reserve_script = _client.register_script(_RESERVE)
    return _client


class Refused(Exception):
    """A budget or a rate limit said no. `kind` is budget | rate_limit."""

    def __init__(self, kind: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after


@dataclass(frozen=True)
class Identity:
    user_id: int | None = None
    team_id: int | None = None
    key_id: str = ""

    def scopes(self) -> list[tuple[str, str]]:
        out = []
        if self.key_id:
            out.append(("key", self.key_id))
        if self.user_id is not None:
            out.append(("user", str(self.user_id)))
        if self.team_id is not None:
            out.append(("team", str(self.team_id)))
        return out


@dataclass
class Reservation:
    keys: list[str] = field(default_factory=list)
    units: int = 0
    warnings: list[str] = field(default_factory=list)


def period_window(period: str, at: datetime) -> tuple[str, datetime, datetime]:
    """(label, start, end) of the calendar period holding `at` (UTC)."""
    day = at.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return f"day:{day:%Y-%m-%d}", day, day + timedelta(days=1)
    if period == "week":
        start = day - timedelta(days=day.weekday())
        year, week, _ = start.isocalendar()
        return f"week:{year}-W{week:02d}", start, start + timedelta(days=7)
    if period == "month":
        start = day.replace(day=1)
        end = (start + timedelta(days=32)).replace(day=1)
        return f"month:{start:%Y-%m}", start, end
    return "all", datetime(2000, 1, 1, tzinfo=at.tzinfo), datetime(9999, 1, 1, tzinfo=at.tzinfo)


_ROWS_TTL_S = 5.0
_rows_cache: dict[tuple, tuple[float, list]] = {}


def _rows(model, scopes: list[tuple[str, str]]) -> list:
    """The Budget or RateLimit rows of these scopes, looked up by (scope, id) and kept for a few
    seconds per process: a call needs them twice, a busy key thousands of times a minute. An edit
    clears this process's copy at once (billing.signals); other processes see it within the TTL."""
    key = (model.__name__, tuple(scopes))
    hit = _rows_cache.get(key)
    moment = time.monotonic()
    if hit is not None and moment - hit[0] < _ROWS_TTL_S:
        return hit[1]
    match = Q()
    for scope, scope_id in scopes:
        match |= Q(scope=scope, scope_id=scope_id)
    rows = list(model.objects.filter(match))
    if len(_rows_cache) > 10_000:
        _rows_cache.clear()
    _rows_cache[key] = (moment, rows)
    return rows


def forget_rows() -> None:
    _rows_cache.clear()


def _prefix() -> str:
    return settings.METNOS_BILLING_PREFIX


def _spent_in_ledger(scope: str, scope_id: str, start: datetime, end: datetime) -> Decimal:
    field_name = {"key": "key_id", "user": "user_id", "team": "team_id"}[scope]
    value = scope_id if scope == "key" else int(scope_id)
    total = (
        LedgerEntry.objects.filter(**{field_name: value}, created_at__gte=start, created_at__lt=end)
        .exclude(status=LedgerEntry.Status.REFUSED)
        .aggregate(total=Sum("cost_usd"))["total"]
    )
    return total or Decimal("0")


def reserve(identity: Identity, amount: Decimal, *, at: datetime) -> Reservation:
    """Reserve `amount` against every budget of the identity, atomically. Raises Refused when a
    hard budget would be passed; a soft budget that would be passed only warns."""
    scopes = identity.scopes()
    if not scopes:
        return Reservation()
    budgets = _rows(Budget, scopes)
    if not budgets:
        return Reservation()
    r = client()
    units = int((amount * UNITS).to_integral_value())
    keys, limits, ttls, warnings = [], [], [], []
    windows = []
    for budget in budgets:
        label, start, end = period_window(budget.period, at)
        key = f"{_prefix()}:budget:{budget.scope}:{budget.scope_id}:{label}"
        windows.append((start, end))
        keys.append(key)
        limit_units = int(budget.limit_usd * UNITS)
        limits.append(limit_units if budget.hard else -1)
        ttls.append(min(int((end - at).total_seconds()) + 86400, 10 * 366 * 86400))
        if not budget.hard and int(r.get(key) or 0) + units > limit_units:
            warnings.append(
                f"the soft {budget.period} budget of {budget.scope} {budget.scope_id} (${budget.limit_usd}) is passed"
            )
    # One round trip in the common case; a counter that is missing (a new period, or Redis lost
    # it) starts from the ledger's sum, and the script runs again.
    for _ in range(len(keys) + 1):
        refused_at = _reserve_script(keys=keys, args=[units, *limits, *ttls])
        if refused_at >= 0:
            break
        missing = -refused_at - 1
        budget, (start, end) = budgets[missing], windows[missing]
        spent = _spent_in_ledger(budget.scope, budget.scope_id, start, end)
        r.set(keys[missing], int(spent * UNITS), nx=True, ex=ttls[missing])
    if refused_at:
        budget = budgets[refused_at - 1]
        raise Refused(
            "budget",
            f"budget exceeded: the {budget.period} budget of {budget.scope} {budget.scope_id} is "
            f"${format_usd(budget.limit_usd)} and this call could cost up to ${format_usd(amount)} more than is left",
        )
    for warning in warnings:
        logger.warning(warning)
    return Reservation(keys, units, warnings)


def settle(reservation: Reservation, cost: Decimal) -> None:
    """Replace the reservation with the real cost (which may be less, or, rarely, more)."""
    settle_many([(reservation, cost)])


def settle_many(settled: list[tuple[Reservation, Decimal]]) -> None:
    """settle() for many calls, in one round trip."""
    pipe = None
    for reservation, cost in settled:
        delta = int((cost * UNITS).to_integral_value()) - reservation.units
        if not reservation.keys or not delta:
            continue
        pipe = pipe or client().pipeline()
        for key in reservation.keys:
            pipe.incrby(key, delta)
    if pipe is not None:
        pipe.execute()


def _rate_limits(identity: Identity) -> list:
    scopes = [s for s in identity.scopes() if s[0] in ("key", "user")]
    return _rows(RateLimit, scopes) if scopes else []


def _rate_key(lim, at: datetime) -> str:
    """A fixed window per scope and calendar minute."""
    return f"{_prefix()}:rate:{lim.scope}:{lim.scope_id}:{at:%Y%m%d%H%M}"


# What this thread's last check_rate counted, by rate key: rate_used after it needs no round trip.
_counted = threading.local()


def rate_used(identity: Identity, *, at: datetime) -> list[tuple[RateLimit, int, int]]:
    """Each rate limit on the key and the user with this minute's (requests, tokens) so far, as
    check_rate counted them (this thread's own count when it just made it, else read from
    Redis); [] when none applies. Raises redis.RedisError."""
    limits = [lim for lim in _rate_limits(identity) if lim.rpm or lim.tpm]
    if not limits:
        return []
    bases = [_rate_key(lim, at) for lim in limits]
    known = getattr(_counted, "counts", {})
    if all(base in known for base in bases):
        return [(lim, *known[base]) for lim, base in zip(limits, bases, strict=True)]
    counts = client().mget([f"{base}:{kind}" for base in bases for kind in ("req", "tok")])
    return [(lim, int(counts[2 * i] or 0), int(counts[2 * i + 1] or 0)) for i, lim in enumerate(limits)]


def check_rate(identity: Identity, tokens: int, *, at: datetime) -> None:
    """Requests and tokens per minute on the key and the user. Raises Refused with Retry-After."""
    limits = _rate_limits(identity)
    if not limits:
        return
    retry_after = 60 - at.second
    pipe = client().pipeline()
    for lim in limits:
        base = _rate_key(lim, at)
        pipe.incr(f"{base}:req")
        pipe.expire(f"{base}:req", 120)
        pipe.incrby(f"{base}:tok", tokens)
        pipe.expire(f"{base}:tok", 120)
    counts = pipe.execute()
    _counted.counts = {_rate_key(lim, at): (counts[i * 4], counts[i * 4 + 2]) for i, lim in enumerate(limits)}
    for i, lim in enumerate(limits):
        requests, used_tokens = counts[i * 4], counts[i * 4 + 2]
        if lim.rpm and requests > lim.rpm:
            raise Refused(
                "rate_limit",
                f"rate limit: more than {lim.rpm} requests a minute for {lim.scope} {lim.scope_id}",
                retry_after,
            )
        if lim.tpm and used_tokens > lim.tpm:
            raise Refused(
                "rate_limit",
                f"rate limit: more than {lim.tpm} tokens a minute for {lim.scope} {lim.scope_id}",
                retry_after,
            )
