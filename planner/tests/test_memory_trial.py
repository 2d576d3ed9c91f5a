"""Plan memory's entries on trial, their own admission bounds and their accounts, against real
Postgres/pgvector and the shipped MiniLM: an entry learns how far it may be served, proves itself
against the engine before it serves (shadow) or against changed executors (revalidate), and keeps
what it saved against the cold path."""

import uuid
from decimal import Decimal

import pytest

from agents.frames import route_label, saved_seconds
from billing.analytics import baseline_cost
from planner import memory
from planner import params as P
from planner.catalog import catalog
from planner.memory import accounts, autopath, bounds, fastpath, shadow
from planner.models import Autopath, Fastpath, Observation
from planner.tests.test_memory import learn_read_last, turn
from planner.turn import TurnOutcome

pytestmark = pytest.mark.django_db

NEAR = "tell me the last 2 lines of notes/b.md"


def by_meaning_only():
    """The learned entry keyed apart: NEAR is recalled by meaning (stage 2), not by its key."""
    Fastpath.objects.update(key="keyed-apart")


def recall_of(workspace, text):
    return memory.lookup(memory.Probe.of(text, workspace, 1), catalog())


def test_a_failure_at_a_distance_raises_the_entrys_own_bound_past_it_and_successes_lower_it(
    planner_model, workspace, settings
):
    learn_read_last(planner_model, workspace)
    by_meaning_only()
    entry = Fastpath.objects.get()
    assert entry.min_cosine is None and bounds.bound(entry) == settings.METNOS_MEMORY_MIN_COSINE
    near = recall_of(workspace, NEAR)
    assert near.stage == 2
    bounds.after_use(Fastpath, entry.pk, stage=2, cosine=near.cosine, success=False)
    entry.refresh_from_db()
    assert entry.min_cosine == pytest.approx(near.cosine + bounds.TIGHTEN)
    assert recall_of(workspace, NEAR) is None, "as far as the use that failed: not served again"
    Fastpath.objects.update(key=memory.Probe.of(NEAR, workspace, 1).key)
    assert recall_of(workspace, NEAR).stage == 1, "the same canonical key says nothing of distance: still served"
    by_meaning_only()
    for _ in range(3):
        bounds.after_use(Fastpath, entry.pk, stage=2, cosine=0.99, success=True)
    entry.refresh_from_db()
    assert entry.min_cosine == pytest.approx(near.cosine + bounds.TIGHTEN - 3 * bounds.LOOSEN)
    assert recall_of(workspace, NEAR) is not None, "proven successes loosen it again"
    for _ in range(100):
        bounds.after_use(Fastpath, entry.pk, stage=3, cosine=0.99, success=True)
    entry.refresh_from_db()
    assert entry.min_cosine == pytest.approx(settings.METNOS_MEMORY_MIN_COSINE), "never below the floor"
    bounds.after_use(Fastpath, entry.pk, stage=1, cosine=1.0, success=False)
    entry.refresh_from_db()
    assert entry.min_cosine == pytest.approx(settings.METNOS_MEMORY_MIN_COSINE)


