"""Plan execution (planner.execution) on scripted plans, against a real workspace and Postgres."""

from dataclasses import replace

import pytest

from planner.execution import MAX_SAME_EXECUTOR, execute
from planner.intent import extract
from planner.models import Gap, ScratchpadEntry
from planner.plan import parse
from planner.recovery import classify
from planner.scratchpad import Scratchpad
from planner.terminator import terminate

pytestmark = pytest.mark.django_db


def run(cat, ctx, plan, request="", **kw):
    steps = []
    ctx = replace(ctx, scratchpad=Scratchpad("00000000-0000-0000-0000-000000000001"))
    result = execute(
        parse(plan),
        catalog=cat,
        ctx=ctx,
        request_text=request,
        on_step=steps.append,
        **kw,
    )
    return result, steps


def test_a_plan_runs_in_order_with_references_and_a_final_message(cat, ctx, workspace):
    plan = {
        "steps": [
            {"tool": "read_files", "args": {"paths": ["notes/a.md"], "tail_lines": 2}},
            {"tool": "write_files", "args": {"path": "out/last.md", "content": "${step1.entries.0.content}"}},
        ],
        "final_message": "Wrote ${step2.bytes} bytes to ${step2.path}.",
    }
    execution, events = run(cat, ctx, plan, "read notes/a.md and write its last lines")
    assert execution.status == "ok"
    assert (workspace / "out" / "last.md").read_text() == "line 3\nline 4"
    assert execution.final_text == "Wrote 13 bytes to out/last.md."
    assert [(e["index"], e["status"]) for e in events] == [(1, "started"), (1, "done"), (2, "started"), (2, "done")]
    assert execution.steps[0].vaglio["approved"] and execution.steps[0].args == {
        "paths": ["notes/a.md"],
        "tail_lines": 2,
    }


def test_without_a_final_message_the_last_result_speaks(cat, ctx):
    execution, _ = run(cat, ctx, {"steps": [{"tool": "find_files", "args": {"pattern": "*.md"}}]})
    assert execution.final_text.startswith("2 result(s):") and "notes/a.md" in execution.final_text


def test_a_line_count_comes_from_the_file_even_when_the_message_counts_something_else(cat, ctx, workspace):
    save = {"tool": "write_files", "args": {"path": "todo.txt", "content": "buy milk"}}
    append = {"tool": "write_files", "args": {"path": "todo.txt", "content": "call mom", "append": True}}
    assert run(cat, ctx, {"steps": [save, append]}, "append 'call mom' to todo.txt")[0].final_text == (
        "Appended to todo.txt."
    )
    counted = {"steps": [{"tool": "read_files", "args": {"paths": ["todo.txt"]}}],
               "final_message": "todo.txt has ${step1.count} lines."}  # fmt: skip
    execution, _ = run(cat, ctx, counted, "how many lines does todo.txt have?")
    assert execution.final_text == "todo.txt has 2 lines."


def test_html_entities_in_the_models_words_are_decoded_but_not_in_the_files(cat, ctx, workspace):
    (workspace / "amp.txt").write_text("salt &amp; pepper")
    plan = {"steps": [{"tool": "read_files", "args": {"paths": ["amp.txt"]}}],
            "final_message": "What&#39;s in it: ${step1.entries.0.content}"}  # fmt: skip
    execution, _ = run(cat, ctx, plan, "read amp.txt")
    assert execution.final_text == "What's in it: salt &amp; pepper"


def test_a_write_without_a_final_message_answers_in_a_sentence_in_the_users_language(cat, ctx):
    plan = {"steps": [{"tool": "write_files", "args": {"path": "mare.txt", "content": "Il mare è calmo."}}]}
    execution, _ = run(cat, ctx, plan, "salva 'Il mare è calmo.' in mare.txt")
    assert execution.final_text == "Salvato in mare.txt."


