"""The usage ledger: one row per model call, with who made it, what it cost and how it ended.

    admit()  → rate limits, then the budget reservation, then the row, `pending`, holding the
               reservation. It is committed before the call is made, so a process that dies
               during the call (or between the call and the settlement) leaves the row behind.
    settle() → the row gets the usage, cost, latency and status; the rollup cell is updated in
               the same transaction (dashboards read rollups, never the ledger); the budget
               counters get the real cost in place of the reservation. (record() is its
               database half, for callers that settle many calls in one transaction.)
    reap()   → rows still `pending` long after their call (the process died) become
               `interrupted`, billed at their reservation, and are rolled up. A beat job runs it.
A call a budget or rate limit refuses gets a `refused` row and raises gate.Refused.

The table is partitioned by month on created_at (billing.partitions): every update finds its row by
(id, created_at), so that one partition's primary key is searched, never all of them."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import connection, transaction

from billing import gate, pricing, rollups
from billing.cost import Price, call_cost
from billing.models import LedgerEntry, TeamMember, ordered_id
from core.clock import as_uuid, now

logger = logging.getLogger(__name__)


@dataclass
class Open:
    entry_id: object
    price: Price | None
    price_version: int | None
    reservation: gate.Reservation
    row: dict  # what the pending row was written with (its rollup dimensions, created_at)

    @property
    def created_at(self) -> datetime:
        """The other half of the row's key: it names the partition."""
        return self.row["created_at"]


def team_of(user_id: int | None) -> int | None:
    """The user's team for attribution: their first team (by joining order), if any."""
    if user_id is None:
        return None
    return TeamMember.objects.filter(user_id=user_id).order_by("pk").values_list("team_id", flat=True).first()


def admit(
    *,
    model: str,
    provider: str,
    provider_kind: str,
    api_model: str,
    prompt_tokens: int,
    max_tokens: int,
    identity: gate.Identity,
    role: str,
    inbound_shape: str = "chat",
    session_id=None,
    turn_id=None,
    slot: str = "",
) -> Open:
    at = now()
    price, version = pricing.price_at(provider_kind=provider_kind, api_model=api_model, at=at)
    worst = pricing.worst_case(price, prompt_tokens=prompt_tokens, max_tokens=max_tokens)
    fields = {
        "created_at": at,
        "model": model,
        "provider": provider,
        "provider_kind": provider_kind,
        "api_model": api_model,
        "user_id": identity.user_id,
        "team_id": identity.team_id,
        "key_id": identity.key_id,
        "role": role,
        "inbound_shape": inbound_shape,
        "session_id": as_uuid(session_id),
        "turn_id": as_uuid(turn_id),
        "price_version_id": version,
        "slot": slot,
    }
    try:
        gate.check_rate(identity, prompt_tokens + max_tokens, at=at)
        reservation = gate.reserve(identity, worst, at=at)
    except gate.Refused as refused:
        LedgerEntry.objects.create(
            **fields, status=LedgerEntry.Status.REFUSED, settled_at=at, error=str(refused)[:2000]
        )
        raise
    entry = LedgerEntry(id=ordered_id(), **fields, reserved_usd=worst)
    _insert(entry)
    return Open(entry.id, price, version, reservation, {"id": entry.id, **fields})


_INSERT_SQL: str | None = None


def _insert(entry: LedgerEntry) -> None:
    """One INSERT with a statement built once: the pending row is on every call's path, and the
    ORM's per-call SQL compilation cost more than the database did."""
    global _INSERT_SQL
    concrete = LedgerEntry._meta.concrete_fields
    if _INSERT_SQL is None:
        columns = ", ".join(connection.ops.quote_name(f.column) for f in concrete)
        _INSERT_SQL = (
            f"INSERT INTO {LedgerEntry._meta.db_table} ({columns}) VALUES ({', '.join(['%s'] * len(concrete))})"  # noqa: S608
        )
    values = [f.get_db_prep_save(f.pre_save(entry, add=True), connection) for f in concrete]
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_SQL, values)


