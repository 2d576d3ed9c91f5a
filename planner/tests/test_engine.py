"""The engine end to end on scripted plans: a loopback OpenAI-compatible server stands in for the
planning model and returns exactly the plans each branch needs."""

import json
import uuid
from dataclasses import replace

import pytest

from core.models import TraceEvent
from planner.candidates import candidates_for, ranking
from planner.catalog import catalog
from planner.decision import Decision
from planner.dispatch import run_turn
from planner.intent import extract
from planner.models import Gap
from planner.turn import Sink, TurnInput
from routing.models import ChatModel
from tests.loopback import Reply, completion, plan

pytestmark = pytest.mark.django_db


def turn(workspace, text, **kw):
    steps = []
    outcome = run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()),
            session_id=str(uuid.uuid4()),
            user_id=1,
            text=text,
            workspace_path=workspace,
            actor="alice",
            **kw,
        ),
        Sink(on_step=steps.append),
    )
    return outcome, steps


def test_one_model_call_proposes_the_plan_and_the_executor_runs_it(planner_model, workspace):
    planner_model.replies.append(
        plan(("read_files", {"paths": ["notes/a.md"], "tail_lines": 2}), final="${step1.entries.0.content}")
    )
    # "its last lines" gives no count: the cold path (planner.coldpath) leaves the plan to the model.
    outcome, steps = turn(workspace, "read notes/a.md and tell me its last lines")
    assert (outcome.final_kind, outcome.layer, outcome.text) == ("answer", "engine", "line 3\nline 4")
    assert outcome.model_calls == 1
    sent = planner_model.requests[0]["json"]
    schema = sent["response_format"]["schema"]
    tools = [v["properties"]["tool"]["const"] for v in schema["$defs"]["step"]["anyOf"]]
    assert tools[0] == "read_files" and "final_answer" not in tools, "the tool name is an enum of the candidates"
    prompt = sent["messages"][0]["content"]
    assert "verb=read" in prompt and "The request names: notes/a.md." in prompt
    # One example chosen by verb, showing the request's own file: a small model copies closely.
    example = 'Example of a plan of this kind:\n{"steps": [{"tool": "read_files", "args": {"paths": ["notes/a.md"]'
    assert example in prompt
    assert [s["status"] for s in steps] == ["started", "done"]
    assert outcome.trace["candidates"][0] == "read_files"


def test_a_reply_that_is_not_json_is_reproposed_once(planner_model, workspace):
    planner_model.replies.extend(
        [completion("sure! I will read it"), plan(("find_files", {"pattern": "*.md"}), final="${step1.count} files")]
    )
    outcome, _ = turn(workspace, "find the markdown or text files")
    assert (outcome.final_kind, outcome.text, outcome.model_calls) == ("answer", "2 files", 2)
    assert "not a usable plan" in planner_model.requests[1]["json"]["messages"][0]["content"]


def test_an_invalid_plan_twice_ends_at_the_terminator_honestly(planner_model, workspace):
    planner_model.replies.extend([plan(("teleport", {})), plan(("read_files", {"wrong": 1}))])
    outcome, _ = turn(workspace, "read notes/a")
    assert (outcome.final_kind, outcome.layer) == ("answer", "terminator")
    assert outcome.text.startswith("I could not do this") and "read notes/todo.md" in outcome.text
    assert Gap.objects.get().cause == "no_plan"
    assert "unknown_tool" in planner_model.requests[1]["json"]["messages"][0]["content"]


def test_a_failed_step_is_recovered_by_one_reproposal(planner_model, workspace):
    planner_model.replies.extend(
        [
            plan(("read_files", {"paths": ["notes/A.MD"]})),
            plan(("read_files", {"paths": ["notes/a.md"]}), final="ok: ${step1.count}"),
        ]
    )
    outcome, _ = turn(workspace, "read notes/a")
    assert (outcome.final_kind, outcome.layer, outcome.text) == ("answer", "recovery", "ok: 1")
    assert "not_found" in json.dumps(outcome.trace["attempts"][0]["recovery"])


def test_a_wrong_tool_is_excluded_from_the_reproposal(planner_model, workspace):
    planner_model.replies.extend(
        [plan(("run_shell", {"command": "exit 1"})), plan(("list_files", {}), final="${step1.count}")]
    )
    outcome, _ = turn(workspace, "run a listing of my files")
    assert outcome.layer == "recovery"
    second = planner_model.requests[1]["json"]["response_format"]["schema"]["$defs"]["step"]["anyOf"]
    assert "run_shell" not in [v["properties"]["tool"]["const"] for v in second]


