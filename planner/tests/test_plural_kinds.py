"""A kind of file named alone in the plural (planner/object_kinds.py): "show me my pdfs", «quali
csv ho?» are the files of that kind, as "the pdf files" is; "open the csv" is one file, not a glob."""

import pytest

from planner.candidates import ranking
from planner.catalog import catalog
from planner.coldpath import plan_for
from planner.decision import decide
from planner.intent import extract
from planner.object_kinds import derived


@pytest.mark.parametrize(
    ("text", "glob"),
    [
        ("show me my pdfs", "*.pdf"),
        ("quali csv ho?", "*.csv"),
        ("trova tutti i pdf", "*.pdf"),
        ("how many pngs are there?", "*.png"),
        ("the pdf files", "*.pdf"),  # with the noun, as before
    ],
)
def test_a_kind_in_the_plural_is_its_glob(text, glob):
    assert [d.value for d in derived(text) if d.kind == "glob"] == [glob]


@pytest.mark.parametrize("text", ["open the csv", "convert this text to pdf", "what is a pdf?", "show me the logs"])
def test_one_file_or_a_word_about_the_kind_is_not(text):
    assert not [d for d in derived(text) if d.kind == "glob"]


def test_the_files_of_that_kind_are_found_with_no_model(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.csv").write_text("a,b\n")
    for text in ("quali csv ho?", "which csvs do i have?", "show me my csvs", "mostrami tutti i csv"):
        intent = extract(text)
        chosen = decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=tmp_path)
        assert (chosen.route, chosen.tool) == ("tools", "find_files")
        candidates = [catalog().executors["find_files"], catalog().executors["list_files"]]
        plan = plan_for(text, candidates=candidates, workspace=tmp_path)
        assert plan is not None and [(s.tool, s.args) for s in plan.steps] == [("find_files", {"pattern": "*.csv"})]


def test_reading_the_files_of_a_kind_is_not_naming_them(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n")
    candidates = [catalog().executors["find_files"], catalog().executors["read_files"]]
    assert plan_for("read all my csvs", candidates=candidates, workspace=tmp_path) is None