def test_a_thumbs_down_at_a_distance_tightens_a_seed_for_everyone(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    by_meaning_only()
    Fastpath.objects.update(source="seed", owner=None)
    served = turn(workspace, NEAR, user_id=2)
    assert (served.layer, served.trace["memory"]["stage"]) == ("fastpath", 2)
    used = Fastpath.objects.get()
    assert (used.uses, used.min_cosine) == (1, pytest.approx(bounds.floor())), "a use that answered loosens it"
    assert used.calls_avoided == 1 and used.trial == "", "and counts what it saved, in the same update"
    memory.feedback(turn_id=uuid.uuid4(), trace=served.trace, value="down", owner_id=2)
    seed = Fastpath.objects.get()
    assert (seed.status, seed.feedback_down) == ("active", 1)
    assert seed.min_cosine == pytest.approx(served.trace["memory"]["cosine"] + bounds.TIGHTEN, abs=1e-3)


def test_shadow_runs_only_when_the_proposer_is_not_local(settings, planner_model):
    settings.METNOS_MEMORY_SHADOW = "auto"
    assert shadow.active(), "the scripted model is an OpenAI-shaped provider"
    settings.METNOS_PROPOSER_MODEL = "local-wise"
    assert not shadow.active()
    settings.METNOS_MEMORY_SHADOW = "on"
    assert shadow.active()
    settings.METNOS_MEMORY_SHADOW = "off"
    settings.METNOS_PROPOSER_MODEL = "scripted"
    assert not shadow.active()


def test_a_shadowed_entry_serves_only_after_the_engine_agreed_with_it(planner_model, workspace, settings):
    settings.METNOS_MEMORY_SHADOW = "on"
    learn_read_last(planner_model, workspace)
    assert Fastpath.objects.get().trial == "shadow"
    for verdict in ("agreed", "promoted"):
        outcome = turn(workspace, "read notes/b.md and tell me its last 1 lines")
        assert (outcome.layer, outcome.text) == ("engine", "TODO: call Ada"), "the engine answers, not memory"
        assert outcome.trace["shadow"]["verdict"] == verdict
    entry = Fastpath.objects.get()
    assert (entry.trial, entry.status) == ("", "active")
    served = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    assert (served.layer, served.text) == ("fastpath", "TODO: call Ada")


def test_shadow_stops_a_wrong_learned_entry_before_it_serves_and_never_demotes_a_seed(
    planner_model, workspace, settings
):
    settings.METNOS_MEMORY_SHADOW = "on"
    learn_read_last(planner_model, workspace)
    wrong = Fastpath.objects.get()
    wrong.plan["steps"][0]["args"] = {"paths": ["${PARAM:path_1}"], "head_lines": "${PARAM:number_1}"}
    wrong.plan_hash = P.plan_hash(wrong.plan)
    wrong.save()
    Autopath.objects.update(plan=wrong.plan, plan_hash=wrong.plan_hash)  # learned into L1 from the same turn
    outcome = turn(workspace, "read notes/a.md and tell me its last 2 lines")
    assert (outcome.layer, outcome.text) == ("engine", "line 3\nline 4")
    assert outcome.trace["shadow"]["verdict"] == "stopped"
    wrong.refresh_from_db()
    assert (wrong.status, wrong.uses) == ("retired", 0) and wrong.reason.startswith("shadow")
    assert Autopath.objects.get(plan_hash=wrong.plan_hash).status == "retired", "nor does L1 serve it"
    learned = Fastpath.objects.get(status="active")
    assert learned.plan["steps"][0]["args"]["tail_lines"] == "${PARAM:number_1}" and learned.trial == "shadow"

    Fastpath.objects.filter(pk=learned.pk).update(source="seed", owner=None, plan=wrong.plan, pinned=True)
    outcome = turn(workspace, "read notes/a.md and tell me its last 2 lines")
    assert outcome.trace["shadow"]["verdict"] == "kept"
    seed = Fastpath.objects.get(pk=learned.pk)
    assert (seed.status, seed.trial) == ("active", "shadow")


def test_a_changed_executor_sends_an_entry_to_revalidation_with_a_local_proposer(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    Fastpath.objects.update(executors={"read_files": "sha256:old"})
    served = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    assert (served.layer, served.text) == ("fastpath", "TODO: call Ada"), "it validates against the new schema"
    entry = Fastpath.objects.get()
    assert entry.trial == "" and entry.executors == {"read_files": catalog().get("read_files").digest}


def test_a_changed_executor_sends_an_entry_to_shadow_with_a_cloud_proposer(planner_model, workspace, settings):
    learn_read_last(planner_model, workspace)
    Fastpath.objects.update(executors={"read_files": "sha256:old"})
    settings.METNOS_MEMORY_SHADOW = "on"
    outcome = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    assert outcome.layer == "engine" and outcome.trace["shadow"]["verdict"] == "agreed"
    assert Fastpath.objects.get().trial == "shadow"


def test_the_ager_puts_changed_entries_on_trial_and_retires_those_whose_executor_is_gone(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    cat = catalog()
    Fastpath.objects.update(executors={"read_files": "sha256:old"})
    Autopath.objects.update(executors={"read_files": "sha256:old"})
    assert fastpath.age(cat) == {"idle": 0, "executor_changed": 1, "executor_gone": 0}
    assert fastpath.age(cat)["executor_changed"] == 0, "idempotent"
    assert autopath.age(cat)["executor_changed"] == 1
    assert Fastpath.objects.get().trial == Autopath.objects.get().trial == "revalidate"
    assert Fastpath.objects.get().status == "active"
    Fastpath.objects.update(plan={"steps": [{"tool": "no_such_tool", "args": {}}], "final_message": ""})
    assert fastpath.age(cat)["executor_gone"] == 1
    assert Fastpath.objects.get().status == "retired"


def outcome_of(ms: int, usd: str = "0", calls: int = 0) -> TurnOutcome:
    return TurnOutcome("answer", "", "fastpath", latency_ms=ms, cost_usd=Decimal(usd), model_calls=calls)


def test_an_entry_keeps_its_cold_cost_and_what_each_use_saved_against_it(planner_model, workspace):
    first = learn_read_last(planner_model, workspace)
    entry = Fastpath.objects.get()
    assert entry.cold_turns == 1 and 0 < entry.cold_ms_total <= first.latency_ms
    Fastpath.objects.update(cold_turns=2, cold_ms_total=6000, cold_usd_total=Decimal("0.004"), cold_calls_total=4)
    entry.refresh_from_db()
    saved = accounts.saved_by(entry, outcome_of(50, "0.0005", calls=1))
    assert saved == accounts.Saved(1, 2950, Decimal("0.0015"), "measured")
    served = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    entry.refresh_from_db()
    assert served.trace["memory"]["saved"]["basis"] == "measured"
    assert entry.calls_avoided == 2 and 3000 - served.latency_ms <= entry.ms_saved < 3000
    assert entry.usd_saved == Decimal("0.002") - served.cost_usd
    memory.feedback(turn_id=uuid.uuid4(), trace=served.trace, value="up", owner_id=1)
    assert Fastpath.objects.get().feedback_up == 1
    observed = Observation.objects.get(memory_id=entry.pk).turn_id
    for _ in range(2):
        memory.feedback(turn_id=observed, trace=served.trace, value="up", owner_id=1)
    assert Fastpath.objects.get().feedback_up == 2, "the same verdict on the same turn twice counts once"


def test_a_free_cold_path_is_priced_at_the_baseline_model_and_a_seed_by_everyones_mean(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    Fastpath.objects.update(cold_turns=1, cold_ms_total=2000, cold_input_tokens=1200, cold_output_tokens=300)
    entry = Fastpath.objects.get()
    saved = accounts.saved_by(entry, outcome_of(100))
    expected = baseline_cost({"input_tokens": 1200, "output_tokens": 300})
    assert (saved.basis, saved.usd, saved.ms) == ("baseline", expected.quantize(Decimal("1e-10")), 1900)
    seed = Fastpath(source="seed", plan={}, embedding=[0.0] * 384)
    assert accounts.saved_by(seed, outcome_of(100)).ms == 1900, "a seed has no cold turn: everyone's mean"
    Fastpath.objects.update(cold_turns=0)
    assert accounts.saved_by(seed, outcome_of(100)) == accounts.Saved(1, 0, Decimal("0"), "none")


@pytest.mark.parametrize(
    ("saved", "label"),
    [
        ({"ms": 2400, "basis": "measured"}, "served from memory, saved ~2.4 s: read_files"),
        ({"ms": 12400, "basis": "baseline"}, "served from memory, saved ~12 s: read_files"),
        ({"ms": 40, "basis": "measured"}, "from memory: read_files"),
        ({"ms": 0, "basis": "none"}, "from memory: read_files"),
    ],
)
def test_a_person_sees_what_memory_saved_them(saved, label):
    trace = {"memory": {"saved": saved}, "memory_steps": [{"tool": "read_files", "ok": True}]}
    turn_row = type("T", (), {"layer": "fastpath", "final_kind": "answer", "trace": trace, "pending": {}})()
    assert route_label(turn_row) == label
    assert saved_seconds({}) is None