def test_out_of_scope_goes_straight_to_the_terminator(planner_model, workspace):
    planner_model.replies.append(plan(("read_files", {"paths": ["../secret.txt"]})))
    outcome, steps = turn(workspace, "read ../secret")
    assert (outcome.layer, outcome.model_calls) == ("terminator", 1)
    assert "outside" in outcome.text and steps[-1]["status"] == "blocked"


def test_a_missing_input_ends_as_needs_inputs(planner_model, workspace):
    planner_model.replies.append(plan(("write_files", {"path": "", "content": "x"})))
    planner_model.replies.append(plan(("write_files", {"path": "", "content": "x"})))
    outcome, _ = turn(workspace, "write it down somewhere in notes/")
    assert outcome.final_kind == "needs_inputs" and outcome.layer == "terminator"
    assert outcome.pending["kind"] == "needs_inputs"


def test_a_request_with_nowhere_to_act_asks_and_the_answer_carries_it_on(planner_model, workspace):
    waiting, _ = turn(workspace, "save 'buy milk'")
    assert (waiting.final_kind, waiting.layer, waiting.model_calls) == ("ask", "decision", 0)
    question = "Which file should I save it to?"
    assert waiting.pending == {"kind": "ask", "request": "save 'buy milk'", "question": question}

    outcome, _ = turn(workspace, "to todo.txt", answers={**waiting.pending, "turn_id": "t-waiting"})
    assert (outcome.final_kind, outcome.text) == ("answer", "Saved to todo.txt.")
    assert (workspace / "todo.txt").read_text() == "buy milk"
    assert outcome.model_calls == 0, "the request and the answer together are fully typed: no model plans it"
    assert outcome.trace["resumed_from"] == "t-waiting" and not outcome.pending


def test_a_plan_that_asks_a_question_ends_as_ask_and_waits(planner_model, workspace):
    planner_model.replies.append(plan(final="Which file should I read?"))
    outcome, _ = turn(workspace, "read the file")
    assert (outcome.final_kind, outcome.text) == ("ask", "Which file should I read?")
    assert outcome.pending["kind"] == "ask" and outcome.pending["request"] == "read the file"


def test_without_a_recognised_verb_sure_evidence_for_a_tool_needs_no_intent_call(planner_model, workspace):
    # the path names read_files for sure, and the request types every argument: the cold path plans it
    outcome, _ = turn(workspace, "notes/a.md, last 2 lines please")
    assert (outcome.final_kind, outcome.text, outcome.model_calls) == ("answer", "line 3\nline 4", 0)
    assert "intent_from_model" not in outcome.trace and not planner_model.requests


def test_without_a_recognised_verb_or_a_tool_the_fast_tier_names_the_intent_first(planner_model, workspace):
    planner_model.replies.append(completion('{"verb": "read", "object": "lines"}'))
    text = "notes/a.md, last 2 lines please"
    inp = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, text=text,
                    workspace_path=workspace, actor="alice")  # fmt: skip
    intent = extract(text)
    unsure = Decision("tools", ("path notes/a.md",), 0.5, None)
    tools, named, call = candidates_for(inp, catalog(), intent, {}, ranking(catalog(), text, intent), unsure)
    assert call is not None and call.ok and named.verb == "read"
    asked = planner_model.requests[0]["json"]["response_format"]["schema"]["properties"]["verb"]["enum"]
    assert "read" in asked and "none" in asked, "the verb comes from a closed list"
    assert tools[0].name == "read_files"


def test_a_garbled_intent_reply_keeps_the_deterministic_intent(planner_model, workspace):
    planner_model.replies.append(completion("no idea"))
    planner_model.replies.append(plan(("read_files", {"paths": ["notes/a.md"]}), final="${step1.count}"))
    outcome, _ = turn(workspace, "notes/a.md, last 2 lines please")
    assert outcome.final_kind == "answer" and outcome.trace["intent"]["verb"] is None


def test_a_recognised_verb_needs_no_intent_call(planner_model, workspace):
    planner_model.replies.append(plan(("read_files", {"paths": ["notes/a.md"]}), final="${step1.count}"))
    outcome, _ = turn(workspace, "read notes/a")
    assert outcome.model_calls == 1 and "intent_from_model" not in outcome.trace


