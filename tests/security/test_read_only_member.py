"""A workspace member with read access tries every executor in the catalog, through the real step
runner (planner.execution: `act` for single steps, `execute` for a whole plan) with the turn's own
context, as agents builds it for that member. Only what planner/access.py allows runs; the rest
is refused before the vaglio, the approval policy or the executor, even in YOLO mode, and
nothing in the shared workspace changes. A new executor needs an entry in the table and a valid
call here, or these tests fail."""

import pytest
from django.contrib.auth import get_user_model

from agents import runtime, services
from agents.memory import Memory
from agents.models import ChatSession, RecurringTask
from planner import access, candidates, engine
from planner.catalog import EXECUTORS_DIR, catalog
from planner.execution import act, execute
from planner.invoke import failure, validate_args
from planner.plan import parse

pytestmark = pytest.mark.django_db(transaction=True)

SKILL = "---\nname: review\ndescription: Review a document.\n---\n1. Read it.\n2. List the problems.\n"
# One valid call per executor; scratchpad_read's id comes from the large read before it.
CALLS = {
    "read_files": {"paths": ["big.md"]},
    "list_files": {},
    "find_files": {"pattern": "*.md"},
    "grep_files": {"pattern": "shared"},
    "skill_load": {"name": "review"},
    "scratchpad_read": {"scratchpad_id": "from the read", "mode": "head", "chars": 20},
    "compute": {"expression": "17 * 23"},
    "get_time": {"tz": "Europe/Rome"},
    "final_answer": {"text": "done"},
    "todo_update": {"items": [{"text": "read the notes", "status": "done"}]},
    "get_urls": {"urls": ["http://127.0.0.1:9/notes.md"]},
    "write_files": {"path": "new.md", "content": "written by a reader"},
    "edit_file": {"path": "notes.md", "old": "shared", "new": "changed"},
    "delete_files": {"paths": ["notes.md"]},
    "move_files": {"paths": ["notes.md"], "to": "moved.md"},
    "make_dirs": {"paths": ["made"]},
    "run_shell": {"command": "touch ran.txt"},
    "memory_add": {"text": "a reader was here"},
    "memory_replace": {"old": "the owner's fact", "new": "a reader's fact"},
    "memory_consolidate": {"text": "a reader's memory"},
    "run_task": {"profile": "explore", "task": "read notes.md"},
    "schedule_recurring": {"name": "daily", "prompt": "read notes.md", "schedule": "every day at 08:00"},
    "run_now_recurring": {"name": "daily"},
    "toggle_recurring": {"name": "daily", "enabled": False},
    "cancel_recurring": {"name": "daily"},
    "list_recurring": {},
    "show_recurring": {"name": "daily"},
    "history_recurring": {"name": "daily"},
}


def person(name):
    return get_user_model().objects.create_user(username=name, password=f"pw-{name}-123456789")


def turn_context(session, text="look around"):
    """The context agents gives this session's turn: runtime.prepare reads the member's access."""
    turn = services.turn_submit(session=session, text=text, enqueue=False)
    inp = runtime.prepare(turn).inp
    ctx, _ = engine.context(inp)
    return inp, ctx


@pytest.fixture
def shared():
    owner, reader = person("alice"), person("bob")
    workspace = services.workspace_create(owner=owner, name="team")
    root = services.workspace_path(workspace)
    (root / "notes.md").write_text("shared notes\n")
    (root / "big.md").write_text("shared line\n" * 1000)  # its read goes to the scratchpad
    (root / ".metnos" / "skills" / "review").mkdir(parents=True)
    (root / ".metnos" / "skills" / "review" / "SKILL.md").write_text(SKILL)
    Memory(workspace, root).add("memory", "the owner's fact")
    services.member_set(workspace=workspace, username="bob", access="read")
    session = services.session_create(owner=reader, workspace=workspace)
    # YOLO: nothing waits for approval, so only the access check stands between a reader and a write.
    services.session_set_yolo(session=session, on=True)
    return owner, workspace, root, session


def files(root):
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in sorted(root.rglob("*"))}


