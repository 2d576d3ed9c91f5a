"""The ledger's monthly partitions: routing, updates that search one partition, retention by
DROP TABLE with the rollups' history kept, and the migration that made the table partitioned."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from billing import gate, ledger, partitions, rollups, tasks
from billing.models import LedgerEntry, ModelRollup, Rollup
from core.clock import now
from core.ir import Usage

pytestmark = pytest.mark.django_db


def call(at, **fields) -> LedgerEntry:
    values = {"status": "ok", "model": "sonnet", "provider": "anthropic", "provider_kind": "anthropic",
              "api_model": "claude-sonnet-4-5", "role": "planner", "cost_usd": Decimal("0.25"), "input_tokens": 100,
              "output_tokens": 10, "latency_ms": 700, **fields}  # fmt: skip
    return LedgerEntry.objects.create(created_at=at, **values)


def partition_of(entry: LedgerEntry) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tableoid::regclass::text FROM billing_ledgerentry WHERE id = %s", [entry.id])
        return cursor.fetchone()[0]


def test_this_month_and_the_next_two_have_partitions_and_rows_go_to_their_month():
    this_month = partitions.month_start(now())
    assert {partitions.add_months(this_month, n) for n in range(3)} <= set(partitions.months())
    assert partition_of(call(now())) == partitions.name_of(this_month)
    assert partition_of(call(now() + timedelta(days=3650))) == partitions.DEFAULT, "no month for it: the safety net"
    assert tasks.ensure_ledger_partitions() == [], "the nightly job finds them made"
    assert {"ledger-partitions", "ledger-expiry"} <= set(settings.CELERY_BEAT_SCHEDULE)


def test_a_settlement_finds_its_row_by_id_and_created_at_in_one_partition():
    opened = ledger.admit(model="local-fast", provider="local", provider_kind="local", api_model="", prompt_tokens=10,
                          max_tokens=10, identity=gate.Identity(), role="planner")  # fmt: skip
    with connection.cursor() as cursor:
        params = [opened.entry_id, opened.created_at, "ok", now(), 1, 1, 0, 0, 0, False, 5, ""]
        cursor.execute("EXPLAIN (COSTS OFF) " + ledger.settle_sql(1), [*params, opened.created_at, opened.created_at])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert plan.count("Update on billing_ledgerentry_p") == 1, plan
    assert partitions.DEFAULT not in plan
    ledger.settle(opened, usage=Usage(10, 5), status="ok", latency_ms=40)
    row = LedgerEntry.objects.get(id=opened.entry_id)
    assert (row.status, row.output_tokens, row.rolled_up) == ("ok", 5, True)


def test_rows_the_default_partition_held_move_into_the_month_made_for_them(settings):
    settings.METNOS_LEDGER_RETENTION_MONTHS = 0
    next_month = partitions.add_months(partitions.month_start(now()), 1)
    with connection.cursor() as cursor:  # as if the nightly job had not run
        cursor.execute(f"DROP TABLE {partitions.name_of(next_month)}")
    early = call(next_month + timedelta(days=2))
    assert partition_of(early) == partitions.DEFAULT
    assert tasks.ensure_ledger_partitions() == [partitions.name_of(next_month)]
    assert partition_of(early) == partitions.name_of(next_month)

    backfilled = partitions.add_months(partitions.month_start(now()), -8)
    late = call(backfilled + timedelta(days=2))
    assert partition_of(late) == partitions.DEFAULT
    assert partitions.ensure_range(backfilled, backfilled) == [partitions.name_of(backfilled)]
    assert partition_of(late) == partitions.name_of(backfilled)
    assert LedgerEntry.objects.count() == 2


def test_a_month_past_retention_is_never_made_again(settings):
    settings.METNOS_LEDGER_RETENTION_MONTHS = 12
    with pytest.raises(ValueError, match="past the ledger's retention"):
        partitions.ensure_range(partitions.add_months(partitions.month_start(now()), -14), now())


def test_retention_drops_old_months_whole_and_their_rollups_stay_on_the_dashboards(settings):
    settings.METNOS_LEDGER_RETENTION_MONTHS = 0
    old_month = partitions.add_months(partitions.month_start(now()), -30)
    partitions.ensure_range(old_month, old_month)
    old_day = old_month + timedelta(days=4, hours=10)
    call(old_day), call(old_day, status="error"), call(now())
    rollups.rebuild()
    assert ModelRollup.objects.get(day=old_day.date()).calls == 2

    settings.METNOS_LEDGER_RETENTION_MONTHS = 24
    with connection.cursor() as cursor:  # the price-version key's checks, deferred to a commit this test never makes
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert tasks.drop_expired_ledger_partitions() == [partitions.name_of(old_month)]
    assert old_month not in partitions.months() and partitions.drop_expired() == [], "idempotent"
    assert not LedgerEntry.objects.filter(created_at__lt=partitions.month_start(now())).exists()
    rollups.rebuild()  # a full rebuild after the drop: only the retained months are recomputed
    rollups.rebuild(old_day.date())
    rollups.reprice(since=old_month)
    old = ModelRollup.objects.get(day=old_day.date())
    assert (old.calls, old.errors, old.cost_usd) == (2, 1, Decimal("0.50000000"))
    assert Rollup.objects.filter(day=old_day.date()).exists()

    staff = get_user_model().objects.create_user(username="root", is_staff=True)
    client = Client()
    client.force_login(staff)
    day = old_day.date().isoformat()
    cost = client.get(f"/api/analytics/cost?start={day}&end={day}").json()
    assert (cost["total_usd"], cost["calls"]) == ("0.50000000", 2)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_existing_row():
    executor = MigrationExecutor(connection)
    executor.migrate([("billing", "0003_coarse_rollups")])
    at = now()
    with connection.cursor() as cursor:
        for days in (0, 40, 400):
            cursor.execute(
                "INSERT INTO billing_ledgerentry (id, created_at, status, model, provider, provider_kind, api_model,"
                " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, reserved_usd,"
                " reported_cost, latency_ms, error, key_id, role, slot, inbound_shape, rolled_up) VALUES"
                " (gen_random_uuid(), %s, 'ok', 'sonnet', 'anthropic', 'anthropic', 'claude-sonnet-4-5', 100, 10,"
                " 0, 0, 0.25, 0.3, false, 700, '', '', 'planner', '', 'chat', true)",
                [at - timedelta(days=days)],
            )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    rows = list(LedgerEntry.objects.order_by("created_at"))
    assert [r.created_at for r in rows] == [at - timedelta(days=d) for d in (400, 40, 0)]
    assert all(partition_of(r).startswith("billing_ledgerentry_p") for r in rows), "a month for each"
    assert partitions.retained_since() == partitions.month_start(at - timedelta(days=400))
