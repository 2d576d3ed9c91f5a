"""The canonical form, eighth round (from the blind development sets plan_memory_dev4 and dev5): a
word searched for written bare, as code is, is the text searched for, as a quoted one is; more
cities are time zones; more ways to say a search ignores capitals, or asks where a word shows up."""

from pathlib import Path

import pytest

from planner import canonical, memory, spoken_values
from planner.catalog import catalog
from planner.memory import autopath, fastpath
from planner.memory.probe import Probe

pytestmark = pytest.mark.django_db


@pytest.fixture
def places(tmp_path: Path) -> Path:
    for folder in ("src", "lib", "logs", "var/log"):
        (tmp_path / folder).mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        ("search for 'TODO' in src", "search for FIXME in lib"),
        ("cerca 'TODO' in src ma fermati dopo 20 risultati", "cerca FIXME in lib, al massimo 4 risultati"),
        ("search for 'Error' in logs, case-sensitive", "case sensitive search: WARN in var/log"),
        ("grep 'user_id' in src", "grep `order_total` in lib"),
        ("how many times does 'TODO' appear in src?", "how many times does legacy_mode appear in lib?"),
    ],
)  # fmt: skip
def test_a_bare_searched_word_is_the_quoted_one(places, learned, paraphrase):
    assert canonical.of(paraphrase, places).key == canonical.of(learned, places).key
    assert [v.type for v in canonical.of(paraphrase, places).extraction.values if v.type != "path"] in (
        ["quoted"],
        ["quoted", "number"],
    )


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        ("what's the weekday in Auckland? add it to the end of days.log",
         "append the current weekday in Lima to logs/weekdays.log"),
        ("che ore sono a Roma?", "che ore sono a Padova?"),
        ("case-insensitive search for 'password' in lib", "look for 'token' in src, ignoring capitalization"),
        ("cerca 'iban' in lib ignorando le maiuscole", "cerca 'iva' in src senza distinguere maiuscole e minuscole"),
        ("search for 'deprecated' in src", "look up where 'legacy_mode' shows up in lib"),
    ],
)  # fmt: skip
def test_a_city_a_way_to_ignore_capitals_and_where_a_word_shows_up(places, learned, paraphrase):
    assert canonical.of(paraphrase, places).key == canonical.of(learned, places).key


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        # saying it is no longer needed is no negation of the removal
        ("elimina vecchio/bozza.docx", "cancella tmp/prova.txt, non serve più"),
        ("please remove build.log", "scratch/draft2.md can go, trash it - I don't need it anymore"),
        # nor is saying it is needed, or where the files "are"
        ("cerca i pdf in src", "mi servono i file *.epub della cartella lib, cercali"),
        ("elenca i file .md in src", "mostrami i file markdown che stanno in lib"),
        ("find typescript files in src", "I'm looking for the markdown docs in lib"),
        ("Can you show me what's inside src?", "gimme a listing of the lib folder"),
        # «fino a 7 file» is at most 7
        ("trova al massimo 3 file pdf in src", "trova fino a 7 file *.csv in lib"),
    ],
)  # fmt: skip
def test_words_that_only_say_why_or_where_are_nothing(places, learned, paraphrase):
    assert canonical.of(paraphrase, places).key == canonical.of(learned, places).key


def test_not_deleting_is_still_a_negation(places):
    assert canonical.of("do not delete a.md", places).key != canonical.of("delete a.md", places).key


def test_a_case_sensitive_search_is_not_one_that_ignores_capitals(places):
    sensitive = canonical.of("search for 'Error' in logs, case-sensitive", places)
    assert canonical.of("search for 'Error' in logs, ignoring capitalization", places).key != sensitive.key


@pytest.mark.parametrize(
    "text",
    [
        "pause the recurring task nightly-backup",  # a name with hyphens: a task's
        "remember that the wifi password is girasole42",  # not a search
        "read README_FIRST.md",  # a file
        "find the TODO.md files",  # a file's name, not a searched word
    ],
)
def test_what_is_not_a_searched_word_keeps_its_type(places, text):
    form = canonical.of(text, places)
    assert spoken_values.searched_as_quoted(form.extraction, form.tokens) is form.extraction


def test_a_plan_learned_with_a_quoted_word_serves_a_bare_one(places):
    plan = {"steps": [{"tool": "grep_files", "args": {"pattern": "TODO", "path": "src"}}], "final_message": ""}
    learned = Probe.of("search for 'TODO' in src", places, 1)
    assert fastpath.learn(learned, plan, catalog(), turn_id=None) is not None
    autopath.record_success(learned, plan, catalog())
    recall = memory.lookup(Probe.of("search for FIXME in lib", places, 1), catalog())
    assert recall is not None and recall.stage == 1
    assert recall.plan.steps[0].args == {"pattern": "FIXME", "path": "lib"}
