"""A recipe's quantities for another number of people, as a follow-up with no model
(planner/servings.py)."""

from pathlib import Path

import pytest

from planner import followup, servings

LASAGNE = (
    "Lasagne alla bolognese (4 persone)\n\nIngredienti:\n- 250 g sfoglia per lasagne\n- 400 g macinato misto\n"
    "- 80 g parmigiano grattugiato\n- 3 uova\n\nCuocere in forno a 180 gradi per 40 minuti.\n"
)
PANCAKES = "# Pancakes\nServes 2\n- 200g flour\n- 300 ml milk\n- 1 egg\n"


@pytest.fixture
def recipes(tmp_path: Path) -> Path:
    (tmp_path / "lasagne.txt").write_text(LASAGNE)
    (tmp_path / "pancakes.md").write_text(PANCAKES)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "path", "said"),
    [
        ("e se siamo in 6 quanto macinato serve?", "lasagne.txt", "Per 6 persone: 600 g macinato misto."),
        ("quante uova servono per 6 persone?", "lasagne.txt", "Per 6 persone: 4,5 uova."),
        ("how much flour for 5 people?", "pancakes.md", "For 5 people: 500g flour."),
        ("and for 4, how much milk?", "pancakes.md", "For 4 people: 600 ml milk."),
    ],
)
def test_an_ingredient_is_scaled_to_the_people_asked_for(recipes, text, path, said):
    assert servings.answer(text, {"files": [path]}, recipes) == (said, path)


def test_the_next_ingredient_keeps_the_number_of_people(recipes):
    previous = {"request": "e se siamo in 6 quanto macinato serve?", "files": ["lasagne.txt"]}
    found = followup.resolve("e di parmigiano?", previous, recipes)
    assert (found.plan, found.answer) == (None, "Per 6 persone: 120 g parmigiano grattugiato.")


@pytest.mark.parametrize(
    ("text", "previous"),
    [
        ("e se siamo in 6 quanto zafferano serve?", {"files": ["lasagne.txt"]}),  # no such ingredient
        ("quanto macinato serve?", {"files": ["lasagne.txt"]}),  # no number of people
        ("how much flour for 5 people?", {"files": ["lasagne.txt", "pancakes.md"]}),  # which recipe?
        ("e di parmigiano?", {"request": "leggi lasagne.txt", "files": ["lasagne.txt"]}),  # nothing scaled before
    ],
)
def test_no_answer_where_it_is_not_sure(recipes, text, previous):
    assert servings.answer(text, previous, recipes) is None


def test_a_number_of_other_things_is_not_people(recipes):
    assert servings.answer("how much flour do I need for 2 cakes?", {"files": ["pancakes.md"]}, recipes) is None
    assert servings.answer("quanta farina serve in 2 ore?", {"files": ["lasagne.txt"]}, recipes) is None
