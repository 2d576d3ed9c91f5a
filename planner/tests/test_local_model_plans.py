"""Real runs with the shipped GGUF (SmolLM2-135M) planning three workspace tasks.

The model is tiny: under schema-constrained decoding it writes JSON, but rarely a sensible plan.
What must hold whatever it writes: the outcome is checked on the workspace, and a task the model
cannot plan ends honestly (the terminator, with a cause and a suggestion), never with a wrong
action: nothing is written where it was not asked, nothing outside the workspace is touched."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.turn import TurnInput

pytestmark = [pytest.mark.live, pytest.mark.django_db]


def snapshot(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def run(workspace, text):
    return run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, text=text, workspace_path=workspace
        )
    )


def assert_honest_or_done(outcome, done: bool):
    assert outcome.final_kind in ("answer", "needs_inputs", "error", "cap_steps", "cap_same_executor")
    if not done:
        assert outcome.layer in ("terminator", "engine", "recovery")
        if outcome.layer == "terminator":
            assert outcome.text.startswith("I could not do this") and outcome.trace["terminator"]["suggestion"]


def test_read_a_file_and_report_its_last_lines(local_model, workspace):
    outside = snapshot(workspace.parent)
    outcome = run(workspace, "read notes/a.md and tell me its last 2 lines")
    assert snapshot(workspace.parent) == outside, "reading writes nothing, anywhere"
    assert_honest_or_done(outcome, done="line 4" in outcome.text)
    assert outcome.model_calls <= 3


def test_find_files_matching_a_pattern_and_count_them(local_model, workspace):
    outside = snapshot(workspace.parent)
    outcome = run(workspace, "find the .md files and count them")
    assert snapshot(workspace.parent) == outside
    assert_honest_or_done(outcome, done="2" in outcome.text and outcome.layer in ("engine", "recovery"))


def test_write_a_summary_file(local_model, workspace):
    before = snapshot(workspace.parent)
    outcome = run(workspace, "write a summary of notes/b.md to summary.md")
    after = snapshot(workspace.parent)
    changed = {path for path in after if before.get(path) != after[path]}
    # Whatever the model planned, the only file that may appear is the one asked for.
    assert changed <= {"ws/summary.md"}, changed
    assert_honest_or_done(outcome, done="ws/summary.md" in changed)
