"""An item of a checklist in a file ticked off (planner.checklist, through planner.edits)."""

import pytest

from planner import edits

TODO = (
    "# Todo\n- [ ] chiamare il dentista\n- [ ] pagare bolletta luce\n- [x] rinnovare passaporto\n- [ ] call the bank\n"
)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "todo.md").write_text(TODO)
    return tmp_path


def _ticked(text, files):
    found = edits.plan_for(text, tools={"edit_file", "write_files"}, workspace=files)
    return None if found is None else (found.steps[0].args["old"], found.steps[0].args["new"])


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("nel todo.md segnami come fatto il dentista", "- [ ] chiamare il dentista"),
        ("mark 'call the bank' as done in todo.md", "- [ ] call the bank"),
        ("spunta la bolletta in todo.md", "- [ ] pagare bolletta luce"),
    ],
)
def test_the_one_item_the_words_name_is_ticked(files, text, line):
    assert _ticked(text, files) == (line, line.replace("[ ]", "[x]"))


@pytest.mark.parametrize(
    "text",
    [
        "mark the passport as done in todo.md",  # ticked already: no unticked item holds it
        "mark it as done in todo.md",  # no item named
        "read todo.md",
    ],
)
def test_nothing_is_ticked_without_one_unticked_item_named(files, text):
    assert _ticked(text, files) is None


def test_after_a_tick_another_item_follows_up(files):
    previous = {"files": ["todo.md"], "request": "nel todo.md segnami come fatto il dentista"}
    _, plan = edits.on_last_file("pure quello della bolletta", previous, files)
    assert plan.steps[0].args["new"] == "- [x] pagare bolletta luce"
    assert plan.final_message == "Segnato \u201cpagare bolletta luce\u201d come fatto in ${step1.path}."


def test_two_items_named_at_once_are_ticked_together(files):
    old, new = _ticked("nel todo.md segna come fatti il dentista e la bolletta", files)
    assert old == "- [ ] chiamare il dentista\n- [ ] pagare bolletta luce"
    assert new == "- [x] chiamare il dentista\n- [x] pagare bolletta luce"


def test_an_item_by_its_place_and_with_the_verbs_pronoun_last(files):
    previous = {"request": "leggi todo.md", "files": ["todo.md"], "plan_is_last": True}
    _, plan = edits.on_last_file("the second one is paid, remove it", previous, files)
    assert plan.steps[0].args == {"path": "todo.md", "old": "- [ ] pagare bolletta luce\n", "new": ""}
    _, plan = edits.on_last_file("il dentista non serve più, toglilo", previous, files)
    assert plan.steps[0].args["old"] == "- [ ] chiamare il dentista\n"
