"""Dashboards at scale: N synthetic ledger rows (default 1,000,000; --quick: 100,000; --rows N)
over the last twelve months, loaded by COPY into the monthly partitions in time order (as calls
arrive), their rollups rebuilt as the product does (rollups.rebuild), then the p95 of each
analytics API over the HTTP stack as a staff user. Also: the ledger's size per million rows
(table and indexes, summed over the partitions), the insert rate by COPY and through the
product's path (ledger.admit: rate limits, reservation, the pending INSERT, one at a time), the
per-call overhead of a budget reservation and its settlement (Redis), and of the whole ledger
round (reserve, pending row, settle, rollup). Runs against its own database (metnos_bench).
Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

# name, provider (= kind), api model, slot, USD per million input / output tokens.
MODELS = [("local-fast", "local", "smollm2-135m", "global_default", 0, 0),
          ("local-wise", "local", "qwen2.5-3b", "delegate_request", 0, 0),
          ("sonnet", "anthropic", "claude-sonnet-4-5", "rules", 3, 15),
          ("haiku", "anthropic", "claude-haiku-4-5", "learned_patterns", 1, 5),
          ("gpt-5-mini", "openai", "gpt-5-mini", "per_message", Decimal("0.25"), 2)]  # fmt: skip
# status, weight, error text
STATUSES = [("ok", 955, ""), ("error", 20, "upstream 500: the provider answered with an internal error"),
            ("cancelled", 10, ""), ("refused", 10, "budget exceeded: user month budget of $50.00"),
            ("interrupted", 5, "the process making the call stopped before it settled; billed at the reservation")]  # fmt: skip  # noqa: E501
COLUMNS = ("id", "created_at", "settled_at", "status", "model", "provider", "provider_kind", "api_model",
           "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "reserved_usd",
           "price_version_id", "reported_cost", "latency_ms", "error", "user_id", "team_id", "key_id", "role", "slot",
           "inbound_shape", "session_id", "turn_id")  # fmt: skip
USERS, TEAMS, DAYS = 50, 5, 365
CHUNK = 50_000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def usd(units: int) -> str:
    """1e-8 USD units as the ledger's numeric(20, 8) text."""
    return f"{units // 10**8}.{units % 10**8:08d}"


