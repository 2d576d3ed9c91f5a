"""Today's date or the time written into a file (planner/dated.py): get_time then write_files,
with no model call; anything more is left to the engine."""

import datetime

import pytest

from planner.dated import plan_for
from planner.tests.test_engine import turn

TOOLS = {"get_time", "write_files"}


@pytest.mark.parametrize(
    ("text", "path", "content", "append"),
    [
        ("bene, crea diario/oggi.txt e scrivici dentro la data di oggi", "diario/oggi.txt", "${step1.date}\n", False),
        ("add today's date to data.txt", "data.txt", "${step1.date}\n", True),  # there: a line at its end
        ("write the current time in ora.txt", "ora.txt", "${step1.time}\n", False),
        ("scrivi la data e l'ora in log.txt", "log.txt", "${step1.date} ${step1.time}\n", False),
        ("ok, add a line to maintenance.log saying 'backup done' with today's date in front", "maintenance.log",
         "${step1.date} backup done\n", False),
    ],
)  # fmt: skip
def test_the_clock_then_the_file(workspace, text, path, content, append):
    plan = plan_for(text, tools=TOOLS, workspace=workspace)
    assert [s.tool for s in plan.steps] == ["get_time", "write_files"]
    assert plan.steps[1].args == {"path": path, "content": content, **({"append": True} if append else {})}


@pytest.mark.parametrize(
    "text",
    [
        "what is today's date?",  # nothing to write
        "write a poem about today's date in poem.txt",  # more than the date
        "add today's date to notes/a.md and notes/b.md",  # two files
        "write the date in the notes folder",  # not a file
    ],
)
def test_anything_more_is_left_to_the_engine(workspace, text):
    assert plan_for(text, tools=TOOLS, workspace=workspace) is None
    assert plan_for("add today's date to data.txt", tools={"write_files"}, workspace=workspace) is None


def test_the_date_is_written_with_no_model_call(planner_model, workspace):
    outcome, _ = turn(workspace, "crea diario/oggi.txt e scrivici dentro la data di oggi")
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    assert (outcome.final_kind, outcome.model_calls) == ("answer", 0), outcome.trace
    assert (workspace / "diario" / "oggi.txt").read_text() == f"{today}\n"
    assert today in outcome.text and "diario/oggi.txt" in outcome.text
