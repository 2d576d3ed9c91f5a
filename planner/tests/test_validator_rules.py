"""The validator's rules about the request itself: a plan never writes where the request names
nothing (invented_target), and never uses a tool that does not serve what was asked (off_intent)."""

import uuid

import pytest

from planner.dispatch import run_turn
from planner.plan import parse
from planner.turn import TurnInput
from planner.validator import validate
from tests.loopback import plan


def problems(cat, text, *steps, workspace=None):
    found = validate(
        parse({"steps": [{"tool": t, "args": a} for t, a in steps]}), cat, request_text=text, workspace=workspace
    )
    return [(p.step, p.error_class) for p in found]


TODO = [{"text": "call mom", "status": "pending"}]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("Write a haiku about autumn.", "hiiuaiyut"),
        ("Write two sentences about the sea.", "1.0.23-4865, 2022-07-29T09:22:32Z"),
        ("Scrivi una frase sul mare.", "todo.txt"),
        ("Scrivi una poesia e salvala", "poesia.txt"),
        ("save a summary of notes/a.md", "summary.md"),
    ],
)
def test_a_write_to_a_path_the_request_never_names_is_an_invented_target(cat, text, path):
    assert problems(cat, text, ("write_files", {"path": path, "content": "x"})) == [(1, "invented_target")]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("save the text 'buy milk' to todo.txt", "todo.txt"),
        ("salva il testo 'compra il latte' in todo.txt", "todo.txt"),
        ("write hello to a file named 'greeting.txt'", "greeting.txt"),
        ("scrivi ciao nel file «saluti.md»", "saluti.md"),
        ("append 'eggs' to shopping", "shopping"),  # a plain word that names a file in the workspace
        ("write a summary of notes/b.md to ./summary.md", "summary.md"),
    ],
)
def test_a_write_to_a_path_the_request_names_passes(cat, workspace, text, path):
    (workspace / "shopping").write_text("milk\n")
    assert problems(cat, text, ("write_files", {"path": path, "content": "x"}), workspace=workspace) == []


def test_a_target_from_an_earlier_step_is_named_only_when_that_step_searched_what_the_request_names(cat):
    tagged = [
        ("find_files", {"pattern": "*.md"}),
        ("write_files", {"path": "${step1.entries.0.path}", "content": "tagged", "append": True}),
    ]
    assert problems(cat, "append 'tagged' to my markdown files", *tagged) == []
    assert problems(cat, "aggiungi 'tagged' ai file markdown", *tagged) == []
    read_then_write = [
        ("read_files", {"paths": ["notes/a.md"]}),
        ("write_files", {"path": "${step1.entries.0.path}", "content": "x"}),
    ]
    assert problems(cat, "write the summary", *read_then_write) == [(2, "invented_target")]
    assert problems(cat, "fix the typo in notes/a.md", *read_then_write) == []


def test_a_target_made_up_at_run_time_is_invented(cat):
    steps = [("get_time", {}), ("write_files", {"path": "log-${RUNTIME:now}.txt", "content": "${step1.time}"})]
    assert problems(cat, "save the time to a file", *steps) == [(2, "invented_target")]


def test_without_the_request_the_request_rules_are_not_checked(cat):
    plan_ = parse({"steps": [{"tool": "write_files", "args": {"path": "hiiuaiyut", "content": "x"}}]})
    assert validate(plan_, cat) == []


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("che ore sono?", [("todo_update", {"items": TODO})]),
        ("che ore sono?", [("read_files", {"paths": ["todo.txt"]})]),
        ("what time is it?", [("list_files", {})]),
        ("what day is it today?", [("grep_files", {"pattern": "day"})]),
        ("do the same for todo.txt and copy.txt", [("todo_update", {"items": TODO})]),
        ("fai lo stesso per todo.txt e copy.txt", [("todo_update", {"items": TODO})]),
        ("Translate 'good morning' into Italian.", [("schedule_recurring", {"name": "x", "prompt": "y",
                                                                            "schedule": "every day at 8"})]),
        ("traduci 'buongiorno' in inglese", [("memory_add", {"text": "buongiorno"})]),
        ("Say hello in five words", [("run_shell", {"command": "echo hello"})]),
        # a file the request names is no reason to delete or move it
        ("read todo.txt", [("delete_files", {"paths": ["todo.txt"]})]),
        ("leggi todo.txt", [("delete_files", {"paths": ["todo.txt"]})]),
        ("show todo.txt and copy.txt", [("move_files", {"paths": ["todo.txt"], "to": "copy.txt"})]),
        ("read the files todo.txt and copy.txt", [("delete_files", {"paths": ["todo.txt"]})]),
        ("open the folder notes/", [("delete_files", {"paths": ["notes/"]})]),
    ],
)  # fmt: skip
def test_a_tool_that_does_not_serve_the_request_is_off_intent(cat, text, steps):
    assert problems(cat, text, *steps) == [(1, "off_intent")]


