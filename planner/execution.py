"""Plan execution: a validated plan runs step by step, deterministically, with no model in the
loop (fillers aside). Before every step: placeholders are resolved, the caps and the duplicate-read
guard are checked and the vaglio examines the action. After it: large observations go to the
scratchpad. The first failing step stops the plan; recovery decides what happens next."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner import access, answers, vaglio
from planner.catalog import Catalog
from planner.executors.base import ExecContext
from planner.invoke import failure, invoke
from planner.llm import model_text
from planner.plan import Plan, ResolveError, lookup, render, resolve

MAX_STEPS, MAX_SAME_EXECUTOR = 30, 10
DUPLICATE_GUARDED = {"read_files", "get_urls", "write_files"}


@dataclass
class StepRecord:
    index: int
    tool: str
    raw_args: dict
    args: dict | None = None
    vaglio: dict | None = None
    observation: dict = field(default_factory=dict)
    ok: bool = False
    error_class: str | None = None
    latency_ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "tool": self.tool,
            "raw_args": self.raw_args,
            "args": self.args,
            "vaglio": self.vaglio,
            "ok": self.ok,
            "error_class": self.error_class,
            "latency_ms": round(self.latency_ms, 2),
            "result": _summary(self.observation),
        }


@dataclass
class Execution:
    status: str  # ok | failed | awaiting | cap_steps | cap_same_executor
    steps: list[StepRecord]
    results: dict[int, dict]
    final_text: str = ""
    # When awaiting: the step the plan waits at ({"step", "tool", "args", "wait": {"kind", …}}).
    awaiting: dict | None = None

    @property
    def failed(self) -> StepRecord | None:
        return next((s for s in self.steps if not s.ok), None)


def fed(executor, args: dict, entries: list) -> dict:
    """`from_step`: an earlier step's entries handed to this step. A tool that takes a list of
    paths gets the entries' paths (as many as it takes); any other gets them as `entries`."""
    spec = executor.args_schema.get("properties", {}).get("paths")
    if spec is None:
        return {**args, "entries": entries}
    paths = [e["path"] if isinstance(e, dict) else e for e in entries or []]
    paths = list(dict.fromkeys(p for p in paths if isinstance(p, str)))  # grep gives a file once per line
    return {**args, "paths": paths[: spec.get("maxItems", len(paths))]}


def _summary(observation: dict) -> str:
    text = json.dumps(observation, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:300] + "…"


@dataclass(frozen=True)
class Acted:
    verdict: vaglio.Verdict
    result: dict  # the whole result (a failure when the vaglio blocked the step)
    observation: dict  # what the history carries: the result, or its scratchpad summary
    latency_ms: float = 0.0
    awaiting: bool = False  # it needs a person's approval and did not run


DENIED = "the user denied this step; it did not run"


def act(executor, args: dict, *, ctx: ExecContext, index: int, request_text: str, decision: str = "") -> Acted:
    """One action, as both modes take it: the member's access first (planner/access.py), the
    vaglio, then the permission policy (a sensitive tool waits for a person unless `decision`
    already says allow or deny), then the executor, then the scratchpad."""
    refused = access.refusal(executor.name, ctx)
    if refused is not None:
        forbidden = failure("forbidden", refused)
        return Acted(vaglio.Verdict(approved=False, reason=refused, blocked_by="access"), forbidden, forbidden)
    verdict = vaglio.examine(executor, args, workspace=ctx.workspace, request_text=request_text)
    if not verdict.approved:
        blocked = failure(f"blocked_{verdict.blocked_by}", verdict.reason)
        return Acted(verdict, blocked, blocked)
    if decision == "deny":
        denied = failure("denied", DENIED)
        return Acted(verdict, denied, denied)
    if decision != "allow" and ctx.permissions is not None:
        if ctx.permissions.needs_approval(executor.name, executor.capabilities, args):
            waiting = failure("awaiting_approval", f"{executor.name} needs your approval")
            return Acted(verdict, waiting, waiting, awaiting=True)
    if ctx.hooks is not None:
        reason = ctx.hooks.pre_tool(executor.name, args)
        if reason is not None:
            blocked = failure("blocked_hook", f"a pre_tool_use hook blocked {executor.name}: {reason}")
            return Acted(verdict, blocked, blocked)
    result, latency_ms = invoke(executor, args, ctx)
    if ctx.hooks is not None:
        ctx.hooks.post_tool(executor.name, args, result)
    return Acted(verdict, result, ctx.scratchpad.observe(index, result), latency_ms)


Filler = Callable[[str, dict, Callable], str]  # (name, spec, placeholder source) -> text
StepHook = Callable[[dict], None]


