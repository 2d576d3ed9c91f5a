"""Typed request values, masking, signatures and parametrized plans (no database)."""

import pytest

from planner import params as P
from planner.canonical import EXTRA_TYPES
from planner.memory.probe import order_safe


def test_values_are_typed_and_masked_in_order(workspace):
    found = P.extract(
        "fetch https://example.com/a.json, mail bob@example.com on 2026-12-01 at 14:30, "
        "save 'buy milk' to notes/todo.txt, find *.md in notes, count the .txt files, grep `user_id` and TODO, last 3",
        workspace,
    )
    assert [(v.type, v.value) for v in found.values] == [
        ("url", "https://example.com/a.json"),
        ("email", "bob@example.com"),
        ("datetime", "2026-12-01"),
        ("datetime", "14:30"),
        ("quoted", "buy milk"),
        ("path", "notes/todo.txt"),
        ("glob", "*.md"),
        ("path", "notes"),
        ("ext", ".txt"),
        ("identifier", "user_id"),
        ("identifier", "TODO"),
        ("number", 3),
    ]
    assert found.masked.startswith("fetch <url:1>, mail <email:1> on <datetime:1> at <datetime:2>, save <quoted:1>")


def test_a_plain_word_is_a_path_only_when_it_names_something_in_the_workspace(workspace):
    assert P.extract("list the files in notes", workspace).masked == "list the files in <path:1>"
    assert P.extract("list the files in docs", workspace).masked == "list the files in docs"


def test_multiplication_is_not_a_glob_and_apostrophes_are_not_quotes():
    assert [v.type for v in P.extract("what is 17 * 23.5?").values] == ["number", "number"]
    assert P.extract("what's today's date?").values == ()


def test_signatures_tell_apart_what_changes_the_plan():
    sig = lambda text: P.signature(P.extract(text).masked)  # noqa: E731
    base = sig("read notes/a.md and tell me its last 2 lines")
    assert sig("show me the last 2 lines of notes/b.md") == base, "a paraphrase"
    assert sig("read the first 2 lines of notes/a.md") != base, "another constraint"
    assert sig("don't read notes/a.md") != sig("read notes/a.md"), "a negation"
    assert sig("read notes/a.md and count its words") != sig("read notes/a.md"), "an extra step"


def test_a_plan_is_parametrized_by_the_values_it_uses():
    found = P.extract("calculate the mean of 3, 4 and 5 and save it to out/mean.txt")
    plan = {
        "steps": [
            {"tool": "compute", "args": {"expression": "mean([3, 4, 5])"}},
            {"tool": "write_files", "args": {"path": "out/mean.txt", "content": "${step1.value}", "append": False}},
        ],
        "final_message": "Saved to out/mean.txt",
    }
    template, slots = P.parametrize(plan, found)
    assert (
        template["steps"][0]["args"]["expression"] == "mean([${PARAM:number_1}, ${PARAM:number_2}, ${PARAM:number_3}])"
    )
    assert template["steps"][1]["args"] == {"path": "${PARAM:path_1}", "content": "${step1.value}", "append": False}
    assert template["final_message"] == "Saved to ${PARAM:path_1}"
    assert slots["path_1"] == {"type": "path", "cast": "str"}


def test_whole_numbers_keep_their_type_and_constants_stay():
    found = P.extract("show the last 2 lines of a.md")
    template, slots = P.parametrize(
        {"steps": [{"tool": "read_files", "args": {"paths": ["a.md"], "tail_lines": 2, "head_lines": 50}}]}, found
    )
    assert template["steps"][0]["args"] == {
        "paths": ["${PARAM:path_1}"],
        "tail_lines": "${PARAM:number_1}",
        "head_lines": 50,
    }
    assert slots["number_1"]["cast"] == "int"
    assert P.fill(slots, P.extract("show the last 7 lines of b.md"), found.counts) == {"path_1": "b.md", "number_1": 7}
    assert P.fill(slots, P.extract("show the last 2.5 lines of b.md"), found.counts) is None, "an int slot"
    assert P.fill(slots, P.extract("show the last lines of b.md"), found.counts) is None, "a value is missing"
    assert P.fill(slots, P.extract("show the last 2 lines of b.md and c.md"), found.counts) is None, "one too many"


@pytest.mark.parametrize(
    ("request_text", "plan"),
    [
        ("read a.md and b.md", {"steps": [{"tool": "read_files", "args": {"paths": ["a.md"]}}]}),  # b.md unused
        ("add 3 and 3", {"steps": [{"tool": "compute", "args": {"expression": "3 + 3"}}]}),  # which 3?
    ],
)
def test_plans_that_cannot_be_parametrized_safely_are_not_learned(request_text, plan):
    with pytest.raises(P.NotLearnable):
        P.parametrize(plan, P.extract(request_text))


def test_a_value_named_twice_is_one_slot_and_serves_only_a_request_that_names_one_twice():
    plan = {"steps": [{"tool": "read_files", "args": {"paths": ["dati.txt"]}},
                      {"tool": "edit_file", "args": {"path": "dati.txt", "old": "a", "new": "b"}}]}  # fmt: skip
    learned = P.extract("leggi dati.txt e sostituisci 'a' con 'b' in dati.txt")
    template, slots = P.parametrize(plan, learned)
    assert template["steps"][1]["args"]["path"] == "${PARAM:path_1}" == template["steps"][0]["args"]["paths"][0]
    same = P.fill(slots, P.extract("leggi conf.txt e sostituisci 'x' con 'y' in conf.txt"), learned.counts)
    assert same == {"path_1": "conf.txt", "quoted_1": "x", "quoted_2": "y"}
    assert P.fill(slots, P.extract("leggi a.txt e sostituisci 'x' con 'y' in b.txt"), learned.counts) is None


def test_positions_are_trusted_across_wordings_only_inside_one_argument():
    listed = {"steps": [{"tool": "compute", "args": {"expression": "mean([${PARAM:number_1}, ${PARAM:number_2}])"}}]}
    moved = {
        "steps": [
            {"tool": "read_files", "args": {"paths": ["${PARAM:path_1}"]}},
            {"tool": "write_files", "args": {"path": "${PARAM:path_2}", "content": "${step1.entries.0.content}"}},
        ]
    }
    assert order_safe(listed, {"number": 2})
    assert not order_safe(moved, {"path": 2})


def test_a_value_is_never_bound_inside_a_slot_already_put_in():
    """ "2 ** 10": once 10 is ${PARAM:number_2}, the 2 in that name is not the request's 2."""
    extraction = P.extract("2 ** 10", extra=EXTRA_TYPES)
    plan, slots = P.parametrize({"steps": [{"tool": "compute", "args": {"expression": "2 ** 10"}}]}, extraction)
    assert plan["steps"][0]["args"]["expression"] == "${PARAM:number_1} ${PARAM:op_1} ${PARAM:number_2}"
    assert set(slots) == {"number_1", "number_2", "op_1"}


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("pause the nightly-backup task", [("identifier", "nightly-backup")]),
        ("riattiva report-mensile", [("identifier", "report-mensile")]),
        ("write a follow-up email", []),  # a short part: a compound, not a name
        ("a real-time clock, twenty-five times", []),
        ("read meeting-2024-03-04.md", [("path", "meeting-2024-03-04.md")]),
        ("salva '# Stato dell'arte' in a.md", [("quoted", "# Stato dell'arte"), ("path", "a.md")]),
    ],
)
def test_hyphenated_names_are_values_and_quotes_may_hold_an_apostrophe(text, values):
    assert [(v.type, v.text) for v in P.extract(text).values] == values
