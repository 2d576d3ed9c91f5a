"""Words to write and keep (planner/compose.py): "write a haiku and save it to poems/a.txt" is
one direct model call for the words and a write_files plan for the file, with the model never
planning the file; anything else is left to the other layers."""

import uuid

import pytest

from planner import compose
from planner.dispatch import run_turn
from planner.tests.test_direct import streamed
from planner.turn import Sink, TurnInput


@pytest.mark.parametrize(
    ("text", "words", "path"),
    [
        ("write a haiku about autumn and save it to poems/autumn.txt", "write a haiku about autumn",
         "poems/autumn.txt"),
        ("scrivimi una poesia sul mare e salvala in poesie/mare.txt", "scrivimi una poesia sul mare",
         "poesie/mare.txt"),
        ("write a limerick about cats, then save it in the file limerick.md", "write a limerick about cats",
         "limerick.md"),
        ("mi scrivi una mail al capo per chiedere ferie e la salvi in bozze/ferie.txt?",
         "mi scrivi una mail al capo per chiedere ferie", "bozze/ferie.txt"),
        ("Make me a packing list and save it as travel/lisbon.md. Put a heading with 'Lisbon' at the top",
         "Make me a packing list. Put a heading with 'Lisbon' at the top", "travel/lisbon.md"),
        # a piece of writing, named by its kind, into a file
        ("write a one-line birthday message for her into cards/sister.txt and sign it Tom",
         "write a one-line birthday message for her and sign it Tom", "cards/sister.txt"),
        ("scrivi una poesia sul mare nel file poesie/mare.txt", "scrivi una poesia sul mare", "poesie/mare.txt"),
        # the keeping as a sentence of its own
        ("Mi scriveresti una breve email alla dott.ssa Conti per un giorno di ferie? Salvala in bozze/ferie.txt",
         "Mi scriveresti una breve email alla dott.ssa Conti per un giorno di ferie", "bozze/ferie.txt"),
        ("Write a haiku about rain. Save it to poems/rain.txt", "Write a haiku about rain", "poems/rain.txt"),
    ],
)  # fmt: skip
def test_words_and_the_file_to_keep_them_in_are_told_apart(text, words, path):
    assert compose.split(text, None) == (words, path)


@pytest.mark.parametrize(
    "text",
    [
        "write a poem and save it",  # where?
        "save 'buy milk' to todo.txt",  # nothing to write in words
        "write a story and put it in ../outside.txt",  # outside the workspace
        "write a story and save it to /etc/motd.txt",
        "write a story and save it to the drafts folder",  # not a file
        "write hello world to a.txt",  # the text itself, not a kind of writing
        "run sleep 30 and then write late.txt",  # no piece of writing asked for
        "write a list of the files into files.txt",  # about the workspace: not the model's to invent
        "write a summary of notes.md into summary.md",
        "Read a.md. Save it to b.md",  # nothing to write in words
    ],
)
def test_anything_else_is_not_split(text):
    assert compose.split(text, None) is None


@pytest.mark.django_db
def test_the_model_writes_the_words_and_a_plan_keeps_them(planner_model, workspace):
    planner_model.replies.append(streamed("Red leaves drift down,\n", "the old pond waits.\n"))
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    deltas = []
    text = "write a haiku about autumn and save it to poems/autumn.txt"
    inp = TurnInput(**ids, text=text, workspace_path=workspace, model="scripted")
    outcome = run_turn(inp, Sink(on_delta=deltas.append))
    assert outcome.final_kind == "answer" and outcome.model_calls == 1 and len(planner_model.requests) == 1
    assert (workspace / "poems" / "autumn.txt").read_text() == "Red leaves drift down,\nthe old pond waits.\n"
    assert outcome.text.startswith("Red leaves drift down,") and "poems/autumn.txt" in outcome.text
    assert [s["tool"] for s in outcome.trace["memory_steps"]] == ["write_files"]
    assert "".join(deltas).split() == outcome.text.split(), "the words stream once, then where they went"
    sent = planner_model.requests[0]["json"]["messages"][-1]["content"]
    assert "save it" not in str(sent) and "haiku" in str(sent), "the model sees the words to write, not the file"


@pytest.mark.django_db
def test_a_request_to_read_and_save_is_the_engines(planner_model, workspace):
    (workspace / "a.md").write_text("hello\n")
    assert compose.split("read a.md and save it to b.md", workspace) is None  # no piece of writing asked for
    assert compose.split("write a note about a.md and save it to b.md", workspace) is not None
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    inp = TurnInput(**ids, text="write a note about a.md and save it to b.md", workspace_path=workspace)
    from planner.catalog import catalog

    assert compose.run(inp, catalog(), Sink(), ids) is None
