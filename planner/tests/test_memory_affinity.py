"""The validator's off_intent rule agrees with plan memory's canonical form: a request whose
canonical form names an operation («segnati che …» remembers, «tutti i giorni alle 9 …»
schedules, "list the python scripts" finds *.py) may run that operation's tools, so that memory
does not serve a plan at stage 1 only to have it refused. Near misses stay refused: the canonical
operation opens its own tools, never a write or a delete the request did not ask for."""

import pytest

from planner.plan import parse
from planner.validator import Request, validate


def problems(cat, text, *steps, workspace=None):
    found = validate(
        parse({"steps": [{"tool": t, "args": a} for t, a in steps]}), cat, request_text=text, workspace=workspace
    )
    return [(p.step, p.error_class) for p in found]


SCHEDULE = {"name": "backup", "prompt": "run 'backup'", "schedule": "every day at 09:00"}


@pytest.mark.parametrize(
    "text",
    [
        "segnati che il dentista è martedì",
        "prendi nota che la password del wifi è gatto",
        "note that my doctor is Dr Smith",
        "make a note that the server is down",
        "take note that my cat is called Tom",
        "bear in mind that I am vegetarian",
        "non scordarti che il mio gatto si chiama Fufi",
    ],
)
def test_a_fact_to_remember_in_other_words_may_be_remembered(cat, text):
    assert problems(cat, text, ("memory_add", {"text": "x"})) == []


@pytest.mark.parametrize(
    "text",
    [
        "tutti i giorni alle 09:00 esegui 'backup'",
        "quotidianamente alle 09:00 esegui 'backup'",
        "every day at 09:00 run 'backup'",
        "daily at 09:00 run 'backup'",
        "tutte le mattine alle 7 controlla la posta",
    ],
)
def test_a_schedule_in_other_words_may_be_scheduled(cat, text):
    assert problems(cat, text, ("schedule_recurring", SCHEDULE)) == []


@pytest.mark.parametrize("text", ["list the python scripts", "show me the python scripts", "elenca gli script python"])
def test_files_of_a_kind_named_as_scripts_may_be_found(cat, text):
    assert problems(cat, text, ("find_files", {"pattern": "*.py"})) == []


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        # a fact to remember is not a file to write, nor a schedule
        ("segnati che il dentista è martedì", [("schedule_recurring", SCHEDULE)]),
        ("prendi nota che il wifi è gatto", [("run_shell", {"command": "echo gatto"})]),
        # a schedule is not a fact to remember, nor a deletion
        ("tutti i giorni alle 09:00 esegui 'backup'", [("memory_add", {"text": "backup"})]),
        ("quotidianamente alle 8 leggi le note", [("run_shell", {"command": "rm -rf notes"})]),
        # finding files of a kind is not running them, nor remembering them
        ("list the python scripts", [("schedule_recurring", SCHEDULE)]),
        ("elenca gli script python", [("memory_add", {"text": "*.py"})]),
        # a typed value asks for nothing: a file called ricorda.txt is only read
        ("leggi 'ricorda.txt'", [("memory_add", {"text": "x"})]),
        ("read 'every-day.txt'", [("schedule_recurring", SCHEDULE)]),
        # the existing near misses
        ("traduci 'buongiorno' in inglese", [("memory_add", {"text": "buongiorno"})]),
        ("Translate 'good morning' into Italian.", [("schedule_recurring", SCHEDULE)]),
    ],
)
def test_a_tool_the_canonical_form_does_not_ask_for_stays_off_intent(cat, text, steps):
    assert problems(cat, text, *steps) == [(1, "off_intent")]


def test_a_fact_to_remember_written_to_a_file_stays_invented_and_off_intent(cat):
    found = problems(cat, "segnati che il dentista è martedì", ("write_files", {"path": "MEMORY.md", "content": "x"}))
    assert found == [(1, "invented_target"), (1, "off_intent")]


def test_the_operations_come_from_the_canonical_form():
    assert Request.of("segnati che il dentista è martedì").operations == {"memory_add"}
    assert "schedule_recurring" in Request.of("quotidianamente alle 8 esegui 'backup'").operations
    assert Request.of("list the python scripts").operations == {"find", "grep"}
    assert Request.of("che ore sono?").operations == frozenset()


def test_a_changed_fact_of_the_persons_asks_for_the_memory():
    assert "memory_replace" in Request.of("I don't eat pasta anymore, I'm gluten free now").operations