def ledger_rows(rows: int, today: datetime, user_ids: list[int], team_ids: list[int], version: int, rng):
    """Chunks of COPY text, oldest day first and in time order within a day. Planner and worker
    calls carry a session and a turn; gateway calls a key and the inbound shape."""
    rates = [(int(Decimal(rin) * 100), int(Decimal(rout) * 100)) for *_, rin, rout in MODELS]  # 1e-8 USD per token
    statuses, weights = [s[:1] + s[2:] for s in STATUSES], [s[1] for s in STATUSES]
    buffer = []
    for day_index in range(DAYS):
        day = today - timedelta(days=DAYS - 1 - day_index)
        count = rows // DAYS + (1 if day_index < rows % DAYS else 0)
        stamp, day_ms = day.strftime("%Y-%m-%d"), int(day.timestamp()) * 1000
        session_base = f"{day_index:08x}"
        for micros in sorted(rng.randrange(86_400_000_000) for _ in range(count)):
            hours, rest = divmod(micros, 3_600_000_000)
            minutes, rest = divmod(rest, 60_000_000)
            at = f"{stamp} {hours:02d}:{minutes:02d}:{rest / 1e6:09.6f}+00"
            # As billing.models.ordered_id: a UUIDv7 of the row's time.
            row_id = (
                (day_ms + micros // 1000) << 80 | rng.getrandbits(80) & ~(0xF << 76 | 0x3 << 62) | 0x7 << 76 | 0x2 << 62
            )
            m = rng.randrange(len(MODELS))
            model, provider, api_model, slot, *_ = MODELS[m]
            rin, rout = rates[m]
            user = rng.randrange(USERS)
            status, error = rng.choices(statuses, weights)[0]
            role = rng.choice(("planner", "planner", "worker", "gateway"))
            refused = status == "refused"
            tokens_in = 0 if refused else rng.randint(100, 4000)
            tokens_out = 0 if refused else rng.randint(10, 800)
            cached = 0 if refused or provider != "anthropic" else rng.choice((0, 0, 1000))
            cost = tokens_in * rin + tokens_out * rout + cached * rin // 10
            reserved = tokens_in * rin + 1000 * rout
            latency = 0 if refused else rng.randint(50, 8000)
            key, shape, session, turn = "", "chat", "\\N", "\\N"
            if role == "gateway":
                key, shape = f"gw_bench_{user}_{rng.randrange(2)}", ("openai", "anthropic")[m % 2]
            else:
                session = f"{session_base}{user:08x}{rng.randrange(4):016x}"
                turn = f"{rng.getrandbits(128):032x}"
            buffer.append("\t".join((
                f"{row_id:032x}", at, at, status, model, provider, provider, api_model,
                str(tokens_in), str(tokens_out), str(cached), "0", usd(reserved if status == "interrupted" else cost),
                usd(reserved), str(version), "f", str(latency), error, str(user_ids[user]),
                str(team_ids[user % TEAMS]), key, role, slot, shape, session, turn,
            )))  # fmt: skip
            if len(buffer) >= CHUNK:
                yield "\n".join(buffer) + "\n"
                buffer = []
    if buffer:
        yield "\n".join(buffer) + "\n"


def ledger_size(cursor, rows: int) -> dict:
    """Table (heap, TOAST, maps) and index bytes of every partition, per million rows; and each
    index's share, summed over its partitions."""
    cursor.execute(
        "SELECT coalesce(sum(pg_table_size(relid)), 0), coalesce(sum(pg_indexes_size(relid)), 0), "
        "coalesce(sum(pg_relation_size(relid)), 0) FROM pg_partition_tree('billing_ledgerentry') WHERE isleaf"
    )
    table, indexes, heap = (int(v) for v in cursor.fetchone())
    cursor.execute(
        "SELECT i.relname, (SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree(i.oid)) FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = 'billing_ledgerentry'::regclass"
    )
    per_index = {name: int(size or 0) for name, size in cursor.fetchall()}
    cursor.execute("SELECT avg(pg_column_size(l.*)) FROM (SELECT * FROM billing_ledgerentry LIMIT 100000) AS l")
    tuple_bytes = cursor.fetchone()[0] or 0
    mb = rows / 1e6 * 2**20 if rows else 1
    return {
        "table_mb_per_m": round(table / mb, 1),
        "index_mb_per_m": round(indexes / mb, 1),
        "total_mb_per_m": round((table + indexes) / mb, 1),
        "heap_bytes_per_row": round(heap / rows, 1) if rows else 0,
        "tuple_bytes_avg": round(float(tuple_bytes), 1),
        "index_mb_per_m_each": {name: round(size / mb, 2) for name, size in sorted(per_index.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100,000 rows, fewer requests")
    parser.add_argument("--rows", type=int, default=None)
    args = parser.parse_args()
    rows = args.rows or (100_000 if args.quick else 1_000_000)
    requests = 20 if args.quick else 50
    db_url = benchdb.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from billing import gate, ledger, partitions, rollups
    from billing.models import Budget, PriceVersion, Team
    from tests import live
    from tests.e2e.client import ChatClient

    rng = random.Random(11)
    users = [get_user_model().objects.get_or_create(username=f"bench-user-{i}")[0] for i in range(USERS)]
    teams = [Team.objects.get_or_create(name=f"bench-team-{i}")[0] for i in range(TEAMS)]
    version = PriceVersion.objects.order_by("-effective_from").first()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE billing_ledgerentry, billing_rollup, billing_modelrollup, billing_identityrollup")
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    partitions.ensure_range(today - timedelta(days=DAYS - 1), today)  # a backfill makes its months first
    started = time.monotonic()
    chunks = ledger_rows(rows, today, [u.pk for u in users], [t.pk for t in teams], version.pk, rng)
    with (
        connection.cursor() as cursor,
        cursor.copy(f"COPY billing_ledgerentry ({', '.join(COLUMNS)}) FROM STDIN") as copy,
    ):
        for chunk in chunks:
            copy.write(chunk)
    load_s = time.monotonic() - started
    started = time.monotonic()
    rollups.rebuild()  # all three grains, from the retained months of the ledger, in SQL
    rollup_s = time.monotonic() - started
    with connection.cursor() as cursor:
        for table in ("billing_ledgerentry", "billing_rollup", "billing_modelrollup", "billing_identityrollup"):
            cursor.execute(f"ANALYZE {table}")
        cursor.execute("SELECT (SELECT count(*) FROM billing_rollup), (SELECT count(*) FROM billing_modelrollup),"
                       " (SELECT count(*) FROM billing_identityrollup)")  # fmt: skip
        rollup_rows = dict(zip(("full", "model", "identity"), cursor.fetchone(), strict=True))
        size = ledger_size(cursor, rows)

    staff, _ = get_user_model().objects.get_or_create(username="bench-staff", defaults={"is_staff": True})
    staff.is_staff = True
    staff.set_password("bench-staff-password")
    staff.save()
    port = live.free_port()
    web = live.start_web(port, {"DATABASE_URL": db_url})
    timings: dict[str, list[float]] = {"cost": [], "activity": [], "spend": []}
    try:
        client = ChatClient(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}")
        client.login("bench-staff", "bench-staff-password")
        paths = {"cost": "/analytics/cost?start={s}", "activity": "/analytics/activity?start={s}",
                 "spend": "/analytics/spend?group_by=user&start={s}"}  # fmt: skip
        start = (today - timedelta(days=89)).date().isoformat()
        for name, path in paths.items():
            client.api("GET", path.format(s=start))  # warm
            for _ in range(requests):
                t = time.monotonic()
                response = client.api("GET", path.format(s=start))
                timings[name].append((time.monotonic() - t) * 1000)
                assert response.status_code == 200, response.text[:300]
    finally:
        web.stop()

    # Reservation + settlement (Redis, one Lua script and one pipeline), and the full ledger round.
    budget_user = users[0]
    Budget.objects.update_or_create(
        scope="user",
        scope_id=str(budget_user.pk),
        period="month",
        defaults={"limit_usd": Decimal("1000000"), "hard": True},
    )
    identity = gate.Identity(user_id=budget_user.pk, team_id=teams[0].pk)
    reserve_settle, full, admits = [], [], []
    for _ in range(200 if args.quick else 1000):
        t = time.perf_counter()
        reservation = gate.reserve(identity, Decimal("0.01"), at=datetime.now(UTC))
        gate.settle(reservation, Decimal("0.002"))
        reserve_settle.append((time.perf_counter() - t) * 1000)
    from core.ir import Usage

    for _ in range(100 if args.quick else 300):
        t = time.perf_counter()
        opened = ledger.admit(model="sonnet", provider="anthropic", provider_kind="anthropic",
                              api_model="claude-sonnet-4-5", prompt_tokens=500, max_tokens=500, identity=identity,
                              role="planner")  # fmt: skip
        admitted = time.perf_counter()
        ledger.settle(opened, usage=Usage(500, 100), status="ok", latency_ms=900)
        admits.append(admitted - t)
        full.append((time.perf_counter() - t) * 1000)
    print(json.dumps({
        "bench": "dashboard_scale",
        "rows": rows,
        "rollup_rows": rollup_rows,
        "load_s": round(load_s, 1),
        "rollup_rebuild_s": round(rollup_s, 1),
        "cost_p95_ms": pct(timings["cost"], 0.95),
        "activity_p95_ms": pct(timings["activity"], 0.95),
        "spend_p95_ms": pct(timings["spend"], 0.95),
        "cost_p50_ms": pct(timings["cost"], 0.5),
        "activity_p50_ms": pct(timings["activity"], 0.5),
        "spend_p50_ms": pct(timings["spend"], 0.5),
        "reserve_settle_p50_ms": round(statistics.median(reserve_settle), 3),
        "ledger_round_p50_ms": round(statistics.median(full), 3),
        "insert_rows_per_s_copy": round(rows / load_s),
        "insert_rows_per_s_admit": round(len(admits) / sum(admits)),
        "ledger_size": size,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