def execute(
    plan: Plan,
    *,
    catalog: Catalog,
    ctx: ExecContext,
    request_text: str,
    runtime: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
    fill: Filler | None = None,
    on_step: StepHook | None = None,
    prior: dict[int, dict] | None = None,
    decisions: dict[int, str] | None = None,
) -> Execution:
    """`prior` holds the results of steps that ran before the plan stopped for an approval (they
    are not run again); `decisions` maps a step to the person's answer, "allow" or "deny"."""
    runtime, params = runtime or {}, params or {}
    prior, decisions = prior or {}, decisions or {}
    results: dict[int, dict] = {}
    fillers: dict[str, str] = {}
    records: list[StepRecord] = []
    uses: Counter[str] = Counter()
    done: dict[str, int] = {}

    def source(kind: str, target: str, path: str) -> Any:
        if kind == "step":
            n = int(target)
            if n not in results:
                raise ResolveError(f"step {n} has no result")
            return lookup(results[n], path)
        if kind == "FILLER":
            if target not in fillers:
                spec = plan.fillers.get(target, {})
                fillers[target] = (
                    fill(target, spec, source) if fill else render(resolve(spec.get("default", ""), source))
                )
            return fillers[target]
        if kind == "RUNTIME":
            return runtime.get(target, "")
        if target not in params:
            raise ResolveError(f"no value for ${{PARAM:{target}}}")
        return params[target]

    def emit(record: StepRecord, status: str) -> None:
        if on_step:
            on_step({"index": record.index, "tool": record.tool, "status": status, "error_class": record.error_class})

    for index, step in enumerate(plan.steps, 1):
        record = StepRecord(index=index, tool=step.tool, raw_args=step.args)
        records.append(record)
        if index in prior:  # ran before the wait (or, for a subagent, is what it answered)
            uses[step.tool] += 1
            if not prior[index].get("ok", True):
                record.observation, record.error_class = prior[index], prior[index].get("error_class", "crashed")
                emit(record, "failed")
                return Execution("failed", records, results)
            results[index] = prior[index]
            record.ok, record.observation = True, {"ok": True, "note": "done before the wait"}
            continue
        if index > MAX_STEPS:
            record.error_class = "cap_steps"
            return Execution("cap_steps", records, results)
        uses[step.tool] += 1
        if uses[step.tool] > MAX_SAME_EXECUTOR:
            record.error_class = "cap_same_executor"
            return Execution("cap_same_executor", records, results)
        executor = catalog.get(step.tool)
        emit(record, "started")
        try:
            args = resolve(step.args, source)
            if "from_step" in args:
                entries = lookup(results[int(step.args["from_step"])], "entries")
                args = fed(executor, {k: v for k, v in args.items() if k != "from_step"}, entries)
        except (ResolveError, KeyError, ValueError) as exc:
            record.observation = failure("bad_reference", str(exc))
            record.error_class = "bad_reference"
            emit(record, "failed")
            return Execution("failed", records, results)
        record.args = args
        key = f"{step.tool}:{json.dumps(args, sort_keys=True, default=str)}"
        if step.tool in DUPLICATE_GUARDED and key in done:
            # The same read (or write) again: the data is already there, so it is not re-run.
            earlier = done[key]
            results[index] = results[earlier]
            record.ok = True
            record.observation = {"ok": True, "note": f"you already have this data at step {earlier}"}
            emit(record, "done")
            continue
        acted = act(executor, args, ctx=ctx, index=index, request_text=request_text, decision=decisions.get(index, ""))
        record.vaglio = acted.verdict.to_dict()
        record.observation, record.latency_ms = acted.observation, acted.latency_ms
        # The plan waits: for the person's approval before this step, or for work this step
        # started elsewhere (a subagent).
        wait = {"kind": "approval"} if acted.awaiting else acted.result.get("wait") if acted.result.get("ok") else None
        if isinstance(wait, dict):
            record.ok, record.error_class = not acted.awaiting, "awaiting_approval" if acted.awaiting else None
            emit(record, "awaiting")
            waiting = Execution("awaiting", records, results)
            waiting.awaiting = {"step": index, "tool": step.tool, "args": args, "wait": wait}
            return waiting
        if not acted.verdict.approved:
            record.error_class = acted.result["error_class"]
            emit(record, "blocked")
            return Execution("failed", records, results)
        results[index] = acted.result
        record.ok = bool(acted.result.get("ok"))
        if not record.ok:
            record.error_class = acted.result.get("error_class", "crashed")
            emit(record, "failed")
            return Execution("failed", records, results)
        done[key] = index
        emit(record, "done")

    execution = Execution("ok", records, results)
    execution.final_text = final_text(plan, results, source, request_text)
    return execution


def final_text(plan: Plan, results: dict[int, dict], source, request: str = "") -> str:
    """The answer. Its facts come from the tools: a final message that refers to no step's result
    is prose the model wrote before anything ran, so when there are results the answer is the last
    one's in words (planner.answers; the message stays in the plan, in the trace). A line count
    asked for is read from the result, whatever the message says: a model counts `count`, which is
    the number of files."""
    last_tool = plan.steps[max(results) - 1].tool if results and max(results) <= len(plan.steps) else ""
    if last_tool == "read_files" and answers.asks_line_count(request):
        return answers.of_result(last_tool, results[max(results)], request)
    if plan.final_message and ("${" in plan.final_message or not results):
        try:
            # Entities are decoded in the model's words only, before the tools' values go in.
            said = render(resolve(model_text(plan.final_message), source))
            if said.strip() or not results:
                return said
            # "${step1.stdout}" of a command that printed nothing: the result speaks instead.
        except (ResolveError, KeyError, ValueError):
            pass  # a bad reference in the message does not undo the work: fall back to the result
    if not results:
        return model_text(plan.final_message)
    if plan.pipelines and not plan.final_message:  # each pipeline's result in words, in order
        ends = [n - 1 for n in plan.pipelines if n - 1 in results] + [max(results)]
        return "\n".join(answers.of_result(plan.steps[n - 1].tool, results[n], request) for n in ends)
    return answers.of_result(last_tool, results[max(results)], request)
