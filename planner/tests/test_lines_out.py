"""The lines of a file that hold a word, written to a new file with no model (planner.lines_out)."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.lines_out import plan_for
from planner.turn import TurnInput

pytestmark = pytest.mark.django_db

LOG = (
    "08:01 INFO  Server started\n08:12 ERROR Database connection timeout\n08:15 INFO  Retrying\n"
    "09:30 ERROR Payment gateway returned 502\n"
)
TOOLS = {"write_files"}


@pytest.fixture
def logs(workspace):
    (workspace / "logs").mkdir()
    (workspace / "logs/server.log").write_text(LOG)
    return workspace


def test_the_error_lines_of_the_last_file_go_to_a_new_one(planner_model, logs):
    previous = {"request": "how many lines is the log?", "files": ["logs/server.log"], "plan_is_last": True,
                "plan": {"steps": [{"tool": "read_files", "args": {"paths": ["logs/server.log"]}}]}}  # fmt: skip
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    text = "put just the error lines in logs/errors.log"
    outcome = run_turn(TurnInput(**ids, text=text, workspace_path=logs, previous=previous))
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0), outcome.text
    assert (logs / "logs/errors.log").read_text() == (
        "08:12 ERROR Database connection timeout\n09:30 ERROR Payment gateway returned 502\n"
    )
    assert outcome.text == "Saved the 2 lines with \u201cerror\u201d from logs/server.log to logs/errors.log."
    assert planner_model.requests == []


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("save the lines with INFO from logs/server.log to info.txt",
         "08:01 INFO  Server started\n08:15 INFO  Retrying\n"),
        ("metti le righe con errore di logs/server.log in errori.txt",
         "08:12 ERROR Database connection timeout\n09:30 ERROR Payment gateway returned 502\n"),
    ],
)  # fmt: skip
def test_the_file_named_is_the_source(logs, text, content):
    plan = plan_for(text, tools=TOOLS, workspace=logs, previous={})
    assert plan.steps[0].args["content"] == content


@pytest.mark.parametrize(
    "text",
    [
        "put the warning lines in warnings.txt",  # no file named, and no last turn's file
        "save the lines with DEBUG from logs/server.log to debug.txt",  # no line holds it
        "put the error lines of logs/server.log in logs/server.log",  # not the file itself
    ],
)
def test_no_plan_without_a_file_or_a_line(logs, text):
    assert plan_for(text, tools=TOOLS, workspace=logs, previous={}) is None
