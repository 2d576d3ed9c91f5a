"""Subagents: run_task starts a turn in a fresh session on its own Celery task; the parent waits
without a worker and resumes with the subagent's answer as the step's result."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents import services, subagents
from agents.memory import Memory
from agents.models import ChatSession, Turn
from agents.tasks import run_turn
from billing.models import LedgerEntry
from planner.executors.base import ExecutorError
from tests.loopback import plan

pytestmark = pytest.mark.django_db(transaction=True)

ASK = "delegate to a subagent: find the .md files and count them"


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


@pytest.fixture
def root(session):
    folder = services.workspace_path(services.session_workspace(session))
    (folder / "notes").mkdir(exist_ok=True)
    (folder / "notes" / "a.md").write_text("alpha\n")
    (folder / "notes" / "b.md").write_text("beta\n")
    return folder


@pytest.fixture
def worker_tier(settings, planner_model):
    settings.METNOS_WORKER_MODEL = "scripted"  # the subagent's calls go to the scripted loopback too
    return planner_model


def test_a_subagent_does_the_step_in_its_own_session_and_the_parent_resumes_with_its_answer(session, root, worker_tier):
    Memory(services.session_workspace(session), root).add("memory", "Secret: the launch code is 1234")
    worker_tier.replies += [
        # "survey …" is not fully typed, so the subagent's engine asks its model (planner.coldpath).
        plan(("run_task", {"profile": "explore", "task": "survey the .md files in notes and count them"}),
             final="The subagent says: ${step1.text}"),
        plan(("find_files", {"pattern": "*.md", "path": "notes"}), final="${step1.count} files"),
    ]  # fmt: skip
    parent = services.turn_submit(session=session, text=ASK)
    run_turn(str(parent.id))
    parent.refresh_from_db()
    assert (parent.final_kind, parent.pending["kind"], parent.pending["profile"]) == ("awaiting", "subagent", "explore")

    child = Turn.objects.select_related("session").get(pk=parent.pending["child_turn_id"])
    assert (child.session.parent_turn_id, child.session.depth, child.session.profile) == (parent.id, 1, "explore")
    assert child.status == "queued" and child.requested_model == "scripted", "its own task, on the worker tier"
    run_turn(str(child.id))  # what the Celery worker does with the child's task
    parent.refresh_from_db()
    assert parent.status == "queued" and parent.pending["ready"], "the subagent's end put the parent back in line"

    run_turn(str(parent.id))
    parent.refresh_from_db()
    assert parent.final_kind == "answer"
    assert parent.messages.get(role="assistant").text == "The subagent says: 2 files"

    child_prompt = json.dumps(worker_tier.requests[1]["json"]["messages"])
    assert "- find_files(" in child_prompt and "- write_files(" not in child_prompt, "explore is read-only"
    assert "launch code" not in child_prompt, "a subagent sees no memory"
    assert "launch code" in json.dumps(worker_tier.requests[0]["json"]["messages"])
    roles = set(LedgerEntry.objects.filter(session_id=child.session_id).values_list("role", flat=True))
    assert roles == {"worker"}


def test_a_subagent_that_fails_is_the_steps_failure(session, root, worker_tier):
    worker_tier.replies += [
        plan(("run_task", {"task": "read notes/missing"}), final="${step1.text}"),
    ]  # the subagent's cold plan (planner.coldpath) reads the missing file
    parent = services.turn_submit(session=session, text=ASK)
    run_turn(str(parent.id))
    child_id = Turn.objects.get(pk=parent.pk).pending["child_turn_id"]
    run_turn(child_id)  # it fails, and re-proposal has no scripted reply: an error either way
    run_turn(str(parent.id))
    parent.refresh_from_db()
    assert parent.final_kind == "error" and parent.error.startswith("step 1 (run_task) failed")


def test_profiles_depth_and_workspace_profiles(session, root):
    assert subagents.profile(root, "explore").tools == subagents.READ
    assert subagents.profile(root, "explore").model_name() == "local-fast", "the worker tier"
    assert subagents.profile(root, "main").model_name() == "local-wise", "main plans on the wise tier"
    assert "write_files" in subagents.profile(root, "code").tools
    (root / ".metnos" / "agents").mkdir(parents=True)
    (root / ".metnos" / "agents" / "reviewer.md").write_text(
        "---\ndescription: reviews diffs\ntools: read_files, grep_files\nmax_turns: 3\n---\nBe strict."
    )
    reviewer = subagents.profile(root, "reviewer")
    assert (reviewer.tools, reviewer.max_turns, reviewer.instructions) == (
        ("read_files", "grep_files"),
        3,
        "Be strict.",
    )
    (root / ".metnos" / "agents" / "broken.md").write_text("---\ntools: [unclosed\n---\n")
    turn = services.turn_submit(session=session, text="hi")
    with pytest.raises(ExecutorError, match="invalid YAML"):
        subagents.Delegate(turn, root).start("broken", "x")
    with pytest.raises(ExecutorError, match="no agent profile 'nobody'"):
        subagents.Delegate(turn, root).start("nobody", "x")

    deep = ChatSession.objects.create(owner=session.owner, workspace=session.workspace, depth=2, parent_turn=turn)
    nested = services.turn_submit(session=deep, text="go deeper")
    with pytest.raises(ExecutorError, match="past depth 2") as refused:
        subagents.Delegate(nested, root).start("explore", "and deeper")
    assert refused.value.error_class == "forbidden"
    started = subagents.Delegate(turn, root).start("reviewer", "review notes/a.md")
    child = Turn.objects.select_related("session").get(pk=started)
    assert child.session.title == "subagent reviewer: review notes/a.md" and child.session.depth == 1


def test_custom_commands_can_limit_tools_or_fork_into_a_subagent(session, root, worker_tier):
    from agents import commands

    commands_dir = root / ".metnos" / "commands"
    commands_dir.mkdir(parents=True)
    (commands_dir / "peek.md").write_text("---\nallowed-tools: read_files\n---\nread $1 and write it to copy.md")
    (commands_dir / "survey.md").write_text("---\ncontext: fork\n---\nfind the .md files in $1 and count them")

    peek = commands.run(session, "/peek notes/a.md")
    assert peek.options == {"allowed_tools": ["read_files"]}
    worker_tier.replies.append(plan(("read_files", {"paths": ["notes/a.md"]})))
    turn = services.turn_submit(session=session, text=peek.turn_text, options=peek.options)
    run_turn(str(turn.id))
    prompt = json.dumps(worker_tier.requests[-1]["json"]["messages"])
    assert "- read_files(" in prompt and "- write_files(" not in prompt

    survey = commands.run(session, "/survey notes")
    assert survey.options == {"fork": "main"}
    turn = services.turn_submit(session=session, text=survey.turn_text, options=survey.options)
    run_turn(str(turn.id))  # no model call here: the whole request went to a subagent
    turn.refresh_from_db()
    assert (turn.final_kind, turn.layer, turn.model_calls) == ("awaiting", "fork", 0)
    child = Turn.objects.get(pk=turn.pending["child_turn_id"])
    assert child.messages.get(role="user").text == "find the .md files in notes and count them"
    run_turn(str(child.id))  # fully typed: the subagent's engine plans it with no model (planner.coldpath)
    run_turn(str(turn.id))
    turn.refresh_from_db()
    answer = turn.messages.get(role="assistant").text
    assert turn.final_kind == "answer" and answer.startswith("2 result(s):") and "notes/b.md" in answer
