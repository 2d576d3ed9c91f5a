"""Rebuilding rollups from the ledger (after re-pricing), and re-pricing itself."""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction

from billing import pricing
from billing.cost import call_cost
from billing.models import LATENCY_BUCKETS_MS, LedgerEntry
from core.ir import Usage

REPRICED = (LedgerEntry.Status.OK, LedgerEntry.Status.ERROR, LedgerEntry.Status.CANCELLED)


def _hist_sql() -> str:
    bounds = (0, *LATENCY_BUCKETS_MS[:-1])
    parts = [
        f"count(*) FILTER (WHERE latency_ms > {low} AND latency_ms <= {high})"
        if low
        else f"count(*) FILTER (WHERE latency_ms <= {high})"
        for low, high in zip(bounds, LATENCY_BUCKETS_MS, strict=True)
    ]
    parts.append(f"count(*) FILTER (WHERE latency_ms > {LATENCY_BUCKETS_MS[-1]})")
    return ", ".join(parts)


HIST_SQL = _hist_sql()


@transaction.atomic
def reprice(*, since: datetime) -> tuple[int, int]:
    """(rows whose cost changed, days rebuilt). Rows the provider priced itself keep its cost."""
    pricing.invalidate()
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
            LedgerEntry.objects.filter(pk=row.pk).update(cost_usd=cost, price_version_id=version)
            changed += 1
    for day in sorted(days):
        rebuild(day)
    return changed, len(days)


def rebuild(day) -> None:
    """The day's rollup cells, recomputed from its settled ledger rows."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM billing_rollup WHERE day = %s", [day])
        cursor.execute(
            """
            INSERT INTO billing_rollup (day, model, provider, user_id, team_id, key_id, role, slot, calls, errors,
                input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms_total,
                latency_hist)
            SELECT (created_at AT TIME ZONE 'UTC')::date, model, provider, user_id, team_id, key_id, role, slot,
                count(*), count(*) FILTER (WHERE status <> 'ok'), sum(input_tokens), sum(output_tokens),
                sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd), sum(latency_ms),
                ARRAY[{HIST}]
            FROM billing_ledgerentry
            WHERE (created_at AT TIME ZONE 'UTC')::date = %s AND status NOT IN ('pending', 'refused')
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
            """.replace("{HIST}", HIST_SQL),
            [day],
        )
