"""ReAct mode: one model call per step. The model sees the request and every observation so far
and answers with the next action or with the final answer.

Two ways to ask for the action:
- native tool calling, on cloud providers (OpenAI, Anthropic, OpenRouter): the candidates go as
  tools, the reply's tool_use block is the action, its observation goes back as a tool_result,
  and a reply without a tool call is the answer;
- JSON, on the local model (llama.cpp emulates tool calls in its chat template, which a small
  model follows worse than a grammar): `{"tool": NAME, "args": {...}}` or `{"final": TEXT}`,
  schema-constrained where the model supports it.
The same vaglio, caps and duplicate-read guard apply as in the engine. This mode is the baseline
the engine is measured against (bench/engine_vs_react.py)."""

from __future__ import annotations

import json
from collections import Counter

from core.ir import ChatRequest, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock
from planner import conversation, followup, llm
from planner.catalog import Executor, catalog
from planner.engine import Reporter, Tally, context, stop_to_wait
from planner.execution import DUPLICATE_GUARDED, MAX_SAME_EXECUTOR, MAX_STEPS, act
from planner.plan import PlanError, parse
from planner.proposer import Mentions, describe_tools, extract_json, mentions, step_variants
from planner.turn import Sink, TurnInput, TurnOutcome
from routing.chain import RouteDecision

REPEATS_BEFORE_LOOP_BREAK = 3


def action_schema(candidates: list[Executor], found: Mentions | None = None) -> dict:
    variants = step_variants(candidates, found)
    variants.append({"type": "object", "properties": {"final": {"type": "string"}}, "required": ["final"]})
    return {"anyOf": variants}


def _prompt(candidates: list[Executor], native: bool) -> str:
    if native:
        return (
            "You act on the user's workspace one step at a time with the tools you have. Call one tool per "
            "reply; after each call you get its result. When you can answer, reply with the answer and no "
            "tool call. Paths are relative to the workspace."
        )
    tools = describe_tools(candidates)
    return (
        "You act on the user's workspace one step at a time. Reply with ONE JSON object: either the next "
        'action {"tool": NAME, "args": {...}} or, when you can answer, {"final": TEXT}.\n'
        f"Tools:\n{tools}\nPaths are relative to the workspace. After each action you get its observation."
    )


def _facts(steps: list[dict], observed: dict[int, dict]) -> dict:
    """The loop's actions that ran, as the facts a plan leaves (planner.followup.facts)."""
    ran = [s for s in steps if s.get("ok") and s.get("tool") and s["index"] in observed]
    try:
        plan = parse({"steps": [{"tool": s["tool"], "args": s.get("args") or {}} for s in ran], "final_message": ""})
    except PlanError:
        return {}
    results = {n: observed[s["index"]] for n, s in enumerate(ran, 1)}
    kept = [o["scratchpad_id"] for o in observed.values() if "scratchpad_id" in o]
    return followup.facts(plan, results, kept)


def _for_model(tool: str | None, observation: dict) -> dict:
    """What the model is shown of a result: a file read has its lines numbered (from the first
    line returned), so an edit can name them; the person's answer shows them unnumbered."""
    if tool != "read_files" or not isinstance(observation.get("entries"), list):
        return observation
    entries = []
    for entry in observation["entries"]:
        if isinstance(entry, dict) and isinstance(entry.get("content"), str):
            first = int(entry.get("first_line") or 1)
            numbered = "\n".join(f"{n:>5}\t{line}" for n, line in enumerate(entry["content"].splitlines(), first))
            entry = {**entry, "content": numbered}
        entries.append(entry)
    return {**observation, "entries": entries}


def uses_native_tools(model) -> bool:
    return model.supports_tools and not model.is_local


def _next_action(result: llm.LLMResult, native: bool) -> tuple[dict | None, ToolUseBlock | None]:
    """The reply as {"tool", "args"} or {"final"}, with its tool_use block when native; None when
    it is neither."""
    if native:
        if result.tool_uses:
            use = result.tool_uses[0]
            return {"tool": use.name, "args": use.input}, use
        return {"final": result.text}, None
    try:
        action = json.loads(extract_json(result.text))
    except json.JSONDecodeError:
        return None, None
    return (action if isinstance(action, dict) else None), None


