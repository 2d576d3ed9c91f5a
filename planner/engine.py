"""The engine (L2 + L3): propose one plan, validate it, execute it deterministically, recover
once, and otherwise end honestly.

    candidates (pre-filter) → propose (one model call) → validate ─ problems → re-propose once
        → execute ─ ok → answer (layer engine)
                   └ failed → classify ─ out_of_scope → terminator
                                        └ else → re-propose once without what failed → execute
                                                 ─ ok → answer (layer recovery) / failed → terminator
Caps end the turn as cap_steps / cap_same_executor."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.conf import settings

from core.clock import now
from core.events import bus
from core.ir import ChatRequest, Message, SystemPrompt, Usage
from planner import deterministic, followup, llm, proposer, recovery, terminator
from planner.candidates import allowed as permitted
from planner.catalog import Catalog, Executor
from planner.execution import Execution, StepRecord, execute
from planner.executors.base import ExecContext
from planner.intent import Intent
from planner.plan import Plan, parse, resolve
from planner.scratchpad import Scratchpad
from planner.turn import Sink, TurnInput, TurnOutcome
from planner.validator import Problem, validate
from routing.chain import RouteDecision
from routing.registry import current

CAP_KINDS = ("cap_steps", "cap_same_executor")


@dataclass
class Tally:
    usage: Usage = field(default_factory=Usage)
    cost: Decimal = Decimal("0")
    model_ms: int = 0
    calls: int = 0

    def add(self, result: llm.LLMResult) -> None:
        self.usage = llm.add_usage(self.usage, result.usage)
        self.cost += result.cost
        self.model_ms += result.model_ms
        self.calls += 1

    def outcome(
        self, final_kind: str, text: str, layer: str, *, decision: RouteDecision | None, trace: dict, error: str = ""
    ) -> TurnOutcome:
        return TurnOutcome(
            final_kind=final_kind,
            text=text,
            layer=layer,
            usage=self.usage,
            cost_usd=self.cost,
            model_ms=self.model_ms,
            model_calls=self.calls,
            route=decision.to_dict() if decision else {},
            error=error,
            trace=trace,
        )


def _filler(inp: TurnInput, tally: Tally, ids: dict):
    """${FILLER:x}: a short text from the fast tier; its default when that fails."""
    registry = current()
    model = registry.get(settings.METNOS_FILLER_MODEL)

    def fill(name: str, spec: dict, source) -> str:
        default = str(resolve(spec.get("default", ""), source))
        if model is None or not model.configured:
            return default
        prompt = str(resolve(spec.get("prompt", name), source))
        request = ChatRequest(
            model=model.api_model,
            system=SystemPrompt(stable="Reply with the requested text only."),
            messages=(Message.text("user", prompt[:6000]),),
            max_tokens=model.budget("answer"),
            temperature=0.2,
        )
        result = llm.call(request, model, role="worker", ids=ids, user_id=inp.user_id)
        tally.add(result)
        return result.text.strip() if result.ok and result.text.strip() else default

    return fill


def run(
    inp: TurnInput,
    *,
    intent: Intent,
    candidates: list[Executor],
    catalog: Catalog,
    decision: RouteDecision,
    sink: Sink,
    ids: dict,
    excluded: Callable[[dict], bool] | None = None,
) -> TurnOutcome:
    """`excluded(plan)` says a plan is an anti-autopath (failed repeatedly for this kind of
    request): it is treated as invalid, so the proposer is asked once for another."""
    tally = Tally()
    trace: dict = {"candidates": [c.name for c in candidates], "intent": intent.__dict__, "attempts": []}
    ctx, runtime = context(inp)
    fill = _filler(inp, tally, ids)
    allowed = list(candidates)
    problems: list[str] = []
    validation_cause = "no_plan"
    layer = "engine"
    failure: tuple[str, str] | None = None  # the failed step's (cause, detail), once recovery runs

    def outcome(final_kind: str, text: str, out_layer: str, error: str = "") -> TurnOutcome:
        return tally.outcome(final_kind, text, out_layer, decision=decision, trace=trace, error=error)

    def waiting(final_kind: str, question: str, out_layer: str) -> TurnOutcome:
        """The turn stops to ask the user; their answer resumes it (planner.dispatch)."""
        pending = {"kind": final_kind, "request": inp.text, "question": question}
        return replace(outcome(final_kind, question, out_layer), pending=pending)

    def dead_end(cause: str, detail: str) -> TurnOutcome:
        end = terminator.terminate(cause=cause, detail=detail, intent=intent, request_text=inp.text)
        trace["terminator"] = {"cause": cause, "detail": detail, "suggestion": end.suggestion}
        if cause == "missing_input":
            return waiting("needs_inputs", end.message, "terminator")
        return outcome("answer", end.message, "terminator")

    cold = deterministic.plan_for(inp, allowed, decision, permitted(inp, list(catalog.executors.values())))
    if cold is not None:  # a tool the ranking left out but the turn may use: "how much … in budget.csv" computes
        named = {c.name for c in allowed}
        allowed += [catalog.executors[t] for t in dict.fromkeys(s.tool for s in cold.steps) if t not in named]
    for attempt in range(2):  # the first proposal and at most one re-proposal
        if attempt == 0 and cold is not None:
            plan, record = cold, {"raw": "", "problems_in": [], "cold_path": True}
            trace["attempts"].append(record)
        else:
            proposal = proposer.propose(
                request_text=inp.text,
                intent=intent,
                candidates=allowed,
                model=decision.model,
                ids=ids,
                user_id=inp.user_id,
                problems=problems,
                workspace=inp.workspace_path,
                slot=decision.slot,
                system=inp.system,
                role=inp.role,
                history=inp.history,
                summary=inp.summary,
            )
            tally.add(proposal.result)
            record = {"raw": proposal.raw[:4000], "problems_in": problems}
            trace["attempts"].append(record)
            if proposal.result.error is not None:
                # Nothing has run yet (plans are proposed before any step): when the model could not
                # be reached, dispatch may route again and plan with the next model.
                trace["unreachable_before_answer"] = proposal.result.error.kind in ("network", "timeout")
                return outcome("error", llm.user_facing(proposal.result.error), layer, str(proposal.result.error))
            if proposal.plan is None:
                problems = [f"the reply was not a usable plan: {proposal.problem}"]
                validation_cause = "no_plan"
                continue
            plan = proposal.plan
        bus.emit("plan.proposed", {"attempt": attempt + 1, "plan": plan.to_dict()}, **ids)
        found = validate(
            plan, catalog, allowed={c.name for c in allowed}, request_text=inp.text, workspace=inp.workspace_path
        )
        bus.emit("plan.validated", {"attempt": attempt + 1, "problems": [str(p) for p in found]}, **ids)
        record["plan"] = plan.to_dict()
        record["validation"] = [str(p) for p in found]
        found = [p for p in found if p.blocking]
        if not found and excluded is not None and excluded(plan.to_dict()):
            found = [Problem(1, "excluded_plan", "this plan failed repeatedly for such requests; propose another")]
            record["validation"].append(str(found[0]))
        if found:
            problems = [str(p) for p in found]
            causes = {recovery.classify(p.error_class) for p in found}
            validation_cause = next((c for c in ("out_of_scope", "missing_input") if c in causes), "no_plan")
            continue
        if inp.max_steps is not None and len(plan.steps) > inp.max_steps:
            limit = f"I stopped: the plan has {len(plan.steps)} steps; the limit here is {inp.max_steps}."
            return outcome("cap_steps", limit, layer)
        if not plan.steps:
            if failure is not None:  # a step failed and the re-proposal runs nothing: words now would cover it
                return replace(dead_end(*failure), plan=None)
            said = llm.model_text(plan.final_message).strip()
            if said.endswith("?"):
                return waiting("ask", said, layer)  # the model asks to clarify
            return outcome("answer", said or "Done.", layer)
        execution = _execute(plan, catalog, ctx, inp, runtime, fill, Reporter(sink, ids))
        record["steps"] = [s.to_dict() for s in execution.steps]
        ended = _conclude(execution, plan, inp, tally, layer=layer, decision=decision, trace=trace)
        if ended is not None:
            return ended
        failed = execution.failed
        cause = recovery.classify(failed.error_class or "crashed")
        record["recovery"] = {"failed_step": failed.index, "error_class": failed.error_class, "cause": cause}
        detail = _failure(failed)
        if not recovery.retryable(cause) or attempt == 1:
            return replace(dead_end(cause, detail), plan=plan.to_dict())
        problems = [detail]
        reader = catalog.get("scratchpad_read")
        if reader and reader not in allowed and any("scratchpad_id" in (s.observation or {}) for s in execution.steps):
            allowed = [*allowed, reader]  # a large result went to the scratchpad: the next plan may read it
        if cause == "wrong_tool":
            allowed = [c for c in allowed if c.name != failed.tool] or allowed
        layer, failure = "recovery", (cause, detail)
    return dead_end(validation_cause, problems[0] if problems else "no plan")


def run_remembered(inp: TurnInput, *, plan: Plan, layer: str, catalog: Catalog, sink: Sink, ids: dict) -> TurnOutcome:
    """A plan from memory (fastpath or autopath), already bound to this request's values and
    validated: executed deterministically, with no proposer call. Fillers, if the plan has any,
    still ask the fast tier. A failed step ends as `error` here; dispatch then falls through to
    the engine, so the user still gets an answer."""
    tally = Tally()
    ctx, runtime = context(inp)
    execution = _execute(plan, catalog, ctx, inp, runtime, _filler(inp, tally, ids), Reporter(sink, ids))
    trace = {"memory_steps": [s.to_dict() for s in execution.steps]}
    # No model was routed to: memory answered.
    ended = _conclude(execution, plan, inp, tally, layer=layer, decision=None, trace=trace)
    if ended is not None:
        return ended
    failed = execution.failed
    detail = f"{execution.status}" if failed is None else f"step {failed.index} ({failed.tool}): {failed.error_class}"
    return replace(tally.outcome("error", detail, layer, decision=None, trace=trace, error=detail), plan=plan.to_dict())


def stop_to_wait(
    base: TurnOutcome, inp: TurnInput, *, step: int, tool: str, args: dict, wait: dict, **state
) -> TurnOutcome:
    """The turn stops at step `step`: before a sensitive tool that needs the person's approval
    (`wait = {"kind": "approval"}`), or after a run_task whose subagent must answer first
    (`wait = {"kind": "subagent", "turn_id", "profile"}`). Everything needed to go on (`state`:
    the plan and results, or ReAct's loop) is kept in the turn's `pending`; no worker waits."""
    pending = {"kind": wait.get("kind", "approval"), "request_id": uuid.uuid4().hex, "request": inp.text,
               "tool": tool, "args": args, "step": step, "layer": base.layer, **state}  # fmt: skip
    if pending["kind"] == "subagent":
        pending |= {"child_turn_id": wait["turn_id"], "profile": wait.get("profile", "")}
        text = f"Step {step} handed a task to the {pending['profile']} subagent; waiting for its answer."
    else:
        text = f"Step {step} wants to run {tool}: allow it?"
    return replace(base, text=text, pending=pending)


def _awaiting(base: TurnOutcome, plan: Plan, execution: Execution, inp: TurnInput) -> TurnOutcome:
    step = execution.awaiting
    results = {str(k): v for k, v in execution.results.items()}
    stopped = stop_to_wait(base, inp, step=step["step"], tool=step["tool"], args=step["args"], wait=step["wait"],
                           plan=plan.to_dict(), results=results)  # fmt: skip
    return replace(stopped, plan=plan.to_dict())


def resume_stopped(inp: TurnInput, *, catalog: Catalog, sink: Sink, ids: dict) -> TurnOutcome:
    """Go on with a plan that stopped for an approval or a subagent: the steps that ran keep their
    results; the waiting step runs (allow), is refused (deny), or takes the subagent's answer as
    its result; the rest follows. A later step may stop the plan again."""
    pending = inp.stopped or {}
    tally = Tally()
    layer = pending.get("layer") or "engine"
    plan = parse(pending["plan"])
    ctx, runtime = context(inp)
    prior = {int(k): v for k, v in (pending.get("results") or {}).items()}
    decisions = {}
    if pending.get("kind") == "approval":
        decisions[int(pending["step"])] = "deny" if pending.get("decision") == "deny" else "allow"
    execution = _execute(plan, catalog, ctx, inp, runtime, _filler(inp, tally, ids), Reporter(sink, ids),
                         prior=prior, decisions=decisions)  # fmt: skip
    trace = {"approval": {"step": pending["step"], "tool": pending["tool"], "decision": pending.get("decision")},
             "steps": [s.to_dict() for s in execution.steps]}  # fmt: skip
    ended = _conclude(execution, plan, inp, tally, layer=layer, decision=None, trace=trace)
    if ended is not None:
        return ended
    detail = _failure(execution.failed)
    return replace(tally.outcome("error", detail, layer, decision=None, trace=trace, error=detail), plan=plan.to_dict())


def _conclude(
    execution: Execution, plan: Plan, inp: TurnInput, tally: Tally, *, layer: str, decision, trace: dict
) -> TurnOutcome | None:
    """The one ladder from an execution to the turn's outcome: the plan waits (for a person or a
    subagent), answered, was stopped by a person's denial, or hit a cap. None when a step failed:
    the caller decides (the engine recovers once; elsewhere the turn ends in error)."""

    def end(final_kind: str, text: str) -> TurnOutcome:
        return tally.outcome(final_kind, text, layer, decision=decision, trace=trace)

    if execution.status == "awaiting":
        return _awaiting(end("awaiting", ""), plan, execution, inp)
    if execution.status == "ok":
        kept = [s.observation["scratchpad_id"] for s in execution.steps if "scratchpad_id" in (s.observation or {})]
        # what the next turn's follow-ups use, with the request as the plan read it («del diario» as the path)
        trace["facts"] = {**followup.facts(plan, execution.results, kept), "plan_request": inp.text}
        return replace(end("answer", execution.final_text), plan=plan.to_dict(), plan_ok=True)
    failed = execution.failed
    if failed is not None and failed.error_class == "denied":
        text = f"You denied {failed.tool}, so I stopped at step {failed.index}: it and the steps after it did not run."
        return replace(end("answer", text), plan=plan.to_dict())
    if execution.status in CAP_KINDS:
        return end(execution.status, f"I stopped: the plan hit the {execution.status} limit.")
    return None


def _failure(step: StepRecord) -> str:
    return f"step {step.index} ({step.tool}) failed: {step.observation.get('error', step.error_class)}"


def context(inp: TurnInput) -> tuple[ExecContext, dict]:
    """Where the executors act (the workspace, the turn's scratchpad and the stores agents
    supplies) and the ${RUNTIME:…} values. Both modes use it."""
    earlier = (inp.previous["plan_turn_id"],) if inp.previous.get("scratchpad") else ()  # its large results
    ctx = ExecContext(
        workspace=inp.workspace_path,
        turn_id=inp.turn_id,
        actor=inp.actor,
        lang=inp.lang,
        scratchpad=Scratchpad(inp.turn_id, earlier=earlier),
        memory=inp.memory,
        skills=inp.skills,
        permissions=inp.permissions,
        todos=inp.todos,
        hooks=inp.hooks,
        delegate=inp.delegate,
        recurring=inp.recurring,
        checkpoints=inp.checkpoints,
        read_only=inp.read_only,
    )
    runtime = {"actor": inp.actor, "lang": inp.lang, "channel": "web", "now": now().isoformat(timespec="seconds")}
    return ctx, runtime


class Reporter:
    """Where a turn's steps are told, in both modes: the sink (the person sees them live) and the
    bus (the trace store keeps a step.executed per finished step and a tool.called per action)."""

    def __init__(self, sink: Sink, ids: dict):
        self.sink, self.ids = sink, ids

    def step(self, event: dict) -> None:
        self.sink.on_step(event)
        if event["status"] in ("done", "failed", "blocked"):
            bus.emit("step.executed", event, **self.ids)

    def tool_called(self, tool: str, *, ok: bool, error_class: str | None, latency_ms: float, args: dict) -> None:
        bus.emit(
            "tool.called",
            {"tool": tool, "ok": ok, "error_class": error_class, "latency_ms": round(latency_ms, 2),
             "arg_keys": sorted(args)},
            **self.ids,
        )  # fmt: skip


def _execute(
    plan: Plan,
    catalog: Catalog,
    ctx: ExecContext,
    inp: TurnInput,
    runtime: dict,
    fill,
    reporter: Reporter,
    *,
    prior: dict[int, dict] | None = None,
    decisions: dict[int, str] | None = None,
) -> Execution:
    """`prior`: the results of the steps that ran before the plan stopped (their tool.called is
    already in the trace); `decisions`: the person's answer for a step that waited."""
    execution = execute(
        plan,
        catalog=catalog,
        ctx=ctx,
        request_text=inp.text,
        runtime=runtime,
        fill=fill,
        on_step=reporter.step,
        prior=prior,
        decisions=decisions,
    )
    for step in execution.steps:
        if step.index not in (prior or {}):
            reporter.tool_called(
                step.tool, ok=step.ok, error_class=step.error_class, latency_ms=step.latency_ms, args=step.raw_args
            )
    return execution
