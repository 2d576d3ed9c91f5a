"""Large results: a step takes an earlier step's listing (from_step), on the engine and from plan
memory; a result kept in the scratchpad makes scratchpad_read available, in that turn and the next."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn
from tests.loopback import completion, plan

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def owner():
    return get_user_model().objects.create_user(username="elena", password="pw-elena-123456")


def say(session, text: str) -> tuple[Turn, str]:
    turn = services.turn_submit(session=session, text=text, model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    return turn, Message.objects.get(turn=turn, role="assistant").text


def test_from_step_feeds_the_files_one_step_found_to_the_next_on_the_engine_and_from_memory(owner, planner_model):
    session = services.session_create(owner=owner)
    root = services.workspace_path(session.workspace)
    for folder in ("notes", "docs"):
        (root / folder).mkdir()
        (root / folder / "a.md").write_text(f"{folder} alpha\nmore\n")
        (root / folder / "b.md").write_text(f"{folder} beta\nmore\n")
        (root / folder / "skip.txt").write_text("not markdown\n")
    planner_model.replies.append(plan(("find_files", {"pattern": "*.md", "path": "notes"}),
                                      ("read_files", {"from_step": 1, "head_lines": 1})))  # fmt: skip
    turn, answer = say(session, "find the *.md files in notes and show me the first line of each")
    assert (turn.layer, turn.final_kind) == ("engine", "answer"), turn.trace
    assert "notes alpha" in answer and "notes beta" in answer and "more" not in answer
    sent = json.dumps(planner_model.requests[0]["json"]["response_format"])
    assert '"from_step"' in sent, "the plan's grammar offers from_step to a capable model"

    turn, answer = say(session, "find the *.md files in docs and show me the first line of each")
    assert turn.layer in ("fastpath", "autopath") and turn.model_calls == 0, turn.trace
    assert "docs alpha" in answer and "docs beta" in answer and "notes" not in answer


def test_a_result_in_the_scratchpad_makes_scratchpad_read_available_now_and_in_the_next_turn(
    owner, planner_model, settings
):
    settings.METNOS_PLAN_MEMORY = False
    workspace = services.workspace_create(owner=owner, name="loop", mode="react")
    session = services.session_create(owner=owner, workspace=workspace)
    services.workspace_path(workspace).joinpath("big.txt").write_text("word " * 3000)
    planner_model.replies.extend(
        [completion('{"tool": "read_files", "args": {"paths": ["big.txt"]}}'), completion('{"final": "It is long."}')]
    )
    turn, _ = say(session, "read big.txt and tell me what it is about")
    assert turn.final_kind == "answer", turn.trace
    assert "scratchpad_read" not in json.dumps(planner_model.requests[0]["json"]["response_format"])
    assert "scratchpad_read" in json.dumps(planner_model.requests[1]["json"]["response_format"])
    assert "scratchpad_id" in planner_model.requests[1]["json"]["messages"][-1]["content"]

    planner_model.replies.append(completion('{"final": "Still long."}'))
    turn, _ = say(session, "now summarise big.txt in one line")
    assert turn.final_kind == "answer", turn.trace
    assert "scratchpad_read" in json.dumps(planner_model.requests[2]["json"]["response_format"]), "the next turn too"
