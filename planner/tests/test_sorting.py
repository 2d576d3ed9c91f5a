"""A list put in order as an edit (planner.sorting), on the file named or the last turn's file."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.sorting import change
from planner.turn import TurnInput

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("said", "content", "sorted_"),
    [
        ("sort it alphabetically", "milk\neggs\nbread\n", "bread\neggs\nmilk\n"),
        ("ordinala dalla z alla a", "milk\neggs\nbread\n", "milk\neggs\nbread\n"),
        ("sort it from z to a", "eggs\nmilk\nbread\n", "milk\neggs\nbread\n"),
        (
            "sort the list",
            "# Spesa\n\n- pane\n- Burro\n- latte\n\nnote\n",
            "# Spesa\n\n- Burro\n- latte\n- pane\n\nnote\n",
        ),
        ("ordina le righe", "10\n9\n100\n", "9\n10\n100\n"),
    ],
)
def test_a_list_in_order(said, content, sorted_):
    found = change(said, content)
    if sorted_ == content:
        assert found is None  # already in that order: no edit
        return
    old, new, _ = found
    assert content.replace(old, new) == sorted_


@pytest.mark.parametrize(
    ("said", "content"),
    [
        ("sort it", "1. b\n2. a\n"),  # numbered: the numbers would lie
        ("sort it", "A long paragraph of prose.\n"),
        ("sort out the mess in it", "b\na\n"),
        ("sort it", "# Title\nb\na\n"),
    ],
)
def test_what_is_not_a_list_to_sort(said, content):
    assert change(said, content) is None


def turn(text, workspace, previous=None):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    return run_turn(TurnInput(**ids, text=text, workspace_path=workspace, previous=previous or {}))


def test_the_file_named_and_the_last_file_are_sorted_with_no_model(planner_model, workspace):
    (workspace / "spesa.txt").write_text("uova\nlatte\npane\n")
    named = turn("ordina spesa.txt in ordine alfabetico", workspace)
    assert (named.final_kind, named.model_calls) == ("answer", 0), named.text
    assert (workspace / "spesa.txt").read_text() == "latte\npane\nuova\n"
    previous = {"request": "ordina spesa.txt", "answer": named.text, **named.trace["facts"], "plan_is_last": True}
    again = turn("now sort it from z to a", workspace, previous)
    assert (again.layer, again.model_calls) == ("followup", 0), again.text
    assert (workspace / "spesa.txt").read_text() == "uova\npane\nlatte\n"
    assert planner_model.requests == []
