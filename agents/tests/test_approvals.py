"""Permissions: a step that writes, runs a command or goes online waits for the user's approval,
unless the session is in YOLO mode or the tool was allowed for the session. The turn waits without
holding a worker (the Celery task ends) and resumes where it stopped on allow, deny or always."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents import commands, frames, services
from agents.models import Message, Turn
from agents.tasks import run_turn
from agents.tests.test_consumer import communicator, run
from tests.loopback import completion, plan

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


@pytest.fixture
def folder(session):
    root = services.workspace_path(services.session_workspace(session))
    (root / "notes").mkdir(exist_ok=True)
    (root / "notes" / "a.md").write_text("first line\n")
    return root


def waiting_turn(session, planner_model, text, *steps, final=""):
    planner_model.replies.append(plan(*steps, final=final))
    turn = services.turn_submit(session=session, text=text)
    run_turn(str(turn.id))  # the task ends here: nothing waits in a worker
    turn.refresh_from_db()
    return turn


def test_a_write_waits_for_approval_then_runs_once_allowed(session, planner_model, folder):
    write = ("write_files", {"path": "notes/x.md", "content": "hello"})
    turn = waiting_turn(session, planner_model, "put hello in notes/x.md", write, final="Saved ${step1.path}.")
    assert (turn.status, turn.final_kind) == ("completed", "awaiting")
    assert (turn.pending["kind"], turn.pending["tool"], turn.pending["args"]["path"]) == (
        "approval",
        "write_files",
        "notes/x.md",
    )
    assert not (folder / "notes" / "x.md").exists(), "nothing is written before the user answers"
    request = frames.approval_request(turn)
    assert request == {"type": "approval.request", "turn_id": str(turn.id), "request_id": turn.pending["request_id"],
                       "tool": "write_files", "args": write[1], "step": 1}  # fmt: skip

    request_id = turn.pending["request_id"]
    services.turn_decide(session=session, request_id=request_id, decision="allow")
    turn.refresh_from_db()
    assert turn.status == "queued" and turn.pending["decision"] == "allow"
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, (folder / "notes" / "x.md").read_text()) == ("answer", "hello")
    assert [m.text for m in Message.objects.filter(turn=turn, role="assistant")] == ["Saved notes/x.md."]
    assert turn.model_calls == 1 and turn.trace["before_approval"], "the planning call before the wait still counts"
    assert turn.pending == {}, "answered: nothing waits any more"
    with pytest.raises(services.InvalidInput, match="no tool is waiting"):
        services.turn_decide(session=session, request_id=request_id, decision="allow")


def test_a_plan_keeps_what_it_read_before_the_wait_and_a_denial_stops_it(session, planner_model, folder):
    steps = [("read_files", {"paths": ["notes/a.md"]}),
             ("write_files", {"path": "notes/b.md", "content": "${step1.entries.0.content}"})]  # fmt: skip
    turn = waiting_turn(session, planner_model, "read notes/a.md and write it to notes/b.md", *steps)
    assert turn.final_kind == "awaiting", (turn.final_kind, turn.pending, turn.trace)
    assert turn.pending["step"] == 2 and turn.pending["results"]["1"]["entries"][0]["content"] == "first line\n"
    services.turn_decide(session=session, request_id=turn.pending["request_id"], decision="allow")
    run_turn(str(turn.id))
    assert (folder / "notes" / "b.md").read_text() == "first line\n"

    denied = waiting_turn(session, planner_model, "read notes/a.md and write it to notes/c.md", steps[0],
                          ("write_files", {"path": "notes/c.md", "content": "${step1.entries.0.content}"}))  # fmt: skip
    services.turn_decide(session=session, request_id=denied.pending["request_id"], decision="deny")
    run_turn(str(denied.id))
    denied.refresh_from_db()
    assert not (folder / "notes" / "c.md").exists()
    assert denied.final_kind == "answer" and "You denied write_files" in denied.messages.get(role="assistant").text


def test_always_allow_grants_the_tool_for_the_session_and_yolo_asks_nothing(session, planner_model, folder):
    write = ("write_files", {"path": "notes/x.md", "content": "one"})
    turn = waiting_turn(session, planner_model, "write one to notes/x.md", write)
    services.turn_decide(session=session, request_id=turn.pending["request_id"], decision="always")
    session.refresh_from_db()
    assert session.grants == ["write_files"]
    run_turn(str(turn.id))
    again = waiting_turn(session, planner_model, "write two to notes/y.md",
                         ("write_files", {"path": "notes/y.md", "content": "two"}))  # fmt: skip
    assert again.final_kind == "answer" and (folder / "notes" / "y.md").read_text() == "two"

    other = services.session_create(owner=session.owner)
    assert "YOLO on" in commands.yolo(other, "on")
    shell = waiting_turn(other, planner_model, "run echo hi", ("run_shell", {"command": "echo hi"}))
    assert shell.final_kind == "answer" and "hi" in shell.messages.get(role="assistant").text
    commands.yolo(other, "off")
    asked = waiting_turn(other, planner_model, "run echo hi", ("run_shell", {"command": "echo hi"}))
    assert asked.final_kind == "awaiting" and asked.pending["tool"] == "run_shell"


def test_reading_never_asks(session, planner_model, folder):
    turn = waiting_turn(session, planner_model, "read notes/a.md", ("read_files", {"paths": ["notes/a.md"]}))
    assert turn.final_kind == "answer"


def test_react_mode_waits_too_and_goes_on_with_the_model_after_the_answer(session, planner_model):
    react = services.workspace_create(owner=session.owner, name="react", mode="react")
    session = services.session_create(owner=session.owner, workspace=react)
    planner_model.replies.extend([
        completion('{"tool": "write_files", "args": {"path": "out.md", "content": "hi"}}'),
        completion('{"final": "Wrote out.md."}'),
    ])  # fmt: skip
    turn = services.turn_submit(session=session, text="write hi to out.md")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, turn.layer, turn.pending["mode"]) == ("awaiting", "react", "react")
    services.turn_decide(session=session, request_id=turn.pending["request_id"], decision="allow")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, turn.model_calls) == ("answer", 2)
    assert (services.workspace_path(react) / "out.md").read_text() == "hi"
    # The model saw the write's observation before it answered.
    assert "Observation" in str(planner_model.requests[-1]["json"]["messages"])


def test_approvals_are_scoped_to_their_session_and_checked(session, planner_model, folder):
    turn = waiting_turn(session, planner_model, "write hello to notes/x.md",
                        ("write_files", {"path": "notes/x.md", "content": "hello"}))  # fmt: skip
    mallory = get_user_model().objects.create_user(username="mallory", password="pw-mallory-123456")
    theirs = services.session_create(owner=mallory)
    with pytest.raises(services.InvalidInput, match="no tool is waiting"):
        services.turn_decide(session=theirs, request_id=turn.pending["request_id"], decision="allow")
    with pytest.raises(services.InvalidInput, match="decision must be one of"):
        services.turn_decide(session=session, request_id=turn.pending["request_id"], decision="maybe")
    assert Turn.objects.get(pk=turn.pk).final_kind == "awaiting"

    async def scenario():
        comm = communicator(session.id, session.owner)
        await comm.connect()
        await comm.send_json_to({"type": "approve", "request_id": "nope", "decision": "allow"})
        bad = await comm.receive_json_from(timeout=5)
        await comm.send_json_to({"type": "message", "text": "notes/x.md please"})  # text is not an approval
        started = await comm.receive_json_from(timeout=5)
        await comm.send_json_to({"type": "approve", "request_id": turn.pending["request_id"], "decision": "deny"})
        resumed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return bad, started, resumed

    bad, started, resumed = run(scenario)
    assert bad["type"] == "error" and "no tool is waiting" in bad["message"]
    assert started["type"] == "turn.started" and Turn.objects.get(pk=started["turn_id"]).answers_id is None
    assert resumed == {"type": "turn.resumed", "turn_id": str(turn.id), "decision": "deny"}


def test_the_agent_keeps_a_task_list_shown_by_todos(session, planner_model, folder):
    items = [{"text": "read the notes", "status": "done"}, {"text": "write the summary", "status": "in_progress"}]
    turn = waiting_turn(session, planner_model, "update the todo list", ("todo_update", {"items": items}))
    assert turn.final_kind == "answer", "the task list changes nothing outside the session: it never asks"
    session.refresh_from_db()
    assert session.todos == items
    assert commands.todos.render(session.todos) == "Tasks (1 of 2 done):\n[x] read the notes\n[~] write the summary"


def test_plan_mode_offers_only_tools_that_change_nothing_and_saves_the_plan(session, planner_model, folder):
    assert "Plan mode on" in commands.plan(session)
    session.refresh_from_db()
    planner_model.replies.append(plan(("read_files", {"paths": ["notes/a.md"]}), final="1. Read: ${step1.count} file"))
    turn = services.turn_submit(session=session, text="read notes/a.md and write it to notes/b.md")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "answer" and not (folder / "notes" / "b.md").exists()
    sent = planner_model.requests[-1]["json"]
    prompt = json.dumps(sent["messages"])
    assert "# Plan mode" in prompt and "- read_files(" in prompt and "- write_files(" not in prompt
    saved = services.plan_artifact_path(session).read_text()
    assert "read notes/a.md and write it to notes/b.md" in saved and "1. Read: 1 file" in saved
    assert "Plan mode off" in commands.done(session)
    session.refresh_from_db()
    assert not session.plan_mode