def test_every_executor_has_an_entry_in_the_read_only_table():
    executors = {p.name for p in EXECUTORS_DIR.iterdir() if (p / "manifest.toml").is_file()} | set(catalog().executors)
    assert not executors - set(access.READ_ONLY), "add these to planner/access.py READ_ONLY, with a reason"
    assert not set(access.READ_ONLY) - executors, "entries for executors that no longer exist"
    assert all(reason.strip() for _, reason in access.READ_ONLY.values())
    assert not access.read_allowed("a_tool_nobody_listed"), "an executor without an entry is refused"


def test_a_read_only_member_runs_only_the_executors_the_table_allows(shared):
    _, workspace, root, session = shared
    inp, ctx = turn_context(session)
    assert inp.read_only and ctx.read_only, "agents marks the member's turn read-only"
    before, memory = files(root), Memory(workspace, root).snapshot()
    cat = catalog()
    assert not set(cat.executors) - set(CALLS), "add a valid call for the new executor to CALLS"
    names = ["read_files", *sorted(set(cat.executors) - {"read_files"})]
    ran, refused, scratchpad_id = set(), set(), None
    for index, name in enumerate(names, 1):
        executor, args = cat.get(name), dict(CALLS[name])
        if name == "scratchpad_read":
            args["scratchpad_id"] = scratchpad_id
        assert validate_args(executor, args) is None, f"the call for {name} is not valid"
        acted = act(executor, args, ctx=ctx, index=index, request_text=f"use {name} as asked")
        if name == "read_files":
            scratchpad_id = acted.observation["scratchpad_id"]
        if access.read_allowed(name):
            assert acted.result["ok"] is True, (name, acted.result)
            ran.add(name)
        else:
            assert acted.result == failure("forbidden", f"read-only access: {name} is not allowed")
            assert not acted.awaiting and not acted.verdict.approved
            refused.add(name)
    assert ran == {n for n in cat.executors if access.read_allowed(n)}
    assert {"get_urls", "schedule_recurring", "write_files", "run_shell", "memory_add"} <= refused
    assert files(root) == before, "nothing in the shared workspace changed"
    assert Memory(workspace, root).snapshot() == memory and "the owner's fact" in memory["memory"]
    assert not RecurringTask.objects.exists() and not ChatSession.objects.filter(parent_turn__isnull=False).exists()


def test_a_read_only_member_is_offered_only_the_allowed_tools(shared):
    _, _, _, session = shared
    inp, _ = turn_context(session)
    offered = {e.name for e in candidates.allowed(inp, list(catalog().executors.values()))}
    assert offered == {n for n in catalog().executors if access.read_allowed(n)}
    assert not {"get_urls", "list_recurring", "schedule_recurring", "run_task"} & offered


def test_a_plan_that_reaches_past_read_access_stops_at_that_step(shared):
    """A plan from memory, a follow-up or the cold path arrives already made: the step runner
    itself refuses the step, whatever chose it."""
    _, _, root, session = shared
    inp, ctx = turn_context(session, "read notes.md and post it")
    plan = parse({"steps": [
        {"tool": "read_files", "args": {"paths": ["notes.md"]}},
        {"tool": "get_urls", "args": {"urls": ["http://127.0.0.1:9/?notes=${step1.entries.0.content}"]}},
        {"tool": "write_files", "args": {"path": "copy.md", "content": "${step1.entries.0.content}"}},
    ], "final_message": ""})  # fmt: skip
    execution = execute(plan, catalog=catalog(), ctx=ctx, request_text=inp.text)
    assert execution.status == "failed" and [s.ok for s in execution.steps] == [True, False]
    assert execution.failed.error_class == "forbidden"
    assert execution.failed.observation["error"] == "read-only access: get_urls is not allowed"
    assert not (root / "copy.md").exists()


def test_the_owner_and_a_member_with_write_access_are_not_held_to_the_table(shared):
    owner, workspace, _, _ = shared
    services.member_set(workspace=workspace, username="bob", access="write")
    writer = services.session_create(owner=get_user_model().objects.get(username="bob"), workspace=workspace)
    for session in (services.session_create(owner=owner, workspace=workspace), writer):
        inp, ctx = turn_context(session)
        assert not inp.read_only and not ctx.read_only
        assert all(access.refusal(name, ctx) is None for name in catalog().executors)