def settle(opened: Open, **outcome) -> Decimal:
    """record() (usage, status, latency_ms, error, reported_cost), then the budget counters."""
    cost = record(opened, **outcome)
    gate.settle(opened.reservation, cost)
    return cost


def record(opened: Open, **outcome) -> Decimal:
    """settle()'s database half: the row and its rollup cells, in one transaction (or in the
    caller's). The caller then settles the budget counters."""
    return record_many([(opened, outcome)])[0]


_SETTLED = ("status", "settled_at", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
            "cost_usd", "reported_cost", "latency_ms", "error")  # fmt: skip
_CASTS = ("text", "timestamptz", "int", "int", "int", "int", "numeric", "bool", "int", "text")


def settle_sql(count: int) -> str:
    """The settling UPDATE of `count` rows, each found by (id, created_at) and still `pending`.
    The batch's first and last created_at bound the scan too, so the planner keeps only the
    partitions between them (one, mostly) instead of planning and probing every month."""
    values = ", ".join(["(%s::uuid, %s::timestamptz, " + ", ".join(f"%s::{cast}" for cast in _CASTS) + ")"] * count)
    sets = ", ".join(f"{name} = v.{name}" for name in _SETTLED)
    return (
        f"UPDATE {LedgerEntry._meta.db_table} AS l SET {sets} "  # noqa: S608
        f"FROM (VALUES {values}) AS v(id, created_at, {', '.join(_SETTLED)}) "
        "WHERE l.id = v.id AND l.created_at = v.created_at AND l.status = 'pending' "
        "AND l.created_at BETWEEN %s AND %s RETURNING l.id"
    )


def record_many(calls: list[tuple[Open, dict]]) -> list[Decimal]:
    """Many settlements at once: one UPDATE of the rows still `pending` and one upsert per
    rollup cell, in one transaction. Each outcome holds usage, status, latency_ms and, optionally,
    error and reported_cost. Returns each call's cost, in order."""
    if not calls:
        return []
    at = now()
    costs, rows = [], []
    for opened, outcome in calls:
        usage, reported = outcome["usage"], outcome.get("reported_cost")
        cost = reported if reported is not None else (call_cost(usage=usage, price=opened.price) if opened.price else
                                                      Decimal("0"))  # fmt: skip
        costs.append(cost)
        rows.append((opened, {
            "status": outcome["status"], "settled_at": at, "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens, "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens, "cost_usd": cost, "reported_cost": reported is not None,
            "latency_ms": outcome["latency_ms"], "error": (outcome.get("error") or "")[:2000],
        }))  # fmt: skip
    params = [
        value
        for opened, fields in rows
        for value in (opened.entry_id, opened.created_at, *(fields[n] for n in _SETTLED))
    ]
    params += [min(opened.created_at for opened, _ in rows), max(opened.created_at for opened, _ in rows)]
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:  # no savepoint in a caller's
        cursor.execute(settle_sql(len(rows)), params)
        updated = {row[0] for row in cursor.fetchall()}
        # The rows as they now stand, without reading them back.
        rollups.add_many([LedgerEntry(**opened.row, **fields) for opened, fields in rows if opened.entry_id in updated])
    return costs


def reap(*, older_than: timedelta = timedelta(minutes=10)) -> int:
    """Rows whose process died before settling: billed at their reservation. Idempotent."""
    pending = LedgerEntry.Status.PENDING
    stale = list(
        LedgerEntry.objects.filter(status=pending, created_at__lt=now() - older_than).values_list("id", "created_at")
    )
    count = 0
    for entry_id, created_at in stale:
        with transaction.atomic():
            row = LedgerEntry.objects.filter(id=entry_id, created_at=created_at, status=pending)
            entry = row.select_for_update().first()
            if entry is None:
                continue
            entry.status = LedgerEntry.Status.INTERRUPTED
            entry.cost_usd = entry.reserved_usd
            entry.settled_at = now()
            entry.error = "the process making the call stopped before it settled; billed at the reservation"
            row.update(status=entry.status, cost_usd=entry.cost_usd, settled_at=entry.settled_at, error=entry.error)
            rollups.add(entry)
            count += 1
    return count
