"""The ledger, budgets and rate limits against real Postgres and Redis, with a loopback server
speaking OpenAI's wire format in place of the provider."""

import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum

from billing import gate, ledger, pricing
from billing.models import Budget, LedgerEntry, ModelPrice, PriceVersion, RateLimit, Rollup, Team, TeamMember
from core.ir import ChatRequest, Message
from planner import llm
from routing.models import Provider
from routing.registry import current
from tests.loopback import LoopbackProvider, Reply
from tests.minutes import early_in_a_minute

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
MAX_TOKENS = 1000
# gpt-5 at $1.25 / $10 per million: the whole output budget is $0.01, a 10-token prompt $0.0000125.
WORST = Decimal("0.0100125")


def usage_reply(prompt_tokens: int, completion_tokens: int, delay_s: float = 0.0, cached: int = 0) -> Reply:
    return Reply(
        delay_s=delay_s,
        json_body={
            "model": "gpt-5",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        },
    )


@pytest.fixture
def openai(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with LoopbackProvider() as upstream:
        provider = Provider.objects.get(name="openai")
        provider.base_url = upstream.url
        provider.save()
        yield upstream


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


def ask(user, *, max_tokens=MAX_TOKENS, role="planner"):
    model = current().get("gpt-5")
    # 36 characters of prompt: an estimate of 10 tokens.
    request = ChatRequest(model=model.api_model, messages=(Message.text("user", "x" * 36),), max_tokens=max_tokens)
    try:
        return llm.call(request, model, role=role, ids={}, user_id=user.pk)
    finally:
        connection.close()  # each thread has its own connection


def test_every_call_is_a_ledger_row_with_identity_usage_and_cost_and_failures_too(openai, alice):
    team = Team.objects.create(name="research")
    TeamMember.objects.create(team=team, user=alice)
    openai.replies += [usage_reply(1000, 200, cached=400), Reply(status=500, json_body={"error": {"message": "boom"}})]
    ok, failed = ask(alice), ask(alice)
    rows = list(LedgerEntry.objects.order_by("created_at"))
    assert [r.status for r in rows] == ["ok", "error"]
    first = rows[0]
    assert (first.user_id, first.team_id, first.role, first.inbound_shape) == (alice.pk, team.pk, "planner", "chat")
    # OpenAI's cached tokens are part of prompt_tokens: 600 uncached at 1.25, 400 cached at 0.125, 200 out at 10.
    assert (first.input_tokens, first.cache_read_tokens, first.output_tokens) == (600, 400, 200)
    assert first.cost_usd == ok.cost == Decimal("0.00280000")
    assert first.price_version.name == "list-2025-11"
    assert "boom" in rows[1].error and failed.error is not None
    cell = Rollup.objects.get()
    assert (cell.calls, cell.errors, cell.cost_usd) == (2, 1, Decimal("0.00280000")), "rolled up as it settles"


def test_fifty_concurrent_calls_at_a_budget_that_covers_five_never_overspend(openai, alice):
    Budget.objects.create(scope="user", scope_id=str(alice.pk), limit_usd=WORST * 5, period="day", hard=True)
    openai.replies += [usage_reply(10, MAX_TOKENS, delay_s=0.3) for _ in range(50)]  # real cost = worst case
    results = []
    threads = [threading.Thread(target=lambda: results.append(ask(alice))) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    succeeded = [r for r in results if r.error is None]
    refused = [r for r in results if r.error is not None]
    assert len(succeeded) == 5 and len(refused) == 45
    assert all(r.error.kind == "budget" and "budget exceeded" in str(r.error) for r in refused)
    assert "budget" in llm.user_facing(refused[0].error)
    spent = LedgerEntry.objects.exclude(status="refused").aggregate(total=Sum("cost_usd"))["total"]
    assert spent <= WORST * 5 + WORST, "never more than one call's worst case over"
    assert LedgerEntry.objects.filter(status="refused").count() == 45, "a refusal is a ledger row too"
    assert len(openai.requests) == 5, "refused calls never reach the provider"


def test_a_soft_budget_warns_and_lets_the_call_through(openai, alice, caplog):
    Budget.objects.create(scope="user", scope_id=str(alice.pk), limit_usd=Decimal("0.001"), period="month", hard=False)
    openai.replies.append(usage_reply(10, 10))
    assert ask(alice).error is None
    assert "soft month budget" in caplog.text


def test_budget_periods_follow_the_calendar_without_any_job():
    at = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    assert gate.period_window("day", at)[0] == "day:2026-11-30"
    assert gate.period_window("day", at + timedelta(minutes=2))[0] == "day:2026-12-01"
    assert gate.period_window("month", at)[0] == "month:2026-11"
    assert gate.period_window("month", at + timedelta(minutes=2))[0] == "month:2026-12"
    assert gate.period_window("week", at)[0] != gate.period_window("week", at + timedelta(days=7))[0]


def test_a_budget_counter_lost_with_redis_restarts_from_the_ledger(openai, alice, settings):
    Budget.objects.create(scope="user", scope_id=str(alice.pk), limit_usd=WORST * 2, period="day", hard=True)
    openai.replies += [usage_reply(10, MAX_TOKENS) for _ in range(3)]
    assert ask(alice).error is None
    for key in gate.client().scan_iter(f"{settings.METNOS_BILLING_PREFIX}:budget:*"):
        gate.client().delete(key)  # as if Redis had restarted empty
    assert ask(alice).error is None
    assert ask(alice).error.kind == "budget", "the first call's spend was counted again from the ledger"


def test_rate_limits_refuse_with_retry_after(openai, alice):
    RateLimit.objects.create(scope="user", scope_id=str(alice.pk), rpm=2)
    openai.replies += [usage_reply(10, 10) for _ in range(3)]
    early_in_a_minute()  # three calls in one minute's count
    results = [ask(alice) for _ in range(3)]
    assert [r.error is None for r in results] == [True, True, False]
    assert results[2].error.kind == "rate_limit" and 0 < results[2].error.retry_after_s <= 60


def test_a_row_survives_a_process_killed_between_the_call_and_its_settlement(alice):
    """A child process opens a ledger row (as before a call) and is killed before settling it."""
    db = connection.settings_dict
    code = f"""
import os, django
os.environ["DATABASE_URL"] = "postgres://{db["USER"]}@{db["HOST"]}:{db["PORT"]}/{db["NAME"]}"
os.environ["DJANGO_SETTINGS_MODULE"] = "metnos_site.settings"
django.setup()
from billing import gate, ledger
ledger.admit(model="gpt-5", provider="openai", provider_kind="openai", api_model="gpt-5", prompt_tokens=10,
             max_tokens=1000, identity=gate.Identity(user_id={alice.pk}), role="planner")
os.kill(os.getpid(), 9)  # the call "returned"; the process dies before it could settle
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == -9, done.stderr[-2000:]
    row = LedgerEntry.objects.get()
    assert row.status == "pending" and row.reserved_usd == WORST
    assert ledger.reap(older_than=timedelta(0)) == 1
    row.refresh_from_db()
    assert (row.status, row.cost_usd) == ("interrupted", WORST)
    assert ledger.reap(older_than=timedelta(0)) == 0, "idempotent"
    assert Rollup.objects.get().cost_usd == WORST


def test_reprice_applies_a_new_price_version_retroactively_and_idempotently(openai, alice):
    openai.replies += [usage_reply(1000, 1000), usage_reply(1000, 1000)]
    ask(alice), ask(alice)
    assert LedgerEntry.objects.aggregate(total=Sum("cost_usd"))["total"] == Decimal("0.02250000")
    cheaper = PriceVersion.objects.create(name="cut", effective_from=datetime(2025, 6, 1, tzinfo=UTC))
    ModelPrice.objects.create(
        version=cheaper, provider_kind="openai", api_model="gpt-5", input_per_mtok=1, output_per_mtok=5
    )
    pricing.invalidate()
    for _ in range(2):
        call_command("reprice", "--since", "2025-06-01")
        assert LedgerEntry.objects.aggregate(total=Sum("cost_usd"))["total"] == Decimal("0.01200000")
        assert Rollup.objects.aggregate(total=Sum("cost_usd"))["total"] == Decimal("0.01200000")
    assert set(LedgerEntry.objects.values_list("price_version__name", flat=True)) == {"cut"}


def test_local_calls_cost_nothing_and_unknown_models_say_so():
    assert pricing.price_at(provider_kind="local", api_model="", at=datetime.now(UTC))[0].output_per_mtok == 0
    assert pricing.price_at(provider_kind="openai", api_model="gpt-9", at=datetime.now(UTC)) == (None, None)
    assert ledger.team_of(None) is None
