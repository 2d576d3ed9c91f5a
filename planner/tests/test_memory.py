"""Plan memory against real Postgres/pgvector and the shipped MiniLM: a plan the engine completed
is served again with the new request's values and no model call, and never where it does not fit."""

import uuid
from dataclasses import replace
from datetime import timedelta

import pytest

from core.clock import now
from planner import memory, seeds
from planner import params as P
from planner.catalog import catalog
from planner.dispatch import run_turn
from planner.memory import autopath, fastpath
from planner.memory.justify import learnable, prune
from planner.memory.probe import Probe, executors_of, row_fields
from planner.models import AntiAutopath, Autopath, Fastpath, Observation
from planner.plan import parse
from planner.turn import TurnInput
from planner.validator import validate
from tests.loopback import plan

pytestmark = pytest.mark.django_db

READ_LAST = plan(("read_files", {"paths": ["notes/a.md"], "tail_lines": 2}), final="${step1.entries.0.content}")


def turn(workspace, text, user_id=1):
    return run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()),
            session_id=str(uuid.uuid4()),
            user_id=user_id,
            text=text,
            workspace_path=workspace,
        )
    )


def learn_read_last(planner_model, workspace):
    # Fully typed: the engine's cold path plans it with no model call, and memory learns that plan.
    first = turn(workspace, "read notes/a.md and tell me its last 2 lines")
    assert (first.layer, first.model_calls, first.text) == ("engine", 0, "line 3\nline 4")
    return first


