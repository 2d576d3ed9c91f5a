"""The analytics API and dashboard pages: what each viewer may see, read from rollups."""

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from billing.models import LedgerEntry, Team, TeamMember

pytestmark = pytest.mark.django_db


def login(username: str, staff: bool = False) -> Client:
    user = get_user_model().objects.get_or_create(username=username)[0]
    if staff:
        user.is_staff = True
        user.save()
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def demo():
    call_command("seed_demo", days=5, calls_per_day=40)


def test_staff_see_everyone_team_admins_their_team_and_users_themselves(demo):
    staff = login("root", staff=True).get("/api/analytics/spend?group_by=team").json()
    assert {r["name"] for r in staff["rows"]} == {"research", "ops"}
    alice = login("alice").get("/api/analytics/spend?group_by=user").json()  # research's admin
    assert {r["name"] for r in alice["rows"]} == {"alice", "bob"}
    bob = login("bob").get("/api/analytics/spend?group_by=user").json()  # a member
    assert [r["name"] for r in bob["rows"]] == ["bob"]
    assert login("bob").get("/dashboard/").url == "/usage/", "a plain member gets the my-usage page"
    assert login("alice").get("/dashboard/activity/").status_code == 200


def test_cost_totals_savings_cache_and_memory_come_from_rollups(demo):
    start = (date.today() - timedelta(days=60)).isoformat()
    cost = login("root", staff=True).get(f"/api/analytics/cost?start={start}").json()
    total = sum(float(r.cost_usd) for r in LedgerEntry.objects.all())
    assert abs(float(cost["total_usd"]) - total) < 1e-6
    assert float(cost["baseline"]["cost_usd"]) > float(cost["total_usd"]), "local models are free"
    assert 0 < cost["cache"]["hit_rate"] < 1 and cost["memory"]["served_from_memory"] > 0
    assert len(cost["series"]) == 61 and cost["by_model"][0]["cost_usd"]


def test_activity_has_the_routing_slots_latency_percentiles_and_failures(demo):
    activity = login("root", staff=True).get("/api/analytics/activity").json()
    assert {r["slot"] for r in activity["routing"]} <= {
        "per_message", "sticky", "rules", "learned_patterns", "delegate_request", "workspace_default", "global_default"
    }  # fmt: skip
    assert all(m["p50_ms"] <= m["p95_ms"] for m in activity["models"])
    assert all(f["status"] in ("error", "interrupted") for f in activity["recent_failures"])


def test_bad_ranges_and_groupings_are_clear_400s(demo):
    client = login("root", staff=True)
    bad = client.get("/api/analytics/cost?start=2026-05-01&end=2026-01-01")
    assert bad.status_code == 400 and "start is after end" in bad.json()["detail"]
    assert client.get("/api/analytics/spend?group_by=planet").status_code == 400
    assert client.get("/api/analytics/cost?start=yesterday").status_code in (400, 422)


def test_the_demo_seed_is_idempotent(demo):
    before = LedgerEntry.objects.count()
    call_command("seed_demo", days=5, calls_per_day=40)
    assert LedgerEntry.objects.count() == before
    assert Team.objects.count() == 2 and TeamMember.objects.count() == 3
