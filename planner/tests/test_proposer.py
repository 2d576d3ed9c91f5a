"""The proposer's prompt and grammar: what a small model is allowed to write."""

import json

from planner.intent import extract
from planner.proposer import PLAIN_TEXT, build_prompt, mentions, plan_schema, steps_needed
from routing.defaults import LOCAL_AGENT_BUDGETS
from routing.registry import PLAN_STEPS, ModelConfig


def test_what_the_request_names_is_found_by_kind(workspace):
    found = mentions("find *.log in notes, then fetch https://example.com/a?b=1 and read notes/a.md", workspace)
    assert found.files == ("notes/a.md",) and found.globs == ("*.log",) and found.folders == ("notes",)
    assert found.urls == ("https://example.com/a?b=1",)
    assert mentions("how many .txt files?", workspace).of_kind("glob") == ("*.txt",)


def test_path_arguments_are_pinned_to_what_the_request_names_and_free_text_is_plain(cat):
    candidates = [cat.executors[name] for name in ("read_files", "write_files")]
    schema = plan_schema(candidates, mentions("copy notes/a.md to b.md", None), 2)
    read, write = schema["$defs"]["step"]["anyOf"]
    assert read["properties"]["args"]["properties"]["paths"]["items"] == {"enum": ["notes/a.md", "b.md"]}
    assert write["properties"]["args"]["properties"]["path"] == {"enum": ["notes/a.md", "b.md"]}
    assert write["properties"]["args"]["properties"]["content"]["pattern"] == PLAIN_TEXT
    free = plan_schema(candidates, mentions("save a note", None), 1)["$defs"]["step"]["anyOf"][1]
    assert free["properties"]["args"]["properties"]["path"]["pattern"] == PLAIN_TEXT, "nothing named: free"


def test_the_grammar_holds_the_pipeline_shape_extractors_first(cat):
    candidates = [cat.executors[name] for name in ("read_files", "write_files")]
    shapes = plan_schema(candidates, None, 2)["properties"]["steps"]["anyOf"]
    assert [len(s["prefixItems"]) for s in shapes] == [0, 1, 2]
    assert shapes[2]["prefixItems"][0] == {"$ref": "#/$defs/extract_step"}
    extractors = plan_schema(candidates, None, 2)["$defs"]["extract_step"]["anyOf"]
    assert [v["properties"]["tool"]["const"] for v in extractors] == ["read_files"]


def test_a_local_models_plan_follows_the_kinds_of_step_the_verbs_need_within_its_rows_limit():
    local = ModelConfig(name="local-fast", provider="local", provider_kind="local", params=LOCAL_AGENT_BUDGETS)
    assert steps_needed(extract("find the .md files and count them"), local) == 1
    assert steps_needed(extract("write a summary of notes/b.md to summary.md"), local) == 2
    assert steps_needed(extract("hello there"), local) == 1
    tight = ModelConfig(name="tight", provider="local", provider_kind="local", params={"plan_max_steps": 1})
    assert steps_needed(extract("write a summary of notes/b.md to summary.md"), tight) == 1


def test_a_capable_models_plan_size_and_budgets_come_from_its_row():
    cloud = ModelConfig(name="gpt-5", provider="openai", provider_kind="openai", max_output_tokens=128_000)
    assert steps_needed(extract("hello there"), cloud) == PLAN_STEPS == 20
    assert (cloud.budget("plan"), cloud.budget("action"), cloud.budget("answer")) == (128_000,) * 3
    tuned = ModelConfig(
        name="x", provider="openai", provider_kind="openai", max_output_tokens=8000,
        params={"plan_max_tokens": 12_000, "action_max_tokens": 900, "plan_max_steps": 7},
    )  # fmt: skip
    assert (tuned.budget("plan"), tuned.budget("action"), tuned.plan_steps) == (8000, 900, 7)
    local = ModelConfig(name="local-fast", provider="local", provider_kind="local", max_output_tokens=1024,
                        params=LOCAL_AGENT_BUDGETS)  # fmt: skip
    budgets = (local.budget("plan"), local.budget("action"), local.budget("answer"), local.plan_steps)
    assert budgets == (240, 200, 200, 3)


def test_the_prompt_is_short_signatures_not_schemas(cat):
    candidates = [cat.executors[name] for name in ("read_files", "find_files")]
    prompt = build_prompt("read notes/a.md", extract("read notes/a.md"), candidates, [])
    signature = "- read_files(paths: list of file, tail_lines?: integer, head_lines?: integer, offset?: integer, limit?"
    assert signature in prompt
    assert '"type"' not in prompt.split("Example")[0], "no JSON Schema in the tool list"
    assert json.loads(prompt.split("Example of a plan of this kind:\n")[1])["steps"][0]["args"]["paths"] == [
        "notes/a.md"
    ]