def run(
    inp: TurnInput,
    *,
    candidates: list[Executor],
    decision: RouteDecision,
    sink: Sink,
    ids: dict,
    state: dict | None = None,
) -> TurnOutcome:
    """`state` resumes a loop that stopped for an approval (pending["react"]): its history and
    counters come back, the awaited action runs (or is denied) and the loop goes on."""
    model = decision.model
    tally = Tally()
    reporter = Reporter(sink, ids)
    ctx, _ = context(inp)
    by_name = {c.name: c for c in candidates}
    state = state or {}
    history: list[Message] = [Message.from_dict(m) for m in state.get("history", [])]
    steps: list[dict] = state.get("steps", [])
    uses: Counter[str] = Counter(state.get("uses", {}))
    seen: dict[str, int] = state.get("seen", {})
    last_action, repeats = state.get("last_action"), state.get("repeats", 0)
    trace: dict = {"candidates": [c.name for c in candidates], "mode": "react", "steps": steps}
    observed_by_step: dict[int, dict] = {}

    def outcome(final_kind: str, text: str, error: str = "") -> TurnOutcome:
        return tally.outcome(final_kind, text, "react", decision=decision, trace=trace, error=error)

    native = uses_native_tools(model)
    trace["native_tools"] = native
    found = mentions(inp.text, inp.workspace_path)

    def offered() -> tuple[tuple[ToolSpec, ...], dict | None, dict]:
        """The tools as this model takes them: native specs, or the JSON action grammar."""
        schema = action_schema(list(by_name.values()), found)
        specs = tuple(ToolSpec(c.name, c.description, c.args_schema) for c in by_name.values()) if native else ()
        grammar = {"type": "json_object", "schema": schema} if model.supports_structured_output and not native else None
        return specs, grammar, schema

    tools, json_format, schema = offered()
    if not history:  # a fresh loop: the session's earlier turns, then the request (planner.conversation)
        fixed = _prompt(candidates, native) + json.dumps([t.input_schema for t in tools] if native else schema)
        history = list(conversation.fit(inp.history, inp.text, model=model, reserved=model.budget("action"),
                                   fixed=fixed, summary=inp.summary).messages)  # fmt: skip

    def take(
        index: int, action: dict, use: ToolUseBlock | None, said: str, decided: str = "", arrived: dict | None = None
    ) -> TurnOutcome | None:
        """Run one action and add it and its observation to the history; an outcome when the
        loop must stop (a cap, or an action that waits for approval)."""
        nonlocal history, tools, json_format
        executor = by_name.get(action.get("tool"))
        args = action.get("args") if isinstance(action.get("args"), dict) else {}
        signature = json.dumps([action.get("tool"), args], sort_keys=True, default=str)
        event = {"index": index, "tool": action.get("tool"), "status": "started", "error_class": None}
        reporter.step(event)
        # A subagent's answer coming back is no new call: its action was reported when it started.
        latency_ms, reported = 0.0, executor is not None and arrived is None
        if executor is None:
            observation = {"ok": False, "error_class": "unknown_tool", "error": f"no tool {action.get('tool')!r}"}
        elif uses[executor.name] >= MAX_SAME_EXECUTOR:
            return outcome("cap_same_executor", "I stopped: the turn hit the cap_same_executor limit.")
        elif executor.name in DUPLICATE_GUARDED and signature in seen:
            observation = {
                "ok": True,
                "note": f"you already have this data at step {seen[signature]}; give the final answer",
            }
        elif arrived is not None:  # the subagent this action started has answered
            uses[executor.name] += 1
            observation = arrived
        else:
            acted = act(executor, args, ctx=ctx, index=index, request_text=inp.text, decision=decided)
            wait = acted.result.get("wait") if acted.result.get("ok") else None
            if acted.awaiting or isinstance(wait, dict):
                reporter.step({**event, "status": "awaiting", "error_class": None if wait else "awaiting_approval"})
                reporter.tool_called(executor.name, ok=not acted.awaiting, args=args, latency_ms=acted.latency_ms,
                                     error_class="awaiting_approval" if acted.awaiting else None)  # fmt: skip
                return _awaiting(outcome("awaiting", ""), inp, index, action, use, said, {
                    "history": [m.to_dict() for m in history], "steps": steps, "uses": dict(uses), "seen": seen,
                    "last_action": last_action, "repeats": repeats, "candidates": list(by_name),
                }, wait)  # fmt: skip
            uses[executor.name] += 1
            observation, latency_ms = acted.observation, acted.latency_ms
            if acted.result.get("ok"):
                seen[signature] = index
        ok, error_class = bool(observation.get("ok")), observation.get("error_class")
        reporter.step({**event, "status": "done" if ok else "failed", "error_class": error_class})
        if reported:
            reporter.tool_called(executor.name, ok=ok, error_class=error_class, latency_ms=latency_ms, args=args)
        steps.append({"index": index, "tool": action.get("tool"), "args": args, "ok": ok})
        observed_by_step[index] = observation
        observed = json.dumps(_for_model(action.get("tool"), observation), default=str)[:1500]
        reader = catalog().get("scratchpad_read")
        if "scratchpad_id" in observation and reader is not None and reader.name not in by_name:
            by_name[reader.name] = reader  # the large result is in the scratchpad: now it can be read
            tools, json_format, _ = offered()
        if use is not None:  # native: the call and its result keep their id
            history += [
                Message("assistant", ((TextBlock(said),) if said else ()) + (use,)),
                Message("user", (ToolResultBlock(use.id, observed, is_error=not ok),)),
            ]
        else:
            history += [
                Message.text("assistant", json.dumps(action)[:1000]),
                Message.text("user", "Observation: " + observed),
            ]
        return None

    first = 1
    if state.get("action") is not None:  # the action that waited: the person's answer decides it
        use = ToolUseBlock(**state["use"]) if state.get("use") else None
        decided = "deny" if state.get("decision") == "deny" else "allow"
        stopped = take(state["index"], state["action"], use, state.get("said", ""), decided, state.get("result"))
        if stopped is not None:
            return stopped
        first = state["index"] + 1
    limit = min(MAX_STEPS, inp.max_steps or MAX_STEPS)
    for index in range(first, limit + 2):
        if index > limit:
            return outcome("cap_steps", "I stopped: the turn hit the cap_steps limit.")
        request = ChatRequest(
            model=model.api_model,
            system=inp.system(_prompt(candidates, native)),
            messages=tuple(history),
            tools=tools,
            tool_choice="auto" if native else None,
            max_tokens=model.budget("action"),
            temperature=0.0,
            response_format=json_format,
        )
        result = llm.call(request, model, role=inp.role, ids=ids, user_id=inp.user_id, slot=decision.slot)
        tally.add(result)
        if result.error is not None:
            # before the first action of a fresh loop nothing has run: dispatch may go on with the next model
            trace["unreachable_before_answer"] = not steps and not state and result.error.kind in ("network", "timeout")
            return outcome("error", llm.user_facing(result.error), str(result.error))
        action, use = _next_action(result, native)
        if action is None:
            history += [
                Message.text("assistant", result.text[:500]),
                Message.text("user", "Observation: reply with one JSON object."),
            ]
            steps.append({"index": index, "error": "not JSON"})
            continue
        if "final" in action:
            trace["facts"] = _facts(steps, observed_by_step)  # what the next turn's follow-ups use
            return outcome("answer", llm.model_text(str(action["final"])))
        args = action.get("args") if isinstance(action.get("args"), dict) else {}
        signature = json.dumps([action.get("tool"), args], sort_keys=True, default=str)
        repeats = repeats + 1 if signature == last_action else 1
        last_action = signature
        if repeats >= REPEATS_BEFORE_LOOP_BREAK:
            return outcome("loop_break", "I stopped: I was repeating the same action without progress.")
        stopped = take(index, action, use, result.text)
        if stopped is not None:
            return stopped
    return outcome("cap_steps", "I stopped: the turn hit the cap_steps limit.")


def _awaiting(
    base: TurnOutcome, inp: TurnInput, index: int, action: dict, use, said: str, loop: dict, wait: dict | None = None
) -> TurnOutcome:
    """The loop stops before an action that needs approval, or after one that started a subagent."""
    args = action.get("args") if isinstance(action.get("args"), dict) else {}
    use_dict = {"id": use.id, "name": use.name, "input": use.input} if use is not None else None
    react = {**loop, "index": index, "action": action, "said": said, "use": use_dict}
    return stop_to_wait(base, inp, step=index, tool=action.get("tool"), args=args, wait=wait or {"kind": "approval"},
                        mode="react", react=react)  # fmt: skip