def test_a_completed_plan_is_served_again_with_the_new_values_and_no_model(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    entry = Fastpath.objects.get()
    assert entry.masked_request == "read <path:1> and tell me its last <number:1> lines"
    assert entry.plan["steps"][0]["args"] == {"paths": ["${PARAM:path_1}"], "tail_lines": "${PARAM:number_1}"}

    again = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    assert (again.layer, again.model_calls) == ("fastpath", 0)
    assert again.text == "TODO: call Ada", "the new file and the new count, not the learned ones"
    assert again.trace["memory"]["stage"] == 1 and again.trace["memory"]["params"] == {
        "path_1": "notes/b.md",
        "number_1": 1,
    }
    assert planner_model.requests == []

    # the same request in other words: one canonical form, stage 1 (planner.canonical)
    paraphrase = turn(workspace, "show me the last 2 lines of notes/b.md")
    assert (paraphrase.layer, paraphrase.model_calls) == ("fastpath", 0)
    assert paraphrase.trace["memory"]["stage"] == 1
    # no verb of its own: a place asked about is read, the same canonical form
    near = turn(workspace, "tell me the last 2 lines of notes/b.md")
    assert (near.layer, near.model_calls, near.trace["memory"]["stage"]) == ("fastpath", 0, 1)
    # keyed apart, the same request is recalled by meaning (stage 2)
    Fastpath.objects.update(key="keyed-apart")
    near = turn(workspace, "tell me the last 2 lines of notes/b.md")
    assert (near.layer, near.model_calls) == ("fastpath", 0)
    assert near.trace["memory"]["stage"] == 2 and near.trace["memory"]["cosine"] >= 0.75
    assert Observation.objects.filter(layer="fastpath", success=True).count() == 4


def test_the_same_request_in_italian_is_served_by_its_signature(planner_model, workspace):
    """MiniLM is English-only, so «mostra le ultime 2 righe di notes/b.md» is not near the English
    request by meaning; its canonical form (verbs and objects as labels) is the same, stage 1."""
    learn_read_last(planner_model, workspace)
    italian = turn(workspace, "leggi notes/b.md e dimmi le sue ultime 1 righe")
    assert (italian.layer, italian.model_calls, italian.text) == ("fastpath", 0, "TODO: call Ada")
    assert italian.trace["memory"]["stage"] == 1
    # the guards hold across languages: the first lines are not the last ones
    planner_model.replies.append(plan(final="(the model answered)"))
    assert turn(workspace, "leggi le prime 2 righe di notes/b.md").layer not in ("fastpath", "autopath")


def test_seeds_answer_italian_requests_and_never_swap_an_operation(planner_model, workspace):
    from planner import seeds

    seeds.load(catalog())
    served = {
        "quanti file .md ci sono?": {"pattern": "*.md"},
        "calcola la somma di 3, 4 e 5": {"expression": "sum([3, 4, 5])"},
        "aggiungi 'pane' a spesa.txt": {"path": "spesa.txt", "content": "pane", "append": True},
        "salva il testo 'pane' in spesa.txt": {"path": "spesa.txt", "content": "pane"},
    }
    for request, args in served.items():
        recall = memory.lookup(memory.Probe.of(request, workspace, 1), catalog())
        assert recall is not None and recall.plan.steps[0].args == args, request
    # «media» is an average: the sum's plan (a seed with this signature but for the operation) is
    # never served for it; the mean's seed is
    recall = memory.lookup(memory.Probe.of("calcola la media di 3, 4 e 5", workspace, 1), catalog())
    assert recall is not None and recall.plan.steps[0].args == {"expression": "mean([3, 4, 5])"}


@pytest.mark.parametrize(
    "near_miss",
    [
        "read the first 2 lines of notes/b.md",  # another constraint
        "don't read notes/b.md, tell me its last 2 lines",  # a negation
        "write notes/b.md and tell me its last 2 lines",  # another verb
        "read notes/b.md and notes/a.md and tell me their last 2 lines",  # another number of values
        "read the last 2 lines of the web page",  # another object, no path
    ],
)
def test_near_misses_go_to_the_model(planner_model, workspace, near_miss):
    learn_read_last(planner_model, workspace)
    planner_model.replies.append(plan(final="(the model answered)"))
    outcome = turn(workspace, near_miss)
    assert outcome.layer not in ("fastpath", "autopath"), outcome.trace.get("memory")


def test_memory_is_per_user(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    planner_model.replies.append(READ_LAST)
    other = turn(workspace, "read notes/a.md and tell me its last 2 lines", user_id=2)
    assert other.layer == "engine", "another user's turn taught nothing to this one"


def test_thumbs_down_on_a_served_answer_sends_the_next_request_to_the_model(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    served = turn(workspace, "read notes/b.md and tell me its last 2 lines")
    assert served.layer == "fastpath"
    memory.feedback(turn_id=served.trace and served_turn_id(served), trace=served.trace, value="down", owner_id=1)
    assert Fastpath.objects.get().status == "disabled"
    planner_model.replies.append(READ_LAST)
    assert turn(workspace, "read notes/b.md and tell me its last 2 lines").layer == "engine"


def served_turn_id(outcome):
    return Observation.objects.filter(memory_id=outcome.trace["memory"]["id"]).latest("created_at").turn_id


def test_a_plan_that_proves_itself_becomes_the_autopath_champion_and_serves_when_l0_cannot(planner_model, workspace):
    learn_read_last(planner_model, workspace)
    assert Autopath.objects.get().status == "challenger", "one success is not proof yet"
    Fastpath.objects.update(status="disabled")
    planner_model.replies.append(READ_LAST)
    assert turn(workspace, "read notes/a.md and tell me its last 2 lines").layer == "engine"
    champion = Autopath.objects.get()
    assert (champion.status, champion.successes) == ("champion", 2)
    Fastpath.objects.update(status="disabled")
    served = turn(workspace, "read notes/b.md and tell me its last 1 lines")
    assert (served.layer, served.text) == ("autopath", "TODO: call Ada")


def test_a_challenger_replaces_the_champion_only_when_it_proves_better(workspace, settings):
    cat = catalog()
    probe = memory.Probe.of("list the files in notes", workspace, 1)
    first = {"steps": [{"tool": "list_files", "args": {"path": "notes"}}], "final_message": ""}
    second = {"steps": [{"tool": "find_files", "args": {"pattern": "*", "path": "notes"}}], "final_message": ""}
    for _ in range(2):
        autopath.record_success(probe, first, cat)
    autopath.record_success(probe, second, cat)
    assert dict(Autopath.objects.values_list("plan__steps__0__tool", "status")) == {
        "list_files": "champion",
        "find_files": "challenger",
    }
    autopath.record_success(probe, second, cat)  # 2 of 2: as good, not better
    assert Autopath.objects.get(status="champion").plan["steps"][0]["tool"] == "list_files"
    champion = Autopath.objects.get(status="champion")
    autopath.used(champion, success=False, latency_ms=1)  # the champion fails once: 2 of 3
    assert Autopath.objects.get(status="champion").plan["steps"][0]["tool"] == "find_files"
    assert autopath.promote() == 0, "running the promoter again changes nothing"


def test_a_plan_that_fails_repeatedly_is_banned_and_excluded_from_reproposal(planner_model, workspace):
    # The cold path's plan fails first (a link out of the workspace), then the model re-proposes the same plan.
    (workspace / "notes" / "missing.md").symlink_to(workspace.parent / "secret.txt")  # there, but not readable
    bad = plan(("read_files", {"paths": ["notes/missing.md"]}))
    for _ in range(2):
        planner_model.replies.append(bad)
        outcome = turn(workspace, "read notes/missing.md")
        assert outcome.layer == "terminator"
    anti = AntiAutopath.objects.get()
    assert anti.plan["steps"][0]["args"]["paths"] == ["${PARAM:path_1}"] and anti.expires_at > now()
    planner_model.replies.append(plan(final="There is no such file."))  # the banned cold plan is not run
    turn(workspace, "read notes/missing.md")
    reproposal = planner_model.requests[-1]["json"]["messages"][0]["content"]
    assert "failed repeatedly" in reproposal


def test_the_ager_retires_stale_entries_and_puts_changed_ones_on_trial_idempotently(planner_model, workspace, settings):
    learn_read_last(planner_model, workspace)
    Fastpath.objects.update(last_used_at=now() - timedelta(days=settings.METNOS_FASTPATH_MAX_IDLE_DAYS + 1))
    AntiAutopath.objects.create(verb="read", object="files", plan_hash="x", reason="r", expires_at=now())
    cat = catalog()
    assert fastpath.age(cat) == {"idle": 1, "executor_changed": 0, "executor_gone": 0}
    assert fastpath.age(cat) == {"idle": 0, "executor_changed": 0, "executor_gone": 0}
    assert autopath.age(cat)["anti_expired"] == 1 and autopath.age(cat)["anti_expired"] == 0
    Autopath.objects.update(executors={"read_files": "sha256:old"})
    assert autopath.age(cat)["executor_changed"] == 1
    assert Autopath.objects.get().trial == "revalidate", "a changed executor: on trial (test_memory_trial)"


def test_seed_plans_load_once_and_answer_common_requests_from_the_first_run(planner_model, workspace):
    from planner import seeds

    first = seeds.load(catalog())
    assert first.created == first.seeds >= 20
    assert seeds.load(catalog()).created == 0, "loading again adds nothing"
    assert Fastpath.objects.filter(source="seed", pinned=True).count() == first.seeds
    answers = {
        "show the last 2 lines of notes/a.md": "line 3\nline 4",
        "how many .md files are there?": "There are 2 .md files.",
        "what is 6 * 7?": "6 * 7 = 42",
        "calculate the sum of 1, 2 and 3": "The sum is 6.",
        "which lines mention TODO?": "1 result(s):\nnotes/b.md:2: TODO: call Ada",
    }
    for request, expected in answers.items():
        outcome = turn(workspace, request)
        assert (outcome.layer, outcome.model_calls, outcome.text) == ("fastpath", 0, expected), request
    assert (workspace / "todo.txt").exists() is False
    saved = turn(workspace, "save the text 'buy milk' to todo.txt")
    assert saved.layer == "fastpath" and (workspace / "todo.txt").read_text() == "buy milk"
    assert not planner_model.requests, "no model was asked"


def test_thumbs_down_on_a_seed_answer_sends_this_user_to_the_model_and_keeps_it_for_others(planner_model, workspace):
    from planner import seeds

    seeds.load(catalog())
    served = turn(workspace, "show the last 2 lines of notes/a.md")
    assert served.layer == "fastpath"
    memory.feedback(turn_id=served_turn_id(served), trace=served.trace, value="down", owner_id=1)
    planner_model.replies.append(READ_LAST)
    assert turn(workspace, "show the last 2 lines of notes/a.md").layer == "engine", "nor L0 nor L1 serves it"
    assert turn(workspace, "show the last 2 lines of notes/a.md", user_id=2).layer == "fastpath"


def test_the_memory_jobs_are_scheduled_for_beat_and_idempotent(settings, planner_model, workspace):
    from planner import tasks

    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"planner.tasks.age_memory", "planner.tasks.promote_autopaths", "planner.tasks.compact_observations"} <= (
        scheduled
    )
    learn_read_last(planner_model, workspace)
    Observation.objects.update(created_at=now() - timedelta(days=settings.METNOS_OBSERVATION_RETENTION_DAYS + 1))
    assert tasks.compact_observations() == 1 and tasks.compact_observations() == 0
    assert tasks.promote_autopaths() == 0
    first = tasks.age_memory()
    assert tasks.age_memory() == {
        "fastpath": {"idle": 0, "executor_changed": 0, "executor_gone": 0},
        "autopath": {"anti_expired": 0, "idle": 0, "executor_changed": 0, "executor_gone": 0},
    }
    assert first["fastpath"]["idle"] == 0, "a fresh entry is not stale"


class WritesNeedApproval:
    def needs_approval(self, name: str, capabilities: tuple[str, ...], args: dict) -> bool:
        return "fs:write" in capabilities


def test_a_plan_with_text_the_request_never_gave_is_never_learned_even_after_approval(planner_model, workspace):
    planner_model.replies.append(
        plan(("write_files", {"path": "poem.txt", "content": "Leaves fall softly"}), final="Saved ${step1.path}.")
    )
    inp = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, workspace_path=workspace,
                    text="write something nice about autumn in poem.txt", permissions=WritesNeedApproval())  # fmt: skip
    waiting = run_turn(inp)
    assert waiting.final_kind == "awaiting", (waiting.layer, waiting.trace)
    done = run_turn(replace(inp, stopped={**waiting.pending, "decision": "allow"}))
    assert done.final_kind == "answer" and (workspace / "poem.txt").read_text() == "Leaves fall softly"
    assert done.trace["learn"]["learned"] is False and "leaves" in done.trace["learn"]["reason"]
    assert not Fastpath.objects.exists() and not Autopath.objects.exists(), "approved, but not remembered"


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("read notes/a.md and tell me its last 2 lines", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 2})]),
        ("show the last lines of notes/a.md", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 10})]),
        ("list the markdown files", [("find_files", {"pattern": "*.md"})]),
        ("elenca i file markdown", [("find_files", {"pattern": "*.md"})]),
        ("list my files", [("list_files", {"path": "."})]),
        ("what time is it?", [("get_time", {"tz": "UTC"})]),
        ("what is the average of 3, 4 and 8?", [("compute", {"expression": "mean([3, 4, 8])"})]),
        ("what is 3 percent of 8?", [("compute", {"expression": "3 / 100 * 8"})]),
        ("quanto è il 15% di 300?", [("compute", {"expression": "15 / 100 * 300"})]),
        ("append 'buy milk' to todo.txt", [("write_files", {"path": "todo.txt", "content": "buy milk",
                                                            "append": True})]),
        ("remember that my favourite colour is green", [("memory_add", {"text": "favourite colour: green"})]),
        ("ricorda che il mio colore preferito è il verde", [("memory_add", {"text": "colore preferito: verde"})]),
        ("add 'call mom' to my todo list", [("todo_update", {"items": [{"text": "call mom", "status": "pending"}]})]),
        ("copy notes/a.md to notes/c.md", [("read_files", {"paths": ["notes/a.md"]}),
                                           ("write_files", {"path": "notes/c.md",
                                                            "content": "${step1.entries.0.content}"})]),
    ],
)  # fmt: skip
def test_a_plan_whose_every_literal_the_request_justifies_is_learnable(text, steps):
    learnable(
        {"steps": [{"tool": t, "args": a} for t, a in steps], "final_message": "Done."}, P.extract(text), catalog()
    )


