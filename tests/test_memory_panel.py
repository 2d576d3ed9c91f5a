"""The plan memory panel (/api/analytics/memory, the dashboard's memory page) and the admin's
figures for remembered plans, on real rows: turns per day by layer, what the entries saved,
the best and worst entries, and who may see which."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from planner import params as P
from planner.models import EMBEDDING_DIMENSIONS, Autopath, Fastpath, Observation

pytestmark = pytest.mark.django_db

PLAN = {"steps": [{"tool": "read_files", "args": {"paths": ["${PARAM:path_1}"]}}]}
DAY1 = date.today() - timedelta(days=3)
DAY2 = DAY1 + timedelta(days=1)
RANGE = f"start={DAY1.isoformat()}&end={DAY2.isoformat()}"


def person(username: str, *, staff: bool = False, superuser: bool = False, language: str | None = None):
    users = get_user_model().objects
    user = users.get_or_create(username=username, defaults={"is_staff": staff or superuser})[0]
    if superuser:
        user.is_superuser = True
        user.save()
    client = Client(headers={"accept-language": language} if language else {})
    client.force_login(user)
    return user, client


def turn(owner, day: date, layer: str, *, success: bool = True) -> Observation:
    row = Observation.objects.create(
        owner_id=owner.pk if owner else None, masked_request="read {path_1}", key="k", layer=layer,
        final_kind="answer", success=success,
    )  # fmt: skip
    Observation.objects.filter(pk=row.pk).update(created_at=datetime.combine(day, time(12), tzinfo=UTC))
    return row


def entry(model, owner, masked: str, **figures):
    extra = {"cluster": uuid.uuid4(), "status": "champion"} if model is Autopath else {}
    return model.objects.create(
        owner=owner, source="seed" if owner is None else "learned", example_request=masked,
        masked_request=masked, key=masked[:64], plan=PLAN, plan_hash=P.plan_hash(PLAN),
        embedding=[0.0] * (EMBEDDING_DIMENSIONS - 1) + [1.0], verb="read", object="file", **extra, **figures,
    )  # fmt: skip


@pytest.fixture
def world():
    alice, _ = person("alice")
    bob, _ = person("bob")
    for layer in ("fastpath", "fastpath", "autopath", "engine"):
        turn(alice, DAY1, layer)
    turn(alice, DAY2, "engine", success=False)
    turn(bob, DAY2, "fastpath")
    turn(bob, DAY2, "direct")
    turn(bob, DAY1 - timedelta(days=1), "fastpath")  # outside the range
    return {
        "alice_best": entry(Fastpath, alice, "read {path_1}", uses=9, successes=9, calls_avoided=18,
                            ms_saved=45_000, usd_saved=Decimal("0.0123")),
        "alice_auto": entry(Autopath, alice, "summarise {path_1}", uses=4, successes=2, failures=2,
                            feedback_down=1, calls_avoided=8, ms_saved=9_500, usd_saved=Decimal("0.002"),
                            trial="shadow", min_cosine=0.91),
        "alice_shaky": entry(Fastpath, alice, "list {path_1}", uses=2, successes=1, failures=1, feedback_up=1,
                             calls_avoided=2, ms_saved=1_000),
        "alice_unused": entry(Fastpath, alice, "count {path_1}"),
        "bob_best": entry(Fastpath, bob, "delete {path_1}", uses=30, successes=20, failures=10, feedback_down=3,
                          calls_avoided=60, ms_saved=120_000, usd_saved=Decimal("1.5")),
        "seed": entry(Autopath, None, "open {url_1}", uses=5, successes=5, calls_avoided=5, ms_saved=2_000),
    }  # fmt: skip


def panel(client: Client, extra: str = "") -> dict:
    response = client.get(f"/api/analytics/memory?{RANGE}{extra}")
    assert response.status_code == 200, response.content
    return response.json()


def test_it_counts_each_days_turns_by_layer_and_what_alices_entries_saved(world):
    _, alice = person("alice")
    memory = panel(alice)
    assert memory["layers"][:2] == ["fastpath", "autopath"] and set(memory["layers"]) == {
        "fastpath", "autopath", "engine"
    }  # fmt: skip
    first, second = memory["series"]
    assert (first["day"], first["turns"], first["served_from_memory"], first["hit_rate"]) == (
        DAY1.isoformat(),
        4,
        3,
        0.75,
    )
    assert first["layers"]["fastpath"] == {"count": 2, "share": 0.5} and first["layers"]["engine"]["share"] == 0.25
    assert (second["turns"], second["hit_rate"], second["layers"]["engine"]) == (1, 0.0, {"count": 1, "share": 1.0})
    assert memory["by_layer"][0] == {"layer": "fastpath", "count": 2, "share": 0.4}
    assert memory["totals"] == {
        "turns": 5, "served_from_memory": 3, "hit_rate": 0.6,
        "calls_avoided": 28, "seconds_saved": 55.5, "usd_saved": "0.01430000",
    }  # fmt: skip


def test_the_best_entries_saved_the_most_and_the_worst_failed_or_were_voted_down_the_most(world):
    _, alice = person("alice")
    memory = panel(alice)
    top = memory["top_entries"]
    assert [e["id"] for e in top] == [str(world[name].id) for name in ("alice_best", "alice_auto", "alice_shaky")]
    assert top[0] | {"id": "", "success_rate": 0} == {
        "id": "", "layer": "fastpath", "masked_request": "read {path_1}", "source": "learned", "status": "active",
        "uses": 9, "failures": 0, "success_rate": 0, "feedback_up": 0, "feedback_down": 0, "calls_avoided": 18,
        "saved_s": 45.0, "saved_usd": "0.01230000", "trial": "", "min_cosine": None,
    }  # fmt: skip
    assert (top[1]["layer"], top[1]["trial"], top[1]["min_cosine"]) == ("autopath", "shadow", 0.91)
    worst = memory["worst_entries"]
    assert [e["id"] for e in worst] == [str(world["alice_auto"].id), str(world["alice_shaky"].id)]
    assert (worst[0]["success_rate"], worst[1]["success_rate"]) == (0.5, 0.5)


def test_a_plain_user_never_sees_another_users_turns_or_entries_nor_the_seeds(world):
    _, bob = person("bob")
    memory = panel(bob)
    seen = {e["id"] for e in memory["top_entries"] + memory["worst_entries"]}
    assert seen == {str(world["bob_best"].id)}
    assert memory["totals"]["turns"] == 2 and memory["totals"]["calls_avoided"] == 60
    assert memory["totals"]["usd_saved"] == "1.50000000"
    assert panel(bob, "&mine=false")["totals"] == memory["totals"], "mine=false widens nothing for a plain user"


def test_staff_see_everyone_and_with_mine_only_their_own(world):
    root, staff = person("root", staff=True)
    everyone = panel(staff)
    assert everyone["totals"]["turns"] == 7 and everyone["totals"]["calls_avoided"] == 18 + 8 + 2 + 60 + 5
    assert everyone["top_entries"][0]["id"] == str(world["bob_best"].id)
    assert str(world["seed"].id) in {e["id"] for e in everyone["top_entries"]}
    assert everyone["worst_entries"][0]["id"] == str(world["bob_best"].id), "10 failures and 3 thumbs down"
    turn(root, DAY1, "autopath")
    own = panel(staff, "&mine=true")
    assert own["totals"]["turns"] == 1 and own["totals"]["served_from_memory"] == 1
    assert own["top_entries"] == [] and own["totals"]["calls_avoided"] == 0


def test_the_lists_keep_to_ten_entries_across_both_layers(world):
    alice = get_user_model().objects.get(username="alice")
    for i in range(12):
        entry(Fastpath, alice, f"fetch {{url_{i}}}", uses=1, successes=1, calls_avoided=100 + i)
    _, client = person("alice")
    top = panel(client)["top_entries"]
    assert len(top) == 10 and [e["calls_avoided"] for e in top] == list(range(111, 101, -1))


def test_a_bad_range_is_a_clear_400():
    _, client = person("alice")
    bad = client.get("/api/analytics/memory?start=2026-05-01&end=2026-01-01")
    assert bad.status_code == 400 and "start is after end" in bad.json()["detail"]


def test_the_memory_page_opens_for_staff_and_in_my_usage_for_everyone_else(world):
    _, staff = person("root", staff=True)
    page = staff.get("/dashboard/memory/").content.decode()
    assert 'data-page="memory"' in page and 'data-mine="false"' in page and 'href="/dashboard/memory/"' in page
    _, alice = person("alice")
    assert alice.get("/dashboard/memory/").url == "/usage/"
    mine = alice.get("/usage/?page=memory").content.decode()
    assert 'data-page="memory"' in mine and 'data-mine="true"' in mine and ">Plan memory</a>" in mine
    assert 'data-page="cost"' in alice.get("/usage/?page=activity").content.decode(), "only cost or memory there"
    _, italian = person("lucia", language="it")
    assert ">Memoria dei piani</a>" in italian.get("/usage/?page=memory").content.decode()


def test_the_admin_lists_show_hits_feedback_savings_the_bound_and_the_trial(world):
    _, root = person("root", superuser=True)
    listed = root.get(reverse("admin:planner_autopath_changelist")).content.decode()
    rows = listed[listed.index('id="result_list"') :]
    for cell in (
        '<td class="field-hits">4</td>',
        '<td class="field-failures">2</td>',
        '<td class="field-feedback">0 / 1</td>',
        '<td class="field-calls_avoided">8</td>',
        '<td class="field-time_saved">9.5</td>',
        '<td class="field-money_saved">0.00200000</td>',
        '<td class="field-bound">0.910</td>',
        '<td class="field-trial">shadow</td>',
        '<td class="field-bound">floor</td>',  # the seed
    ):
        assert cell in rows, cell
    shadow = root.get(reverse("admin:planner_autopath_changelist") + "?trial__exact=shadow").content.decode()
    assert "summarise {path_1}" in shadow and "open {url_1}" not in shadow
    by_saving = root.get(reverse("admin:planner_fastpath_changelist") + "?o=-12").content.decode()
    assert by_saving.index("delete {path_1}") < by_saving.index("read {path_1}") < by_saving.index("list {path_1}")
    form = root.get(reverse("admin:planner_fastpath_change", args=[world["alice_best"].pk])).content.decode()
    assert '<div class="readonly">0.01230000</div>' in form and '<div class="readonly">45.0</div>' in form
    assert 'name="usd_saved"' not in form and 'name="calls_avoided"' not in form
