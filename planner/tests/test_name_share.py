"""Files named by a word their names share (planner/name_share.py): «trovami tutte le fatture che
ho» beside fattura-2024-01.txt is the user's files, found by that name with no model call."""

import pytest

from planner.candidates import ranking
from planner.catalog import catalog
from planner.coldpath import plan_for
from planner.decision import decide
from planner.intent import extract
from planner.name_share import shared
from planner.prefilter import Prefilter
from planner.text import fold


@pytest.fixture
def papers(tmp_path):
    (tmp_path / "documenti").mkdir()
    for name in ("fattura-2024-01.txt", "fattura-2024-02.txt", "cv.txt"):
        (tmp_path / "documenti" / name).write_text("x")
    (tmp_path / "invoice-03.pdf").write_text("x")
    (tmp_path / "list.txt").write_text("x")
    (tmp_path / "photo-beach.jpg").write_text("x")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "receipt-1.txt").write_text("x")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("trovami tutte le fatture che ho", ("fatture", "fattura")),
        ("dove sono le mie fatture?", ("fatture", "fattura")),
        ("quali fatture ho?", ("fatture", "fattura")),
        ("where are my invoices?", ("invoices", "invoice")),
        ("find the photos", ("photos", "photo")),
        # two words that name one file, in the order its name has them
        ("show me the beach photos", ("beach photos", "photo*beach")),
        # two words no one name holds, a word no file shares, a hidden file, no looking
        ("find the invoice photos", None),
        ("find my receipts", None),
        ("where are my contracts?", None),
        ("write a poem about invoices", None),
    ],
)
def test_one_word_the_names_share(papers, text, found):
    assert shared(fold(text), papers) == found


def test_the_word_is_evidence_of_the_users_files_and_they_are_found_by_the_name(papers):
    text = "trovami tutte le fatture che ho"
    intent = extract(text)
    chosen = decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=papers)
    assert (chosen.route, chosen.tool, chosen.evidence) == ("tools", "find_files", ("file names with fattura",))
    assert chosen.sure
    ranked = Prefilter(catalog().executors.values()).rank(text, intent)
    candidates = [catalog().executors[n] for n in ["find_files", *(c.name for c in ranked if c.name != "find_files")]]
    for asked in (text, "dove sono le mie fatture?"):
        plan = plan_for(asked, candidates=candidates, workspace=papers)
        assert [(s.tool, s.args) for s in plan.steps] == [("find_files", {"pattern": "*fattura*"})]


@pytest.mark.parametrize("text", ["what is an invoice?", "trovami tutte le fatture che ho"])
def test_a_definition_or_an_empty_workspace_stays_in_words(tmp_path, text):
    intent = extract(text)
    assert decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=tmp_path).route == "direct"


def test_two_words_one_name_holds_are_found_in_its_order(papers):
    text = "show me the beach photos"
    intent = extract(text)
    chosen = decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=papers)
    assert (chosen.route, chosen.tool) == ("tools", "find_files")
    candidates = [catalog().executors[n] for n in ("find_files", "read_files", "list_files")]
    plan = plan_for(text, candidates=candidates, workspace=papers)
    assert [(s.tool, s.args) for s in plan.steps] == [("find_files", {"pattern": "*photo*beach*"})]
