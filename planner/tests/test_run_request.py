"""A request that only asks to run a command is run with no model call, and so is one that saves
what a command printed (planner.run_request, planner.compound). From a chat walk: "save the output
of 'date' to when.txt" went to the 135M model, which planned delete_files."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.turn import TurnInput

pytestmark = pytest.mark.django_db


def turn(workspace, text):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    return run_turn(TurnInput(**ids, text=text, workspace_path=workspace))


@pytest.mark.parametrize("text", ["run echo ready", "run `echo ready`"])
def test_a_command_asked_for_alone_runs_with_no_model(planner_model, workspace, text):
    outcome = turn(workspace, text)
    assert outcome.final_kind == "answer" and outcome.model_calls == 0 and planner_model.requests == []
    assert outcome.text.strip() == "ready"


@pytest.mark.parametrize(
    "text",
    [
        "save the output of 'echo ready' to when.txt",
        "run 'echo ready' and save the output to when.txt",
        "salva l'output di 'echo ready' in when.txt",
    ],
)
def test_a_commands_output_is_saved_with_no_model(planner_model, workspace, text):
    outcome = turn(workspace, text)
    assert outcome.final_kind == "answer" and outcome.model_calls == 0 and planner_model.requests == []
    assert (workspace / "when.txt").read_text() == "ready\n"


def test_more_than_a_command_is_left_to_the_model(planner_model, workspace):
    turn(workspace, "run the tests in src and tell me which ones fail")  # no reply queued: it errs, having asked
    assert planner_model.requests


def test_a_command_with_more_after_it_is_never_run_as_one_command(workspace):
    from planner import run_request

    tools = {"run_shell"}
    assert run_request.plan_for("run sleep 30 and then write late.txt", tools=tools) is None
    assert run_request.plan_for("run ls, then delete old.md", tools=tools) is None
    assert run_request.plan_for("esegui ls e poi cancella old.md", tools=tools) is None
    assert run_request.plan_for("run 'ls -la' and show me", tools=tools) is None
    assert run_request.plan_for("run `echo a and b`", tools=tools).steps[0].args == {"command": "echo a and b"}
