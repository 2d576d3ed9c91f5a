"""A fact to remember becomes memory_add's plan with no model call."""

import pytest

from planner.facts import plan_for

TOOLS = {"memory_add", "read_files"}


@pytest.mark.parametrize(
    ("text", "fact", "file"),
    [
        ("remember that my favourite colour is green", "my favourite colour is green", "user"),
        ("Please remember that the server restarts at 3am.", "the server restarts at 3am", "memory"),
        ("ricordati che sono vegetariano", "sono vegetariano", "user"),
        ("ricorda che il backup gira di notte", "il backup gira di notte", "memory"),
    ],
)
def test_a_fact_to_remember_is_planned_as_memory_add(text, fact, file):
    plan = plan_for(text, tools=TOOLS)
    assert plan is not None
    assert (plan.steps[0].tool, plan.steps[0].args) == ("memory_add", {"text": fact, "file": file})


@pytest.mark.parametrize(
    "text", ["remember the milk", "what do you remember about me?", "write that down", "remember that"]
)
def test_anything_else_is_left_to_the_proposer(text):
    assert plan_for(text, tools=TOOLS) is None


def test_nothing_is_planned_when_memory_add_is_not_offered():
    assert plan_for("remember that my cat is Tom", tools={"read_files"}) is None