def test_the_first_failing_step_stops_the_plan_with_its_error_class(cat, ctx, workspace):
    plan = {
        "steps": [
            {"tool": "read_files", "args": {"paths": ["missing.md"]}},
            {"tool": "write_files", "args": {"path": "x", "content": "y"}},
        ]
    }
    execution, events = run(cat, ctx, plan)
    assert execution.status == "failed" and execution.failed.error_class == "not_found"
    assert classify(execution.failed.error_class) == "wrong_args"
    assert not (workspace / "x").exists() and events[-1]["status"] == "failed"


def test_the_vaglio_blocks_a_step_before_it_runs(cat, ctx):
    execution, events = run(
        cat, ctx, {"steps": [{"tool": "run_shell", "args": {"command": "cat /etc/shadow"}}]}, "run it"
    )
    assert execution.failed.error_class == "blocked_guard" and events[-1]["status"] == "blocked"
    assert classify("blocked_guard") == "out_of_scope"


def test_a_repeated_read_is_not_run_twice(cat, ctx):
    read = {"tool": "read_files", "args": {"paths": ["notes/a.md"]}}
    execution, _ = run(cat, ctx, {"steps": [read, read]})
    assert execution.status == "ok"
    assert execution.steps[1].observation["note"] == "you already have this data at step 1"
    assert execution.steps[1].vaglio is None


def test_caps_stop_runaway_plans(cat, ctx):
    same = [{"tool": "get_time", "args": {"tz": f"Etc/GMT+{i % 12}"}} for i in range(MAX_SAME_EXECUTOR + 1)]
    execution, _ = run(cat, ctx, {"steps": same})
    assert execution.status == "cap_same_executor"
    many = [
        {"tool": t, "args": a}
        for _ in range(4)
        for t, a in (
            ("get_time", {}),
            ("list_files", {}),
            ("find_files", {"pattern": "*"}),
            ("grep_files", {"pattern": "x"}),
            ("get_time", {"tz": "UTC"}),
            ("list_files", {"path": "notes"}),
            ("find_files", {"pattern": "*.md"}),
            ("grep_files", {"pattern": "y"}),
        )
    ]
    execution, _ = run(cat, ctx, {"steps": many})
    assert execution.status == "cap_steps" and len(execution.steps) == 31


def test_a_large_observation_goes_to_the_scratchpad_with_a_summary(cat, ctx, workspace):
    (workspace / "big.txt").write_text("x" * 10_000)
    execution, _ = run(cat, ctx, {"steps": [{"tool": "read_files", "args": {"paths": ["big.txt"]}}]})
    observation = execution.steps[0].observation
    assert "[… " in observation["summary"] and "characters omitted …]" in observation["summary"]
    assert ScratchpadEntry.objects.get(id=observation["scratchpad_id"]).content.count("x") >= 10_000
    assert execution.results[1]["entries"][0]["content"] == "x" * 10_000, "later steps still see the whole result"


def test_fillers_and_runtime_values(cat, ctx, workspace):
    plan = {
        "steps": [
            {"tool": "write_files", "args": {"path": "hi.txt", "content": "${FILLER:greeting} from ${RUNTIME:actor}"}}
        ],
        "fillers": {"greeting": {"prompt": "a greeting", "default": "Hello"}},
    }
    run(cat, ctx, plan, request="write a greeting to hi.txt", runtime={"actor": "alice"})
    assert (workspace / "hi.txt").read_text() == "Hello from alice"
    run(cat, ctx, plan, request="write a greeting to hi.txt", runtime={"actor": "bob"},
        fill=lambda name, spec, source: "Ciao")  # fmt: skip
    assert (workspace / "hi.txt").read_text() == "Ciao from bob"


def test_the_terminator_records_gaps_with_a_recurrence_counter():
    intent = extract("send an email to Ada")
    first = terminate(cause="wrong_tool", detail="no mail tool", intent=intent, request_text="send an email to Ada")
    again = terminate(cause="wrong_tool", detail="no mail tool", intent=intent, request_text="send an email to Bob")
    assert first.occurrences == 1 and again.occurrences == 2
    assert "I could not do this" in again.message and again.suggestion
    assert Gap.objects.get().occurrences == 2