def test_fillers_come_from_the_fast_tier(planner_model, workspace):
    planner_model.replies.append(
        completion(
            json.dumps(
                {
                    "steps": [
                        {"tool": "read_files", "args": {"paths": ["notes/b.md"]}},
                        {"tool": "write_files", "args": {"path": "summary.md", "content": "${FILLER:summary}"}},
                    ],
                    "fillers": {"summary": {"prompt": "Summarize: ${step1.entries.0.content}", "default": "none"}},
                    "final_message": "Wrote ${step2.path}",
                }
            )
        )
    )
    planner_model.replies.append(completion("Call Ada."))
    outcome, _ = turn(workspace, "write a summary of notes/b.md to summary.md")
    assert outcome.text == "Wrote summary.md" and (workspace / "summary.md").read_text() == "Call Ada."
    assert "TODO: call Ada" in planner_model.requests[1]["json"]["messages"][1]["content"]
    assert outcome.model_calls == 2


def test_a_bad_reference_in_the_final_message_does_not_stop_the_plan(planner_model, workspace):
    planner_model.replies.append(plan(("find_files", {"pattern": "*.md"}), final="There are ${step2.count} files."))
    outcome, _ = turn(workspace, "how many markdown or text files are there?")
    assert (outcome.final_kind, outcome.layer, outcome.model_calls) == ("answer", "engine", 1)
    assert outcome.text.startswith("2 result(s):"), "the answer shows the result instead"
    assert "bad_reference" in outcome.trace["attempts"][0]["validation"][0]


def test_a_final_message_without_references_gives_way_to_the_result(planner_model, workspace):
    planner_model.replies.append(plan(("read_files", {"paths": ["notes/b.md"]}), final="It has 12 lines."))
    outcome, _ = turn(workspace, "read notes/b")
    assert "TODO: call Ada" in outcome.text and "12 lines" not in outcome.text


def test_a_plan_without_steps_is_a_plain_answer(planner_model, workspace):
    planner_model.replies.append(plan(final="There is nothing to read."))
    outcome, _ = turn(workspace, "read my notes and tell me what matters most")
    assert (outcome.final_kind, outcome.text) == ("answer", "There is nothing to read.")


def test_a_planning_model_that_is_down_ends_in_error(planner_model, workspace):
    planner_model.replies.append(Reply(status=503, json_body={"error": {"message": "down"}}))
    outcome, _ = turn(workspace, "read notes/a")
    assert outcome.final_kind == "error" and "model call failed" in outcome.text


def test_greetings_are_answered_without_any_model(planner_model, workspace):
    outcome, _ = turn(workspace, "thanks!")
    assert (outcome.layer, outcome.model_calls, outcome.text) == ("pre_fastpath", 0, "You're welcome.")
    assert planner_model.requests == []


def test_an_empty_catalog_is_a_clear_error(planner_model, workspace, tmp_path, settings):
    empty = tmp_path / "no-executors"
    empty.mkdir()
    settings.METNOS_EXECUTORS_DIR = str(empty)
    outcome, _ = turn(workspace, "read notes/a.md")
    assert outcome.final_kind == "error" and "catalog is empty" in outcome.text


def action(**body) -> Reply:
    return completion(json.dumps(body))


def test_react_mode_calls_the_model_once_per_step(planner_model, workspace):
    planner_model.replies.extend(
        [
            action(tool="read_files", args={"paths": ["notes/a.md"], "tail_lines": 1}),
            action(final="The last line is line 4."),
        ]
    )
    outcome, steps = turn(workspace, "read notes/a.md and tell me its last line", mode="react")
    assert (outcome.final_kind, outcome.layer, outcome.model_calls) == ("answer", "react", 2)
    assert outcome.text == "The last line is line 4."
    second = planner_model.requests[1]["json"]["messages"]
    assert second[-1]["content"].startswith("Observation: ") and "line 4" in second[-1]["content"]
    assert [s["status"] for s in steps] == ["started", "done"]


def test_react_mode_breaks_a_loop_and_refuses_what_the_guard_blocks(planner_model, workspace):
    planner_model.replies.extend([action(tool="read_files", args={"paths": ["../secret.txt"]})] * 3)
    outcome, _ = turn(workspace, "read ../secret.txt", mode="react")
    assert outcome.final_kind == "loop_break"
    assert "blocked_guard" in planner_model.requests[1]["json"]["messages"][-1]["content"]


