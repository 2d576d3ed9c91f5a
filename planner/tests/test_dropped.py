"""Something the user no longer needs, and a pronoun to act on it (planner.dropped): the request
is read as the deletion of that one thing, typed; a bare folder name is the one folder so named."""

import uuid

import pytest

from planner import dropped, named_file
from planner.dispatch import run_turn
from planner.turn import TurnInput


@pytest.fixture
def workspace(tmp_path):
    for folder in ("progetti/orto/foto", "progetti/orto/appunti", "a/copie", "b/copie"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "report.pdf").write_bytes(b"%PDF")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("anzi la cartella foto non mi serve, toglila", "elimina la cartella progetti/orto/foto/"),
        ("I don't need the foto folder anymore, delete it", "delete the folder progetti/orto/foto/"),
        ("the foto folder is obsolete, remove it", "delete the folder progetti/orto/foto/"),
        ("report.pdf non mi serve più, cancellalo pure", "elimina report.pdf"),
    ],
)
def test_a_thing_not_needed_and_a_pronoun_is_its_deletion(workspace, text, expected):
    assert dropped.rewrite(text, workspace)[0] == expected
    assert named_file.resolve(text, {}, workspace).text == expected


@pytest.mark.django_db
def test_a_folder_not_needed_goes_with_what_it_holds(planner_model, workspace):
    (workspace / "progetti" / "orto" / "foto" / "a.jpg").write_bytes(b"jpg")
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    text = "anzi la cartella foto non mi serve, toglila"
    outcome = run_turn(TurnInput(**ids, text=text, workspace_path=workspace))
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0), outcome.text
    assert not (workspace / "progetti" / "orto" / "foto").exists() and (workspace / "progetti" / "orto").is_dir()


@pytest.mark.parametrize(
    "text",
    [
        "la cartella copie non mi serve, toglila",  # two folders so named: which one is not said
        "la cartella musica non mi serve, toglila",  # none
        "mi serve la cartella foto",  # needed, not dropped
        "la cartella foto non mi serve",  # nothing asked
        "missing.pdf is obsolete, remove it",  # no such file
    ],
)
def test_nothing_is_deleted_on_a_guess(workspace, text):
    assert dropped.rewrite(text, workspace) is None
