"""A setting turned on or off in words (planner/switches.py), in a request that names the file and
as a follow-up on the last turn's file, with no model."""

from pathlib import Path

import pytest

from planner import edits, followup, switches

ENV = "APP_NAME=inventory\nPORT=9090\nDEBUG=true\n"


@pytest.mark.parametrize(
    ("said", "content", "old", "new"),
    [
        ("and turn debug off", ENV, "DEBUG=true", "DEBUG=false"),
        ("disattiva il debug", ENV, "DEBUG=true", "DEBUG=false"),
        ("switch off the cache", "server:\n  cache: On\n", "  cache: On", "  cache: Off"),
        ("turn verbose on", "verbose = no\n", "verbose = no", "verbose = yes"),
        ("abilita la cache", '{\n  "cache": false,\n}\n', '  "cache": false,', '  "cache": true,'),
    ],
)
def test_a_switch_takes_its_opposite_as_the_file_writes_it(said, content, old, new):
    assert switches.change(said, content, "")[:2] == (old, new)


@pytest.mark.parametrize(
    ("said", "content"),
    [
        ("enable debug", ENV),  # already on
        ("turn the port off", ENV),  # not a switch
        ("disable logging", ENV),  # no such key
        ("turn it off", ENV),  # "it" with nothing asked before
    ],
)
def test_no_edit_where_there_is_no_switch_to_turn(said, content):
    assert switches.change(said, content, "") is None


def test_it_is_the_key_the_last_request_asked_about():
    assert switches.change("turn it off", ENV, "is debug on in config/app.env?")[:2] == ("DEBUG=true", "DEBUG=false")
    assert switches.change("spegnilo", ENV, "il debug è attivo?")[1] == "DEBUG=false"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "app.env").write_text(ENV)
    return tmp_path


def test_a_follow_up_turns_a_switch_of_the_last_file(config):
    previous = {"request": "change it to 9090", "files": ["config/app.env"]}
    found = followup.resolve("and turn debug off while you're at it", previous, config)
    assert found.plan.steps[0].tool == "edit_file"
    assert found.plan.steps[0].args == {"path": "config/app.env", "old": "DEBUG=true", "new": "DEBUG=false"}


def test_a_request_that_names_the_file_is_an_edit(config):
    plan = edits.plan_for("turn debug off in config/app.env", tools={"edit_file", "read_files"}, workspace=config)
    assert plan.steps[0].args == {"path": "config/app.env", "old": "DEBUG=true", "new": "DEBUG=false"}
