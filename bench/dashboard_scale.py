"""Dashboards at scale: 1,000,000 synthetic ledger rows (COPY, not ORM saves; --quick: 100,000),
their rollups rebuilt in one statement, then the p95 of each analytics API over the HTTP stack
(daphne) as a staff user. Also the per-call overhead of a budget reservation and its settlement
(Redis), and of the whole ledger round (reserve, pending row, settle, rollup).
Runs against its own database (metnos_bench). Last line: one JSON object."""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

MODELS = [("local-fast", "local", "global_default"), ("local-wise", "local", "delegate_request"),
          ("sonnet", "anthropic", "rules"), ("haiku", "anthropic", "learned_patterns"),
          ("gpt-5-mini", "openai", "per_message")]  # fmt: skip


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


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

    from billing import gate, ledger
    from billing.models import Budget, Team
    from tests import live
    from tests.e2e.client import ChatClient

    rng = random.Random(11)
    users = [get_user_model().objects.get_or_create(username=f"bench-user-{i}")[0] for i in range(50)]
    teams = [Team.objects.get_or_create(name=f"bench-team-{i}")[0] for i in range(5)]
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE billing_ledgerentry, billing_rollup, billing_modelrollup, billing_identityrollup")
    started = time.monotonic()
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    buffer = io.StringIO()
    columns = ("id", "created_at", "settled_at", "status", "model", "provider", "provider_kind", "api_model",
               "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "reserved_usd",
               "reported_cost", "latency_ms", "error", "user_id", "team_id", "key_id", "role", "slot",
               "inbound_shape", "rolled_up")  # fmt: skip
    for _ in range(rows):
        model, provider, slot = rng.choice(MODELS)
        at = today - timedelta(days=rng.randint(0, 89), seconds=rng.randint(0, 86399))
        user = rng.randrange(len(users))
        cost = Decimal(0) if provider == "local" else Decimal(rng.randint(100, 500000)) / Decimal(10**8)
        status = "error" if rng.random() < 0.02 else "ok"
        buffer.write("\t".join(str(v) for v in (
            uuid.uuid4(), at.isoformat(), at.isoformat(), status, model, provider, provider, model,
            rng.randint(100, 4000), rng.randint(10, 800), rng.choice((0, 0, 1000)), 0, cost, cost, "f",
            rng.randint(50, 8000), "", users[user].pk, teams[user % len(teams)].pk,
            f"gw_bench_{user % 7}" if rng.random() < 0.3 else "", rng.choice(("planner", "worker", "gateway")),
            slot, "chat", "t",
        )) + "\n")  # fmt: skip
    buffer.seek(0)
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY billing_ledgerentry ({', '.join(columns)}) FROM STDIN") as copy:
            while chunk := buffer.read(1 << 20):
                copy.write(chunk)
    load_s = time.monotonic() - started
    started = time.monotonic()
    from billing import rollups

    rollups.rebuild()  # all three grains from the ledger, in SQL
    with connection.cursor() as cursor:
        for table in ("billing_ledgerentry", "billing_rollup", "billing_modelrollup", "billing_identityrollup"):
            cursor.execute(f"ANALYZE {table}")
        cursor.execute("SELECT (SELECT count(*) FROM billing_rollup), (SELECT count(*) FROM billing_modelrollup),"
                       " (SELECT count(*) FROM billing_identityrollup)")  # fmt: skip
        rollup_rows = dict(zip(("full", "model", "identity"), cursor.fetchone(), strict=True))
    rollup_s = time.monotonic() - started

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
    reserve_settle, full = [], []
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
        ledger.settle(opened, usage=Usage(500, 100), status="ok", latency_ms=900)
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
    }))  # fmt: skip


if __name__ == "__main__":
    main()
