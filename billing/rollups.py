"""The rollup tables, kept incrementally as calls settle and rebuilt from the ledger on demand
(after re-pricing). They outlive the ledger's retention: a rebuild touches only the days whose
ledger partitions are still there. Three grains, so each dashboard reads a table sized for it:

    billing_rollup          day, model, provider, user, team, key, role, slot (the full grain)
    billing_modelrollup     day, team, model, provider, role, slot (cost and activity pages)
    billing_identityrollup  day, team, user, key (spend by identity)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db import connection, transaction

from billing import partitions, pricing
from billing.cost import call_cost
from billing.models import LATENCY_BUCKETS_MS, LedgerEntry
from core.ir import Usage

EVER = (datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC))  # a range with no bound
REPRICED = (LedgerEntry.Status.OK, LedgerEntry.Status.ERROR, LedgerEntry.Status.CANCELLED)
_SUMS = ("calls", "errors", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd",
         "latency_ms_total")  # fmt: skip
# How each summed column is computed from ledger rows (for rebuilds).
_FROM_LEDGER = {
    "calls": "count(*)",
    "errors": "count(*) FILTER (WHERE status <> 'ok')",
    "input_tokens": "sum(input_tokens)",
    "output_tokens": "sum(output_tokens)",
    "cache_read_tokens": "sum(cache_read_tokens)",
    "cache_write_tokens": "sum(cache_write_tokens)",
    "cost_usd": "sum(cost_usd)",
    "latency_ms_total": "sum(latency_ms)",
    "tokens": "sum(input_tokens + output_tokens)",
}


@dataclass(frozen=True)
class Grain:
    table: str
    constraint: str
    dims: tuple[str, ...]
    sums: tuple[str, ...]
    hist: bool


# Table and column names below are these constants, never input: the f-string SQL is safe.
GRAINS = (
    Grain("billing_rollup", "rollup_cell", ("model", "provider", "user_id", "team_id", "key_id", "role", "slot"),
          _SUMS, True),
    Grain("billing_modelrollup", "model_rollup_cell", ("team_id", "model", "provider", "role", "slot"), _SUMS, True),
    Grain("billing_identityrollup", "identity_rollup_cell", ("team_id", "user_id", "key_id"),
          ("calls", "tokens", "cost_usd"), False),
)  # fmt: skip


def latency_hist(latency_ms: int) -> list[int]:
    """One call as a latency histogram: a 1 in its bucket (LATENCY_BUCKETS_MS, then slower)."""
    hist = [0] * (len(LATENCY_BUCKETS_MS) + 1)
    hist[next((i for i, bound in enumerate(LATENCY_BUCKETS_MS) if latency_ms <= bound), len(LATENCY_BUCKETS_MS))] = 1
    return hist


def _hist_sql() -> str:
    lows = (0, *LATENCY_BUCKETS_MS[:-1])
    parts = [
        f"count(*) FILTER (WHERE latency_ms > {low} AND latency_ms <= {high})"
        for low, high in zip(lows, LATENCY_BUCKETS_MS, strict=True)
    ]
    parts.append(f"count(*) FILTER (WHERE latency_ms > {LATENCY_BUCKETS_MS[-1]})")
    return ", ".join(parts)


HIST_SQL = _hist_sql()


def add(entry: LedgerEntry) -> None:
    add_many([entry])


def add_many(entries: list[LedgerEntry]) -> None:
    """Settled rows into every grain: summed per cell here, then one INSERT … ON CONFLICT DO
    UPDATE per grain (a cell appears once in it, as ON CONFLICT requires)."""
    if not entries:
        return
    rows = [_values(entry) for entry in entries]
    with connection.cursor() as cursor:
        for grain in GRAINS:
            cells: dict[tuple, dict] = {}
            for row in rows:
                key = (row["day"], *(row[d] for d in grain.dims))
                cell = cells.get(key)
                if cell is None:
                    cells[key] = dict(row)
                    continue
                for name in grain.sums:
                    cell[name] += row[name]
                if grain.hist:
                    cell["latency_hist"] = [
                        a + b for a, b in zip(cell["latency_hist"], row["latency_hist"], strict=True)
                    ]
            columns = ["day", *grain.dims, *grain.sums] + (["latency_hist"] if grain.hist else [])
            updates = [f"{c} = {grain.table}.{c} + EXCLUDED.{c}" for c in grain.sums]
            if grain.hist:
                pairs = f"unnest({grain.table}.latency_hist, EXCLUDED.latency_hist) WITH ORDINALITY AS t(a, b, n)"
                updates.append(f"latency_hist = ARRAY(SELECT coalesce(a, 0) + coalesce(b, 0) FROM {pairs} ORDER BY n)")  # noqa: S608
            placeholders = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(cells))
            cursor.execute(
                f"INSERT INTO {grain.table} ({', '.join(columns)}) VALUES {placeholders} "  # noqa: S608
                f"ON CONFLICT ON CONSTRAINT {grain.constraint} DO UPDATE SET {', '.join(updates)}",
                [cell[c] for cell in cells.values() for c in columns],
            )


def _values(entry: LedgerEntry) -> dict:
    return {
        "day": entry.created_at.date(),
        "model": entry.model,
        "provider": entry.provider,
        "user_id": entry.user_id,
        "team_id": entry.team_id,
        "key_id": entry.key_id,
        "role": entry.role,
        "slot": entry.slot,
        "calls": 1,
        "errors": int(entry.status != LedgerEntry.Status.OK),
        "input_tokens": entry.input_tokens,
        "output_tokens": entry.output_tokens,
        "cache_read_tokens": entry.cache_read_tokens,
        "cache_write_tokens": entry.cache_write_tokens,
        "cost_usd": entry.cost_usd,
        "latency_ms_total": entry.latency_ms,
        "tokens": entry.input_tokens + entry.output_tokens,
        "latency_hist": latency_hist(entry.latency_ms),
    }


def rebuild(day: date | None = None) -> None:
    """Every grain's cells for one day (or every retained day), recomputed from settled ledger
    rows. Only days the ledger still holds are touched: a month whose partition retention dropped
    keeps its cells, since nothing is left to recompute them from (billing.partitions)."""
    since = partitions.retained_since() or EVER[0]
    if day is None:
        rebuild_range(since, EVER[1])
    elif day >= since.date():
        start = datetime.combine(day, time.min, tzinfo=UTC)
        rebuild_range(start, start + timedelta(days=1))


def rebuild_range(start: datetime, end: datetime) -> None:
    """The cells of the days in [start, end) (UTC midnights), from the ledger rows created then:
    a range on created_at, so only those months' partitions are read."""
    with connection.cursor() as cursor:
        for grain in GRAINS:
            cursor.execute(f"DELETE FROM {grain.table} WHERE day >= %s AND day < %s", [start.date(), end.date()])  # noqa: S608
            columns = ["day", *grain.dims, *grain.sums] + (["latency_hist"] if grain.hist else [])
            select = ["(created_at AT TIME ZONE 'UTC')::date", *grain.dims, *(_FROM_LEDGER[s] for s in grain.sums)]
            if grain.hist:
                select.append(f"ARRAY[{HIST_SQL}]")
            groups = ", ".join(str(i) for i in range(1, len(grain.dims) + 2))
            cursor.execute(
                f"INSERT INTO {grain.table} ({', '.join(columns)}) SELECT {', '.join(select)} "  # noqa: S608
                "FROM billing_ledgerentry WHERE status NOT IN ('pending', 'refused') "
                f"AND created_at >= %s AND created_at < %s GROUP BY {groups}",
                [start, end],
            )