@pytest.mark.parametrize(
    ("text", "steps", "why"),
    [
        ("Write a haiku about autumn.", [("write_files", {"path": "hiiuaiyut", "content": "x"})], "hiiuaiyut"),
        ("write a haiku about autumn to poem.txt", [("write_files", {"path": "poem.txt",
                                                                     "content": "Leaves fall softly"})], "leaves"),
        ("Scrivi una frase sul mare.", [("write_files", {"path": "todo.txt", "content": "Il mare è blu"})], "todo.txt"),
        ("list the files", [("list_files", {"path": "notes"})], "notes"),
        ("what is 3 percent of 8?", [("compute", {"expression": "3 * 100 * 8"})], "100"),
        ("save the time to a file", [("get_time", {}), ("write_files", {"path": "${FILLER:name}",
                                                                        "content": "${step1.time}"})], "FILLER"),
        ("count the python files", [("run_shell", {"command": "find . -name '*.py' | wc -l"})], "wc"),
        ("che ore sono?", [("todo_update", {"items": [{"text": "check the time", "status": "done"}]})], "check"),
    ],
)  # fmt: skip
def test_a_plan_with_a_value_the_user_never_gave_is_not_learnable(text, steps, why):
    template = {"steps": [{"tool": t, "args": a} for t, a in steps], "fillers": {"name": {"prompt": "a file name"}}}
    with pytest.raises(P.NotLearnable, match=why):
        learnable(template, P.extract(text), catalog())


