import pytest

from planner.plan import PlanError, lookup, parse, resolve
from planner.validator import validate


def problems(cat, plan_dict):
    return [(p.step, p.error_class) for p in validate(parse(plan_dict), cat)]


def test_placeholders_resolve_whole_values_typed_and_inside_text_as_text():
    results = {1: {"entries": [{"path": "a.md", "content": "x\ny"}], "count": 1}}

    def source(kind, target, path):
        return lookup(results[int(target)], path) if kind == "step" else {"now": "2026-11-26"}[target]

    assert resolve("${step1.count}", source) == 1
    assert resolve({"content": "Found ${step1.count}: ${step1.entries.0.path} on ${RUNTIME:now}"}, source) == {
        "content": "Found 1: a.md on 2026-11-26"
    }
    assert resolve(["${step1.entries.0.content}"], source) == ["x\ny"]


@pytest.mark.parametrize(
    "bad", ["not json", "[1]", {"steps": "read"}, {"steps": [{"args": {}}]}, {"steps": [{"tool": "x", "args": 3}]}]
)
def test_a_malformed_plan_is_a_plan_error(bad):
    with pytest.raises(PlanError):
        parse(bad)


def test_a_good_plan_has_no_problems(cat):
    plan = {
        "steps": [
            {"tool": "read_files", "args": {"paths": ["notes/a.md"], "tail_lines": 2}},
            {"tool": "write_files", "args": {"path": "out.md", "content": "${step1.entries.0.content}"}},
        ],
        "final_message": "Saved ${step2.path}",
    }
    assert problems(cat, plan) == []


def test_unknown_tools_and_bad_args_are_reported_per_step(cat):
    plan = {"steps": [{"tool": "teleport", "args": {}}, {"tool": "read_files", "args": {"path": "a.md"}}]}
    assert problems(cat, plan) == [(1, "unknown_tool"), (2, "invalid_args"), (2, "invalid_args")]


def test_references_must_point_backwards_to_fields_that_exist(cat):
    forward = {
        "steps": [
            {"tool": "read_files", "args": {"paths": ["${step2.path}"]}},
            {"tool": "find_files", "args": {"pattern": "*"}},
        ]
    }
    assert (1, "bad_reference") in problems(cat, forward)
    no_field = {"steps": [{"tool": "find_files", "args": {"pattern": "*"}}], "final_message": "${step1.colour}"}
    assert problems(cat, no_field) == [(0, "bad_reference")]
    undeclared = {"steps": [{"tool": "write_files", "args": {"path": "a", "content": "${FILLER:poem}"}}]}
    assert problems(cat, undeclared) == [(1, "bad_reference")]


def test_a_placeholder_field_is_checked_when_it_resolves_not_before(cat):
    plan = {
        "steps": [
            {"tool": "find_files", "args": {"pattern": "*.md"}},
            {"tool": "compute", "args": {"expression": "${step1.count} * 2"}},
        ]
    }
    assert problems(cat, plan) == []


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (
            [("write_files", {"path": "a", "content": "x"}), ("read_files", {"paths": ["a"]})],
            [(2, "pipeline_already_closed")],
        ),
        ([("compute", {"expression": "1+1"})], []),
        ([("compute", {"expression": "${FILLER:n}"})], [(1, "bad_reference"), (1, "needs_data_source")]),
        ([("run_shell", {"command": ""})], [(1, "invalid_args"), (1, "needs_action_target")]),
        (
            [
                ("find_files", {"pattern": "*"}),
                ("grep_files", {"pattern": "x"}),
                ("compute", {"expression": "${step1.count}"}),
            ],
            [],
        ),
        ([("write_files", {"path": "hello.txt", "content": "hi"})], []),
    ],
)
def test_the_shape_is_extract_then_at_most_one_closing_step(cat, steps, expected):
    plan = {"steps": [{"tool": t, "args": a} for t, a in steps]}
    assert problems(cat, plan) == expected


def test_the_allowed_set_limits_tools_to_the_candidates(cat):
    plan = parse({"steps": [{"tool": "run_shell", "args": {"command": "ls"}}]})
    assert [p.error_class for p in validate(plan, cat, allowed={"read_files"})] == ["unknown_tool"]
