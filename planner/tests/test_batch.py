"""An action on every file of a kind (planner/batch.py): found, then moved or deleted, with no
model call; anything narrower or wider than that is left to the engine."""

import uuid

import pytest

from planner import batch
from planner.dispatch import run_turn
from planner.turn import TurnInput
from planner.vaglio import guard

TOOLS = {"find_files", "move_files", "delete_files"}


@pytest.fixture
def files(workspace):
    for path in ("meeting-1.md", "meeting-2.md", "a.tmp", "build/b.tmp", "build/c.tmp", "docs/x.pdf", "y.pdf"):
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text(path)
    return workspace


def _steps(text, workspace):
    found = batch.plan_for(text, tools=TOOLS, workspace=workspace)
    return None if found is None else [(s.tool, s.args) for s in found.steps]


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("My workspace root is cluttered. Make a folder called meetings and move every meeting-*.md file into it",
         [("find_files", {"pattern": "meeting-*.md"}), ("move_files", {"from_step": 1, "to": "meetings/"})]),
        ("delete all the *.tmp files in build",
         [("find_files", {"pattern": "*.tmp", "path": "build"}), ("delete_files", {"from_step": 1})]),
        ("cancella tutti i file *.tmp",
         [("find_files", {"pattern": "*.tmp"}), ("delete_files", {"from_step": 1})]),
        # as many files as the request counts, named by a word their names share
        ("move both meetings into archive/",
         [("find_files", {"pattern": "*meeting*"}), ("move_files", {"from_step": 1, "to": "archive/"})]),
        ("sposta i due meeting in archivio/",
         [("find_files", {"pattern": "*meeting*"}), ("move_files", {"from_step": 1, "to": "archivio/"})]),
    ],
)  # fmt: skip
def test_every_file_of_a_kind_is_found_then_acted_on(files, text, steps):
    assert _steps(text, files) == steps


@pytest.mark.parametrize(
    "text",
    [
        "delete all the *.tmp files except a.tmp",  # a modifier narrows which files
        "delete all the *.log files",  # none match
        "move all the *.pdf files into docs",  # one is there already
        "move all the *.tmp files",  # nowhere to go
        "delete the *.tmp files",  # not "all": the engine reads what is meant
        "move all the *.tmp files into build and delete a.tmp",  # two actions
        "delete the three meetings",  # two files hold the name, not three
    ],
)
def test_anything_narrower_or_wider_is_left_to_the_engine(files, text):
    assert _steps(text, files) is None


@pytest.mark.django_db
def test_the_files_move_with_no_model_call(planner_model, files):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    text = "Could you make a folder called meetings and move every meeting-*.md file into it?"
    outcome = run_turn(TurnInput(**ids, text=text, workspace_path=files))
    assert outcome.final_kind == "answer" and outcome.model_calls == 0 and planner_model.requests == []
    assert sorted(p.name for p in (files / "meetings").iterdir()) == ["meeting-1.md", "meeting-2.md"]
    assert not (files / "meeting-1.md").exists()
    assert outcome.text == "Moved 2 items into meetings/."


def test_a_file_of_the_kind_an_acting_verb_names_may_change_and_no_other(files, cat):
    move = cat.executors["move_files"]
    args = {"paths": ["meeting-1.md"], "to": "meetings/"}
    assert guard(move, args, files, "move every meeting-*.md file into meetings/") is None
    assert guard(move, args, files, "sposta tutti i file markdown in meetings/") is None
    assert guard(move, args, files, "summarise the meeting-*.md files into meetings/") is not None
    assert guard(move, {"paths": ["a.tmp"], "to": "meetings/"}, files, "move all the *.md files") is not None


def test_files_counted_by_a_word_their_names_share_may_change(files, cat):
    move = cat.executors["move_files"]
    both = {"paths": ["meeting-1.md", "meeting-2.md"], "to": "archive/"}
    (files / "archive").mkdir()
    assert guard(move, both, files, "crea una cartella archive e mettici dentro i due meeting") is None
    assert guard(move, both, files, "move both meetings into archive/") is None
    assert guard(move, both, files, "read the two meetings and then move y.pdf into archive/") is not None
