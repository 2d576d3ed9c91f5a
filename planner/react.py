"""ReAct mode: one model call per step. The model sees the request and every observation so far
and answers with the next action, `{"tool": NAME, "args": {...}}`, or with
`{"final": TEXT}`. Decoding is schema-constrained where the model supports it. The same vaglio,
caps and duplicate-read guard apply as in the engine. This mode is the baseline the engine is
measured against (bench/engine_vs_react.py)."""

from __future__ import annotations

import json
from collections import Counter

from core.ir import ChatRequest, Message, SystemPrompt
from planner import llm
from planner.catalog import Executor
from planner.engine import Tally
from planner.executor import DUPLICATE_GUARDED, MAX_SAME_EXECUTOR, MAX_STEPS, act
from planner.executors.base import ExecContext
from planner.proposer import describe_tools, extract_json, step_variants
from planner.scratchpad import Scratchpad
from planner.turn import Sink, TurnInput, TurnOutcome
from routing.chain import RouteDecision

ACTION_MAX_TOKENS = 200
REPEATS_BEFORE_LOOP_BREAK = 3


def action_schema(candidates: list[Executor]) -> dict:
    variants = step_variants(candidates)
    variants.append({"type": "object", "properties": {"final": {"type": "string"}}, "required": ["final"]})
    return {"anyOf": variants}


def _prompt(candidates: list[Executor]) -> str:
    tools = describe_tools(candidates)
    return (
        "You act on the user's workspace one step at a time. Reply with ONE JSON object: either the next "
        'action {"tool": NAME, "args": {...}} or, when you can answer, {"final": TEXT}.\n'
        f"Tools:\n{tools}\nPaths are relative to the workspace. After each action you get its observation."
    )


def run(inp: TurnInput, *, candidates: list[Executor], decision: RouteDecision, sink: Sink, ids: dict) -> TurnOutcome:
    model = decision.model
    tally = Tally()
    ctx = ExecContext(
        workspace=inp.workspace_path, turn_id=inp.turn_id, actor=inp.actor, scratchpad=Scratchpad(inp.turn_id)
    )
    by_name = {c.name: c for c in candidates}
    history: list[Message] = [Message.text("user", inp.text)]
    steps: list[dict] = []
    uses: Counter[str] = Counter()
    seen: dict[str, int] = {}
    last_action, repeats = None, 0
    trace: dict = {"candidates": [c.name for c in candidates], "mode": "react", "steps": steps}

    def outcome(final_kind: str, text: str, error: str = "") -> TurnOutcome:
        return tally.outcome(final_kind, text, "react", decision=decision, trace=trace, error=error)

    for index in range(1, MAX_STEPS + 2):
        if index > MAX_STEPS:
            return outcome("cap_steps", "I stopped: the turn hit the cap_steps limit.")
        request = ChatRequest(
            model=model.api_model,
            system=SystemPrompt(stable=_prompt(candidates)),
            messages=tuple(history),
            max_tokens=min(ACTION_MAX_TOKENS, model.max_output_tokens),
            temperature=0.0,
            response_format={"type": "json_object", "schema": action_schema(candidates)}
            if model.supports_structured_output
            else None,
        )
        result = llm.call(request, model, role="planner", ids=ids, user_id=inp.user_id)
        tally.add(result)
        if result.error is not None:
            return outcome("error", llm.user_facing(result.error), str(result.error))
        try:
            action = json.loads(extract_json(result.text))
        except json.JSONDecodeError:
            action = None
        if not isinstance(action, dict):
            history += [
                Message.text("assistant", result.text[:500]),
                Message.text("user", "Observation: reply with one JSON object."),
            ]
            steps.append({"index": index, "error": "not JSON"})
            continue
        if "final" in action:
            return outcome("answer", str(action["final"]))
        executor = by_name.get(action.get("tool"))
        args = action.get("args") if isinstance(action.get("args"), dict) else {}
        signature = json.dumps([action.get("tool"), args], sort_keys=True, default=str)
        repeats = repeats + 1 if signature == last_action else 1
        last_action = signature
        if repeats >= REPEATS_BEFORE_LOOP_BREAK:
            return outcome("loop_break", "I stopped: I was repeating the same action without progress.")
        event = {"index": index, "tool": action.get("tool"), "status": "started", "error_class": None}
        sink.on_step(event)
        if executor is None:
            observation = {"ok": False, "error_class": "unknown_tool", "error": f"no tool {action.get('tool')!r}"}
        elif uses[executor.name] >= MAX_SAME_EXECUTOR:
            return outcome("cap_same_executor", "I stopped: the turn hit the cap_same_executor limit.")
        elif executor.name in DUPLICATE_GUARDED and signature in seen:
            observation = {
                "ok": True,
                "note": f"you already have this data at step {seen[signature]}; give the final answer",
            }
        else:
            uses[executor.name] += 1
            acted = act(executor, args, ctx=ctx, index=index, request_text=inp.text)
            observation = acted.observation
            if acted.result.get("ok"):
                seen[signature] = index
        sink.on_step(
            {
                **event,
                "status": "done" if observation.get("ok") else "failed",
                "error_class": observation.get("error_class"),
            }
        )
        steps.append({"index": index, "tool": action.get("tool"), "args": args, "ok": bool(observation.get("ok"))})
        history += [
            Message.text("assistant", json.dumps(action)[:1000]),
            Message.text("user", "Observation: " + json.dumps(observation, default=str)[:1500]),
        ]
    return outcome("cap_steps", "I stopped: the turn hit the cap_steps limit.")
