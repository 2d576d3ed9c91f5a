"""A new file, a copy or a move whose place is said in words, after an earlier turn, with no model
call: «dentro appunti mettici un file semina.md con scritto "…"» (the one nested folder so named),
«fanne anche una copia in una cartella candidature» (the file the last turn was on), «la finale
spostala in una cartella nuova, definitivi» (the entry of the last listing)."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.turn import TurnInput

pytestmark = pytest.mark.django_db


@pytest.fixture
def files(workspace):
    for folder in ("progetti/orto/foto", "progetti/orto/appunti", "documenti", "bozze"):
        (workspace / folder).mkdir(parents=True, exist_ok=True)
    (workspace / "documenti/cv_mario_2024.txt").write_text("cv")
    (workspace / "bozze/lettera_finale.txt").write_text("finale")
    (workspace / "bozze/lettera_v2.txt").write_text("v2")
    return workspace


def turn(text, files, previous):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    return run_turn(TurnInput(**ids, text=text, workspace_path=files, previous=previous))


def test_a_new_file_put_in_a_nested_folder_named_in_words(planner_model, files):
    made = ["progetti/orto", "progetti/orto/foto", "progetti/orto/appunti"]
    previous = {"request": "creami una cartella progetti/orto con dentro foto e appunti", "files": made,
                "plan": {"steps": [{"tool": "make_dirs", "args": {"paths": made}}]}}  # fmt: skip
    outcome = turn('dentro appunti mettici un file semina.md con scritto "pomodori a marzo"', files, previous)
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0)
    assert (files / "progetti/orto/appunti/semina.md").read_text() == "pomodori a marzo"
    assert planner_model.requests == []


def test_a_copy_of_the_last_file_in_a_new_folder(planner_model, files):
    previous = {"request": "rinomina documenti/cv.txt in documenti/cv_mario_2024.txt",
                "files": ["documenti/cv_mario_2024.txt"],
                "plan": {"steps": [{"tool": "move_files", "args": {"paths": ["documenti/cv.txt"],
                                                                   "to": "documenti/cv_mario_2024.txt"}}]}}  # fmt: skip
    outcome = turn("fanne anche una copia in una cartella candidature", files, previous)
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0)
    assert (files / "candidature/cv_mario_2024.txt").read_text() == "cv"
    assert (files / "documenti/cv_mario_2024.txt").read_text() == "cv"


def test_an_entry_of_the_last_listing_moved_into_a_new_folder_named_after_a_comma(planner_model, files):
    previous = {"request": "quanti file ci sono nella cartella bozze?", "files": ["bozze"],
                "listing": ["bozze/lettera_finale.txt", "bozze/lettera_v2.txt"],
                "plan": {"steps": [{"tool": "list_files", "args": {"path": "bozze"}}]}}  # fmt: skip
    outcome = turn("ok allora la finale spostala in una cartella nuova, definitivi", files, previous)
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0)
    assert (files / "definitivi/lettera_finale.txt").read_text() == "finale"
    assert not (files / "bozze/lettera_finale.txt").exists() and (files / "bozze/lettera_v2.txt").exists()
