"""A new file's text typed without quotes needs no model (planner.new_text): "create a file
shopping.txt with eggs, milk and bread" writes the three items a line; a text that is not plainly
literal is left to the other layers."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.new_text import plan_for
from planner.turn import TurnInput

pytestmark = pytest.mark.django_db

TOOLS = {"write_files", "read_files"}


def turn(text, workspace, previous=None):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    return run_turn(TurnInput(**ids, text=text, workspace_path=workspace, previous=previous or {}))


@pytest.mark.parametrize(
    ("text", "path", "content"),
    [
        ("create a file shopping.txt with eggs, milk and bread", "shopping.txt", "eggs\nmilk\nbread\n"),
        ("create shopping.txt containing eggs, milk and bread", "shopping.txt", "eggs\nmilk\nbread\n"),
        ("make a file called notes.txt with the text remember the keys", "notes.txt", "remember the keys"),
        ("crea un file spesa.txt con uova, latte e pane", "spesa.txt", "uova\nlatte\npane\n"),
        ("crea il file todo.md con dentro comprare il pane", "todo.md", "comprare il pane"),
        ("write hello world to hello.txt", "hello.txt", "hello world"),
        ("scrivi ciao mondo in notes/saluto.txt", "notes/saluto.txt", "ciao mondo"),
    ],
)
def test_a_new_file_with_its_text_unquoted(planner_model, workspace, text, path, content):
    outcome = turn(text, workspace)
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0), outcome.text
    assert (workspace / path).read_text() == content
    assert planner_model.requests == []


@pytest.mark.parametrize(
    "text",
    [
        "create a file report.txt with a summary of notes/a.md",  # something to work out, from a file
        "create a file today.txt with today's date",
        "write a poem to poem.txt",  # a piece of writing, not its words
        "crea un file copia.txt con il contenuto di data.txt",
        "create a file out.txt with eggs and then read it",  # another action after
        "create a file notes with eggs",  # not a file name
        "create a file shopping.txt with 'eggs, milk'",  # quoted: the cold path's
    ],
)
def test_a_text_that_is_not_plainly_literal_is_left_to_the_other_layers(workspace, text):
    assert plan_for(text, tools=TOOLS, workspace=workspace) is None


def test_a_folder_is_not_a_file_to_write(workspace):
    assert plan_for("write hello to notes", tools=TOOLS, workspace=workspace) is None


def test_the_list_it_made_takes_an_item_and_counts_its_lines(planner_model, workspace):
    first = turn("create a file shopping.txt with eggs, milk and bread", workspace)
    previous = {"request": "create a file shopping.txt with eggs, milk and bread", "answer": first.text,
                **first.trace["facts"], "plan_is_last": True}  # fmt: skip
    added = turn("add butter to it", workspace, previous)
    assert (added.layer, added.model_calls) == ("followup", 0)
    assert (workspace / "shopping.txt").read_text() == "eggs\nmilk\nbread\nbutter\n"


@pytest.mark.parametrize(
    "text",
    [
        "put just the error lines in logs/errors.log",
        "write the error lines to errors.log",
        "metti i totali in somma.txt",
    ],
)
def test_a_text_described_rather_than_given_is_not_written_as_said(workspace, text):
    assert plan_for(text, tools=TOOLS, workspace=workspace) is None
