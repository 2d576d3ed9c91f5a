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


ALL = {"memory_add", "memory_replace", "read_files"}


def test_a_changed_fact_replaces_the_line_of_user_md_that_shares_its_words(tmp_path):
    (tmp_path / ".metnos").mkdir()
    (tmp_path / ".metnos" / "USER.md").write_text("- I love pasta carbonara\n- my dog is called Rex\n")
    plan = plan_for("actually, I don't eat pasta anymore, I'm gluten free now", tools=ALL, workspace=tmp_path)
    step = plan.steps[0]
    assert step.tool == "memory_replace"
    assert step.args == {"file": "user", "old": "I love pasta carbonara",
                         "new": "I don't eat pasta anymore, I'm gluten free now"}  # fmt: skip


def test_a_changed_fact_with_no_line_to_replace_is_added(tmp_path):
    plan = plan_for("non lavoro più da Fastweb, ora sono da Vodafone", tools=ALL, workspace=tmp_path)
    assert (plan.steps[0].tool, plan.steps[0].args["file"]) == ("memory_add", "user")


@pytest.mark.parametrize(
    "text", ["forget that I live in Milan", "forget that", "I'm not sure anymore, what should I do?"]
)
def test_a_fact_to_forget_or_a_doubt_is_not_planned_here(text, tmp_path):
    assert plan_for(text, tools=ALL, workspace=tmp_path) is None