def test_every_seed_plan_is_valid_for_its_request_and_learnable():
    cat = catalog()
    for seed in seeds.read():
        assert not [p for p in validate(parse(seed["plan"]), cat, request_text=seed["request"]) if p.blocking], seed
        learnable(seed["plan"], P.extract(seed["request"]), cat)


def test_the_migration_forgets_learned_plans_it_cannot_justify_keeps_seeds_and_runs_twice(workspace):
    cat = catalog()
    assert prune(Fastpath, Autopath) == 0, "an empty memory is fine"

    def remember(model, text, steps, **extra):
        """A row as the learn path wrote it before plans had to be justified."""
        probe = Probe.of(text, workspace, None if extra.get("source") == "seed" else 1)
        template, slots = P.parametrize({"steps": [{"tool": t, "args": a} for t, a in steps]}, probe.extraction)
        fields = row_fields(probe, template, slots, executors_of(template, cat))
        return model.objects.create(**fields, owner_id=probe.owner_id, **extra)

    haiku = [("write_files", {"path": "hiiuaiyut", "content": "leaves fall"})]
    remember(Fastpath, "Write a haiku about autumn.", haiku)
    remember(Autopath, "Write a haiku about autumn.", haiku, cluster=uuid.uuid4())
    kept = remember(Fastpath, "read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})])
    seed = remember(Fastpath, "Write a haiku about autumn.", haiku, source="seed")
    assert prune(Fastpath, Autopath) == 2
    assert set(Fastpath.objects.values_list("id", flat=True)) == {kept.id, seed.id} and not Autopath.objects.exists()
    assert prune(Fastpath, Autopath) == 0, "a second run finds nothing more"