def test_a_write_with_no_write_verb_and_no_destination_is_both_invented_and_off_intent(cat):
    found = problems(cat, "Say hello in five words", ("write_files", {"path": "hello.txt", "content": "hello"}))
    assert found == [(1, "invented_target"), (1, "off_intent")]


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("what time is it?", [("get_time", {})]),
        ("che ore sono?", [("get_time", {})]),
        ("what time is it in Europe/Rome?", [("get_time", {"tz": "Europe/Rome"})]),
        ("remember that my favourite colour is green", [("memory_add", {"text": "favourite colour: green"})]),
        ("ricorda che il mio colore preferito è il verde", [("memory_add", {"text": "colore preferito: verde"})]),
        ("add 'call mom' to my todo list", [("todo_update", {"items": TODO})]),
        ("aggiungi 'chiama la mamma' alla lista todo", [("todo_update", {"items": TODO})]),
        ("put 'buy milk' in todo.txt", [("write_files", {"path": "todo.txt", "content": "buy milk"})]),
        ("run ls -la", [("run_shell", {"command": "ls -la"})]),
        ("esegui git status", [("run_shell", {"command": "git status"})]),
        ("every morning at 8, summarise new files in inbox/", [("schedule_recurring", {
            "name": "inbox", "prompt": "summarise inbox/", "schedule": "every day at 8"})]),
        ("how many lines are in notes/a.md?", [("read_files", {"paths": ["notes/a.md"]})]),
        ("qual è la somma dei numeri in data.txt?", [("read_files", {"paths": ["data.txt"]})]),
        ("che ore sono? salvale in ora.txt", [("get_time", {}),
                                              ("write_files", {"path": "ora.txt", "content": "${step1.time}"})]),
        ("list my files", [("list_files", {})]),
        ("elenca i file markdown", [("find_files", {"pattern": "*.md"})]),
    ],
)  # fmt: skip
def test_tools_that_serve_the_request_pass(cat, text, steps):
    assert problems(cat, text, *steps) == []


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        ("fix the typo in notes/a.md", "edit_file", {"path": "notes/a.md", "old": "lne", "new": "line"}),
        ("correggi il refuso in notes/b.md", "edit_file", {"path": "notes/b.md", "old": "Ada", "new": "Adam"}),
        ("move notes/a.md into archive/", "move_files", {"paths": ["notes/a.md"], "to": "archive/"}),
        ("move notes/a.md into archive/", "move_files", {"paths": ["notes/a.md"], "to": "archive/a.md"}),
        ("rename data.txt to numbers.txt", "move_files", {"paths": ["data.txt"], "to": "numbers.txt"}),
        ("sposta notes/a.md e notes/b.md nella cartella archivio", "move_files",
         {"paths": ["notes/a.md", "notes/b.md"], "to": "archivio"}),
        ("delete notes/a.md and data.txt", "delete_files", {"paths": ["notes/a.md", "data.txt"]}),
        ("elimina la cartella notes/", "delete_files", {"paths": ["notes"], "recursive": True}),
        ("create a folder called docs", "make_dirs", {"paths": ["docs"]}),
        ("make a folder called done", "make_dirs", {"paths": ["done"]}),  # a common word, said to be its name
        ("crea la cartella progetti", "make_dirs", {"paths": ["progetti"]}),
        ("crea una cartella foto dentro viaggi", "make_dirs", {"paths": ["viaggi/foto"]}),
        ("make the folders src/ and tests/", "make_dirs", {"paths": ["src", "tests/"]}),
        ("create two folders: src and tests", "make_dirs", {"paths": ["src", "tests"]}),
        ("crea le cartelle foto e video", "make_dirs", {"paths": ["foto", "video"]}),
    ],
)  # fmt: skip
def test_the_file_tools_act_on_the_paths_the_request_names(cat, workspace, text, tool, args):
    assert problems(cat, text, (tool, args), workspace=workspace) == []


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        ("fix the typo in notes/a.md", "edit_file", {"path": "notes/b.md", "old": "B", "new": "C"}),
        ("move notes/a.md into archive/", "move_files", {"paths": ["notes/a.md"], "to": "elsewhere/"}),
        ("move notes/a.md into archive/", "move_files", {"paths": ["notes/b.md"], "to": "archive/"}),
        ("move notes/a.md into archive/", "move_files", {"paths": ["notes/a.md"], "to": "archive/b.md"}),
        ("delete notes/a.md", "delete_files", {"paths": ["notes/a.md", "data.txt"]}),
        ("make a new folder", "make_dirs", {"paths": ["stuff"]}),
        ("create a folder inside notes/", "make_dirs", {"paths": ["inside"]}),
    ],
)  # fmt: skip
def test_a_file_tool_that_touches_a_path_the_request_never_names_is_an_invented_target(
    cat, workspace, text, tool, args
):
    assert (1, "invented_target") in problems(cat, text, (tool, args), workspace=workspace)


def test_a_plan_with_an_invented_target_is_reproposed_once_and_never_runs(planner_model, workspace):
    invented = plan(("write_files", {"path": "hiiuaiyut", "content": "line 1"}))
    planner_model.replies.extend([invented, invented])  # the path names read_files for sure: no intent call
    outcome = run_turn(TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1,
                                 text="copy notes/a.md", workspace_path=workspace))  # fmt: skip
    assert not (workspace / "hiiuaiyut").exists(), "a rejected plan never runs"
    assert outcome.layer == "terminator" and outcome.model_calls == 2, (outcome.layer, outcome.trace)
    assert "invented_target" in str(outcome.trace["attempts"][0]["validation"])
    assert "invented_target" in planner_model.requests[1]["json"]["messages"][0]["content"], "the model is told why"


def test_a_bare_new_name_beside_the_file_renamed_is_named(cat):
    step = ("move_files", {"paths": ["docs/casa.md"], "to": "docs/lavori.md"})
    assert problems(cat, "rinomina docs/casa.md in lavori.md, stessa cartella", step) == []
    assert problems(cat, "rename docs/casa.md to lavori.md", step) == []
    assert (1, "invented_target") in problems(cat, "rename notes.md to lavori.md", step)  # another folder