def tool_call(name: str, args: dict, call_id: str) -> Reply:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}],
    }
    return Reply(
        json_body={
            "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        }
    )


def test_react_mode_uses_native_tool_calls_where_the_provider_has_them(planner_model, workspace):
    model = ChatModel.objects.get(name="scripted")
    model.supports_tools = True
    model.save()
    planner_model.replies.extend(
        [tool_call("read_files", {"paths": ["notes/a.md"], "tail_lines": 1}, "call_1"), completion("It is line 4.")]
    )
    outcome, _ = turn(workspace, "read notes/a.md and tell me its last line", mode="react")
    assert (outcome.final_kind, outcome.text, outcome.model_calls) == ("answer", "It is line 4.", 2)
    assert outcome.trace["native_tools"] is True
    first = planner_model.requests[0]["json"]
    assert "response_format" not in first and first["tools"][0]["function"]["name"] == "read_files"
    sent = planner_model.requests[1]["json"]["messages"]
    assert sent[-2]["tool_calls"][0]["id"] == "call_1", "the call goes back with its id"
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "call_1" and "line 4" in sent[-1]["content"]


class WritesNeedApproval:
    def needs_approval(self, name: str, capabilities: tuple[str, ...], args: dict) -> bool:
        return "fs:write" in capabilities


def traced(turn_id: str) -> tuple[list, list]:
    """What the trace store kept of a turn's steps: (index, status) per step.executed and
    (tool, ok) per tool.called."""
    events = TraceEvent.objects.filter(turn_id=turn_id)
    executed = sorted((e.payload["index"], e.payload["status"]) for e in events.filter(type="step.executed"))
    called = sorted((e.payload["tool"], e.payload["ok"]) for e in events.filter(type="tool.called"))
    return executed, called


def test_a_turn_resumed_after_an_approval_keeps_its_steps_in_the_trace(planner_model, workspace):
    planner_model.replies.append(
        plan(("read_files", {"paths": ["notes/a.md"]}), ("write_files", {"path": "copy.md", "content": "x"}))
    )
    base = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, actor="alice",
                     text="read notes/a.md and write x to copy.md", workspace_path=workspace,
                     permissions=WritesNeedApproval())  # fmt: skip
    waiting = run_turn(base)
    assert (waiting.final_kind, waiting.pending["step"]) == ("awaiting", 2)
    assert traced(base.turn_id) == ([(1, "done")], [("read_files", True), ("write_files", False)])

    resumed = run_turn(replace(base, stopped={**waiting.pending, "decision": "allow"}))
    assert (resumed.final_kind, (workspace / "copy.md").read_text()) == ("answer", "x")
    executed, called = traced(base.turn_id)
    assert executed == [(1, "done"), (2, "done")], "the step that ran once allowed is in the trace"
    assert called == [("read_files", True), ("write_files", False), ("write_files", True)], (
        "the read that ran before the wait is not counted again"
    )


def test_a_react_turn_keeps_its_steps_in_the_trace(planner_model, workspace):
    planner_model.replies.extend(
        [action(tool="read_files", args={"paths": ["notes/a.md"]}),
         action(tool="read_files", args={"paths": ["notes/missing.md"]}), action(final="Done.")]
    )  # fmt: skip
    turn_id = str(uuid.uuid4())
    outcome = run_turn(TurnInput(turn_id=turn_id, session_id=str(uuid.uuid4()), user_id=1, text="read notes/a.md",
                                 workspace_path=workspace, mode="react"))  # fmt: skip
    assert (outcome.final_kind, outcome.layer) == ("answer", "react")
    assert traced(turn_id) == ([(1, "done"), (2, "failed")], [("read_files", False), ("read_files", True)])


def test_a_new_request_after_a_question_is_not_taken_as_its_answer(planner_model, workspace):
    waiting, _ = turn(workspace, "delete the file")
    assert waiting.final_kind == "ask"
    outcome, _ = turn(workspace, "read notes/a.md", answers={**waiting.pending, "turn_id": "t-waiting"})
    assert outcome.final_kind == "answer" and "line 4" in outcome.text
    assert "resumed_from" not in outcome.trace


def test_a_models_plan_cannot_claim_several_pipelines(planner_model, workspace):
    """`pipelines` is the deterministic layers' (planner.compound): a model that writes it still
    proposes one pipeline, so a second action after the first is refused before anything runs."""
    two = {"steps": [{"tool": "delete_files", "args": {"paths": ["notes/a.md"]}},
                     {"tool": "delete_files", "args": {"paths": ["notes/b.md"]}}],
           "final_message": "", "pipelines": [2]}  # fmt: skip
    planner_model.replies.extend([completion(json.dumps(two)), completion(json.dumps(two))])
    outcome, _ = turn(workspace, "get rid of notes/a.md and notes/b.md somehow, whatever it takes")
    problems = [p for a in outcome.trace["attempts"] for p in a.get("validation", [])]
    assert "step 2: pipeline_already_closed: step 1 already closed the pipeline; nothing may follow it" in problems
    assert (workspace / "notes/a.md").exists() and (workspace / "notes/b.md").exists()
