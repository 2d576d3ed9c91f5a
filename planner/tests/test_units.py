"""A number in one unit, in another, computed with no model call (planner/units.py)."""

import uuid

import pytest

from planner import units
from planner.dispatch import run_turn
from planner.turn import TurnInput


@pytest.mark.parametrize(
    ("text", "expression", "said"),
    [
        ("convert 5 miles to km", "round(5 * 1609.344 / 1000.0, 2)", "5 miles = ${step1.value} km"),
        ("quanti km sono 26 miglia?", "round(26 * 1609.344 / 1000.0, 2)", "26 miglia = ${step1.value} km"),
        ("100 °F in celsius", "round((100 - 32) * 5 / 9, 2)", "100 °F = ${step1.value} celsius"),
        ("converti 3 litri in galloni", "round(3 * 1.0 / 3.785411784, 2)", "3 litri = ${step1.value} galloni"),
    ],
)
def test_a_conversion_is_computed_with_the_factor_written_out(text, expression, said):
    plan = units.plan_for(text, tools={"compute"})
    assert (plan.steps[0].args["expression"], plan.final_message) == (expression, said)


@pytest.mark.parametrize("text", ["convert 5 apples to km", "is 5 km far?", "convert 5 kg to km", "5 km to km"])
def test_anything_else_is_not_a_conversion(text):
    assert units.plan_for(text, tools={"compute"}) is None


@pytest.mark.django_db
def test_a_conversion_is_answered_with_no_model_call(planner_model, workspace):
    text = "how many pounds is 70 kg?"
    outcome = run_turn(TurnInput(str(uuid.uuid4()), str(uuid.uuid4()), user_id=1, text=text, workspace_path=workspace))
    assert (outcome.final_kind, outcome.model_calls, outcome.text) == ("answer", 0, "70 kg = 154.32 pounds")
