"""Workspace hooks (.metnos/hooks.yaml) around a real turn: what they get, what blocks, and what is
only reported (timeouts, missing commands, a broken file)."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Turn
from agents.tasks import run_turn
from tests.loopback import plan

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    session = services.session_create(owner=alice)
    services.session_set_yolo(session=session, on=True)  # these tests are about hooks, not approvals
    return session


@pytest.fixture
def root(session):
    folder = services.workspace_path(services.session_workspace(session))
    (folder / "notes").mkdir(exist_ok=True)
    (folder / "notes" / "a.md").write_text("alpha\n")
    return folder


def hooks(root, text):
    (root / ".metnos").mkdir(exist_ok=True)
    (root / ".metnos" / "hooks.yaml").write_text(text)


def turn_with(session, planner_model, text, *steps):
    planner_model.replies.append(plan(*steps))
    turn = services.turn_submit(session=session, text=text)
    run_turn(str(turn.id))
    return Turn.objects.get(pk=turn.pk)


def test_a_pre_tool_hook_that_exits_2_blocks_the_call_with_its_reason(session, planner_model, root):
    hooks(root, "pre_tool_use:\n  - command: echo 'no writes on Fridays' >&2; exit 2\n    matcher: ^write_files$\n")
    turn = turn_with(session, planner_model, "write hi to notes/b.md", ("write_files", {"path": "notes/b.md",
                                                                                      "content": "hi"}))  # fmt: skip
    assert not (root / "notes" / "b.md").exists()
    [step] = turn.trace["attempts"][0]["steps"]
    assert step["error_class"] == "blocked_hook" and "no writes on Fridays" in step["result"]
    assert "no writes on Fridays" in turn.messages.get(role="assistant").text
    ran = turn.trace["hooks"][0]
    assert (ran["event"], ran["exit_code"], ran["stderr"]) == ("pre_tool_use", 2, "no writes on Fridays")
    # The matcher: a read is not a write, so the hook does not run for it.
    read = turn_with(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    assert read.final_kind == "answer" and "hooks" not in read.trace


def test_hooks_get_the_event_on_stdin_and_in_the_environment(session, planner_model, root):
    post = 'cat > seen.json; echo "$METNOS_HOOK_EVENT $METNOS_TOOL_NAME" > env.txt'
    hooks(root, f"post_tool_use:\n  - command: {post}\nsession_start:\n  - command: echo started >> starts.txt\n")
    turn_with(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    seen = json.loads((root / "seen.json").read_text())
    assert (seen["event"], seen["tool"], seen["args"], seen["result"]["ok"]) == (
        "post_tool_use",
        "read_files",
        {"paths": ["notes/a.md"]},
        True,
    )
    assert seen["session_id"] == str(session.id)
    assert (root / "env.txt").read_text() == "post_tool_use read_files\n"
    turn_with(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    assert (root / "starts.txt").read_text() == "started\n", "session_start runs on the session's first turn only"


def test_a_slow_or_missing_hook_is_reported_and_does_not_block(session, planner_model, root):
    hooks(root, "pre_tool_use:\n  - command: sleep 5\n    timeout: 0.3\n  - command: ./no-such-hook.sh\n")
    turn = turn_with(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    assert turn.final_kind == "answer" and "alpha" in turn.messages.get(role="assistant").text
    slow, missing = turn.trace["hooks"]
    assert slow["timed_out"] and "longer than 0.3 s" in slow["error"]
    assert missing["exit_code"] == 127 and "not found" in missing["error"]


def test_a_broken_hooks_file_is_reported_with_its_line_and_the_turn_goes_on(session, planner_model, root):
    hooks(root, "pre_tool_use:\n  - command: [unclosed\n")
    turn = turn_with(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    assert turn.final_kind == "answer"
    assert turn.trace["hooks"][0]["error"].startswith(".metnos/hooks.yaml:3: invalid YAML")


def test_a_prompt_hook_can_refuse_the_message_before_any_model_call(session, planner_model, root):
    refuse = "grep -q password && { echo 'no secrets here' >&2; exit 2; }; exit 0"
    hooks(root, f"user_prompt_submit:\n  - command: {refuse}\n")
    turn = services.turn_submit(session=session, text="my password is hunter2, remember it")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "error" and "no secrets here" in turn.messages.get(role="assistant").text
    assert turn.model_calls == 0 and not planner_model.requests