@transaction.atomic
def reprice(*, since: datetime) -> tuple[int, int]:
    """(rows whose cost changed, days rebuilt). Rows the provider priced itself keep its cost.
    Only retained months are re-priced: an earlier `since` starts where the ledger does."""
    pricing.invalidate()
    retained = partitions.retained_since()
    if retained is not None:
        since = max(since, retained)
    changed = 0
    days = set()
    rows = LedgerEntry.objects.filter(created_at__gte=since, status__in=REPRICED, reported_cost=False)
    for row in rows.iterator(chunk_size=2000):
        price, version = pricing.price_at(provider_kind=row.provider_kind, api_model=row.api_model, at=row.created_at)
        if price is None:
            continue
        usage = Usage(row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens)
        cost = call_cost(usage=usage, price=price)
        days.add(row.created_at.date())
        if cost != row.cost_usd or version != row.price_version_id:
            # By the whole key (id, created_at): the row's own partition.
            LedgerEntry.objects.filter(id=row.id, created_at=row.created_at).update(
                cost_usd=cost, price_version_id=version
            )
            changed += 1
    if days:
        first, last = min(days), max(days)
        rebuild_range(
            datetime.combine(first, time.min, tzinfo=UTC),
            datetime.combine(last, time.min, tzinfo=UTC) + timedelta(days=1),
        )
    return changed, len(days)
