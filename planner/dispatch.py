"""The entry point of a turn: which layer answers it.

    a turn that stopped for an approval or a subagent → its plan (or ReAct loop) goes on
    pre_fastpath (greetings and thanks, no model)
    → a follow-up resolved from the session (planner/followup.py: "do the same for c.md", "save
      that to b.md", "open the second one"), run as a plan with no model
    → a file named in words (planner/named_file.py: «del diario»), then the follow-up again with it
    → words to write and keep (planner/compose.py: "write a haiku and save it to a.txt")
    → the route decision (planner/decision.py): direct | ask | tools, from evidence in the request;
      a file to read or change that is not there is said so (planner/missing_file.py)
    → tools: plan memory (L0 fastpath, then L1 autopath: a remembered plan, no model)
    → direct (one streamed model call), or the engine (propose, validate, execute) → recovery →
      terminator, or ReAct
Every turn ends with exactly one final_kind and records the layer that answered."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from django.conf import settings

from billing.cost import format_usd
from core.clock import monotonic_ms
from core.events import bus
from core.tokens import estimate as estimate_tokens
from planner import compose, direct, engine, followup, llm, memory, missing_file, named_file, pre_fastpath, react
from planner.candidates import allowed, candidates_for, ranking
from planner.catalog import Catalog, Executor, catalog
from planner.decision import Decision, decide
from planner.intent import Intent, extract
from planner.plan import parse
from planner.route import ExplicitModelUnavailable, fail_over, route, route_error
from planner.turn import Sink, TurnInput, TurnOutcome
from planner.validator import validate
from routing import patterns
from routing.chain import NoRoute, RouteDecision
from routing.fingerprint import TurnNeeds, fingerprint

logger = logging.getLogger(__name__)


@dataclass
class _Turn:
    """What every stage of one turn shares; the probe is made once, by the first stage needing it."""

    inp: TurnInput
    sink: Sink
    ids: dict
    started: float = field(default_factory=monotonic_ms)
    probe: memory.Probe | None = None
    decision: Decision | None = None  # the route decision, once made
    shadowed: memory.Recall | None = None  # recalled on trial: the engine plans, memory's plan is compared


def run_turn(inp: TurnInput, sink: Sink | None = None) -> TurnOutcome:
    """The cascade: each stage answers the turn or hands it on (the module's docstring)."""
    turn = _begin(inp, sink, resumes=bool(inp.stopped))
    if inp.stopped:
        return _resume_stopped(turn)
    turn.inp = inp = with_answered_request(inp)
    # A named model means the user wants it to answer.
    canned = None if inp.model else pre_fastpath.reply(inp.text, previous=inp.previous, workspace=inp.workspace_path)
    if canned is not None:
        return _finish(turn, TurnOutcome(final_kind="answer", text=canned, layer="pre_fastpath"))
    cat = catalog()
    refused = _cannot_act(inp, cat)
    if refused is not None:
        return _finish(turn, refused)
    answered = _followup(turn, cat)
    if answered is not None:
        return _finish(turn, answered)
    inp = turn.inp  # a follow-up that could not run goes on as the request it stands for
    named = None if inp.model else named_file.resolve(inp.text, inp.previous, inp.workspace_path)
    if named is not None:  # «le prime 3 righe del diario»: the one file those words name, as if typed
        turn.inp = inp = replace(inp, text=named.text)
        bus.emit("file.named", named.to_trace(), **turn.ids)
        if (answered := _followup(turn, cat)) is not None:  # «e nella 3B?»: the last question, of classi/3B.txt
            return _finish(turn, answered)
        inp = turn.inp
    kept = compose.run(inp, cat, turn.sink, turn.ids)  # "write a haiku and save it to F": words, then a write
    if kept is not None:
        return _finish(turn, kept)

    intent = extract(inp.text)
    ranked = ranking(cat, inp.text, intent)
    turn.probe = memory.Probe.of(inp.text, inp.workspace_path, inp.user_id)
    earlier = frozenset((inp.previous.get("listing") or []) + (inp.previous.get("files") or []))
    turn.decision = choice = decide(inp.text, intent=intent, ranked=ranked, workspace=inp.workspace_path,
                                    extraction=turn.probe.extraction, earlier=earlier)  # fmt: skip
    if choice.route == "ask":
        return _finish(turn, _ask(inp, choice))
    if (gone := missing_file.reply(inp.text, choice, turn.probe.extraction, inp.workspace_path)) is not None:
        return _finish(turn, TurnOutcome(final_kind="answer", text=gone, layer="decision"))  # «leggi manca.md»
    use_memory = _uses_memory(inp) and choice.route == "tools" and choice.sure
    failed_recall = None
    if use_memory:
        recall, served = _from_memory(turn, cat)
        if served is not None:
            return _finish(turn, served, recall)
        failed_recall = recall

    candidates, intent, intent_call = candidates_for(inp, cat, intent, turn.ids, ranked, choice)
    if candidates and inp.previous.get("scratchpad") and "scratchpad_read" in cat.executors:
        candidates = [*candidates, cat.executors["scratchpad_read"]]  # the last turn's large results
    needs = _needs(inp, candidates if choice.sure else [])
    try:
        decision = route(inp, needs, turn.ids)
    except (NoRoute, ExplicitModelUnavailable) as exc:
        return _finish(turn, route_error(exc))
    if not choice.sure and not _calls_tools_natively(decision):
        candidates = []  # unsure, and the model cannot weigh tools itself: it answers in words
    outcome, decision = _answer(turn, cat, intent, candidates, needs, decision, use_memory=use_memory)
    if candidates:
        if use_memory and inp.mode != "react":
            memory.shadowed(turn.shadowed, outcome, cat, turn.ids)  # an entry on trial: the engine's verdict
            _learn(turn, outcome, cat)
        if outcome.final_kind == "answer" and outcome.layer != "terminator":
            _deliver(turn.sink, outcome)  # the final message, in one piece
    outcome = _annotated(outcome, inp, intent, intent_call, failed_recall)
    _record_pattern(inp, needs, decision, outcome)
    return _finish(turn, outcome)


def run_forked(inp: TurnInput, profile: str, sink: Sink | None = None) -> TurnOutcome:
    """A custom command with `context: fork`: the whole request goes to a subagent, and its
    answer is this turn's (a one-step plan, run_task, with no model call here)."""
    turn = _begin(inp, sink, forked=profile)
    plan = parse({"steps": [{"tool": "run_task", "args": {"profile": profile, "task": inp.text}}],
                  "final_message": "${step1.text}"})  # fmt: skip
    outcome = engine.run_remembered(inp, plan=plan, layer="fork", catalog=catalog(), sink=turn.sink, ids=turn.ids)
    return _finish(turn, outcome)


def with_answered_request(inp: TurnInput) -> TurnInput:
    """A turn that answers an earlier `ask` or `needs_inputs` carries on the request that
    stopped: the engine plans for the request and the answer together."""
    if not inp.answers or not inp.answers.get("request"):
        return inp
    own = extract(inp.text).verbs  # "read todo.txt" after "Which file should I delete?" is a new request
    if own and not set(own) & set(extract(inp.answers["request"]).verbs):
        return replace(inp, answers=None)
    return replace(inp, text=f"{inp.answers['request'].rstrip()} {inp.text.strip()}")


def _begin(inp: TurnInput, sink: Sink | None, **started) -> _Turn:
    turn = _Turn(inp, sink or Sink(), {"session_id": inp.session_id, "turn_id": inp.turn_id})
    bus.emit("turn.started", {"user_id": inp.user_id, "mode": inp.mode, **started}, **turn.ids)
    return turn


def _cannot_act(inp: TurnInput, cat: Catalog) -> TurnOutcome | None:
    """An error turn when there is nothing to act with or nowhere to act."""
    if not cat.executors:
        message = "No executors are available: the executor catalog is empty. An operator should check it."
        return TurnOutcome(final_kind="error", text=message, layer="engine", error="empty catalog")
    if inp.workspace_path is None:
        message = "This session has no workspace to act in."
        return TurnOutcome(final_kind="error", text=message, layer="engine", error="no workspace")
    return None


def _uses_memory(inp: TurnInput) -> bool:
    """Plan memory serves and learns only in engine mode, when no model was named, outside plan
    mode, for people who may act (a read-only member's turns skip it), and not when the user
    asked to plan again (an edit or a regeneration)."""
    flags = (inp.model, inp.plan_mode, inp.read_only, inp.replan)
    return bool(settings.METNOS_PLAN_MEMORY and inp.mode == "engine" and not any(flags))


def _from_memory(turn: _Turn, cat: Catalog) -> tuple[memory.Recall | None, TurnOutcome | None]:
    """L0 then L1. Returns (recall, outcome): the outcome when memory answered; (recall, None)
    when a remembered plan was admitted but failed to run (the engine then answers); (None,
    None) on a miss."""
    recall = memory.lookup(turn.probe, cat)
    if recall is None or (turn.decision is not None and not turn.decision.serves(recall.plan)):
        return None, None
    if memory.on_trial(recall):
        turn.shadowed = recall  # compared with the engine's plan once it answers (planner.memory.shadow)
        return None, None
    bus.emit("pattern.matched", recall.to_trace(), **turn.ids)
    outcome = engine.run_remembered(
        turn.inp, plan=recall.plan, layer=recall.layer, catalog=cat, sink=turn.sink, ids=turn.ids
    )
    outcome.trace["memory"] = recall.to_trace()
    if outcome.final_kind == "awaiting":
        return recall, outcome  # a remembered plan still asks before a sensitive step
    saved = memory.served(turn.probe, recall, replace(outcome, latency_ms=_elapsed(turn)), cat)
    if saved is not None:
        outcome.trace["memory"]["saved"] = saved.to_trace()
    if outcome.final_kind != "answer":
        return recall, None
    _deliver(turn.sink, outcome)
    return recall, outcome


def _followup(turn: _Turn, cat: Catalog) -> TurnOutcome | None:
    """A follow-up resolved from the session with no model (planner.followup), validated and run
    like a remembered plan. When its plan is refused or fails, the turn goes on as the request it
    stands for ("read notes/c.md"), so the person still gets the engine's answer or dead end."""
    inp = turn.inp
    found = None if inp.model else followup.resolve(inp.text, inp.previous, inp.workspace_path)
    if found is None:
        return None
    if found.plan is None:  # the rest of the last listing: already at hand
        outcome = TurnOutcome(final_kind="answer", text=found.answer, layer="followup")
        outcome.trace["followup"] = found.to_trace()
        _deliver(turn.sink, outcome)
        return outcome
    tools = {step.tool for step in found.plan.steps}
    usable = {c.name for c in allowed(inp, [cat.executors[t] for t in tools if t in cat.executors])}
    problems = validate(found.plan, cat, allowed=usable, request_text=found.request, workspace=inp.workspace_path)
    blocking = [str(p) for p in problems if p.blocking]
    bus.emit("followup.resolved", {**found.to_trace(), "problems": blocking}, **turn.ids)
    if blocking:
        return None
    turn.inp = inp = replace(inp, text=found.request)
    turn.probe = memory.Probe.of(inp.text, inp.workspace_path, inp.user_id)
    outcome = engine.run_remembered(inp, plan=found.plan, layer="followup", catalog=cat, sink=turn.sink, ids=turn.ids)
    outcome.trace["followup"] = found.to_trace()
    if outcome.final_kind == "error":
        return None
    if outcome.final_kind == "answer":
        if _uses_memory(inp) and outcome.plan_ok:
            _learn(turn, outcome, cat)
        _deliver(turn.sink, outcome)
    return outcome


def _ask(inp: TurnInput, choice: Decision) -> TurnOutcome:
    """An action whose object is missing: one short question; the answer carries the request on."""
    pending = {"kind": "ask", "request": inp.text, "question": choice.question}
    return TurnOutcome(final_kind="ask", text=choice.question, layer="decision", pending=pending)


def _calls_tools_natively(decision: RouteDecision) -> bool:
    """A model that can be offered the tools and left to choose: a cloud model with tool calling."""
    return decision.model.supports_tools and not decision.model.is_local


def _needs(inp: TurnInput, candidates: list[Executor]) -> TurnNeeds:
    prompt = "".join(m.text_content for m in inp.history) + inp.text
    return TurnNeeds(
        acts=bool(candidates), estimated_tokens=estimate_tokens(prompt), text=inp.text, workspace=inp.workspace
    )


def _answer(
    turn: _Turn,
    cat: Catalog,
    intent: Intent,
    candidates: list[Executor],
    needs: TurnNeeds,
    decision: RouteDecision,
    *,
    use_memory: bool,
) -> tuple[TurnOutcome, RouteDecision]:
    """Direct with no candidates, else ReAct or the engine; once more with the next model when
    the chosen one could not be reached before anything ran."""
    inp, sink, ids = turn.inp, turn.sink, turn.ids

    def answer(chosen: RouteDecision) -> TurnOutcome:
        if not candidates:
            return direct.answer(inp, chosen, sink, ids)
        if inp.mode == "react" or not turn.decision.sure:  # unsure: the model may answer or call a tool
            return react.run(inp, candidates=candidates, decision=chosen, sink=sink, ids=ids)
        excluded = memory.excluded(turn.probe) if use_memory else None
        return engine.run(inp, intent=intent, candidates=candidates, catalog=cat, decision=chosen, sink=sink,
                          ids=ids, excluded=excluded)  # fmt: skip

    outcome = answer(decision)
    if outcome.trace.get("unreachable_before_answer"):
        outcome, decision = fail_over(inp, needs, ids, outcome, decision, answer)
    return outcome, decision


def _resume_stopped(turn: _Turn) -> TurnOutcome:
    """The person answered an approval request, or the subagent finished: the stopped plan goes
    on (no model call, in engine mode)."""
    cat = catalog()
    pending = turn.inp.stopped
    turn.inp = inp = replace(turn.inp, text=pending["request"])
    if pending.get("mode") == "react":
        return _finish(turn, _resume_react(turn, cat, pending))
    outcome = engine.resume_stopped(inp, catalog=cat, sink=turn.sink, ids=turn.ids)
    # After the plan ran: its request is read as the workspace now is.
    turn.probe = memory.Probe.of(inp.text, inp.workspace_path, inp.user_id)
    if outcome.plan_ok and settings.METNOS_PLAN_MEMORY and inp.mode == "engine":
        _learn(turn, outcome, cat)  # a plan that ran once approved is remembered
    if outcome.final_kind == "answer":
        _deliver(turn.sink, outcome)
    return _finish(turn, outcome)


def _resume_react(turn: _Turn, cat: Catalog, pending: dict) -> TurnOutcome:
    """The ReAct loop goes on from the action that waited, with the model the chain picks now."""
    inp = turn.inp
    loop = {**pending["react"], "decision": pending.get("decision"), "result": pending.get("result")}
    candidates = [cat.executors[name] for name in loop.get("candidates", []) if name in cat.executors]
    needs = TurnNeeds(acts=True, estimated_tokens=estimate_tokens(inp.text), text=inp.text, workspace=inp.workspace)
    try:
        decision = route(inp, needs, turn.ids)
    except (NoRoute, ExplicitModelUnavailable) as exc:
        return route_error(exc)
    return react.run(inp, candidates=candidates, decision=decision, sink=turn.sink, ids=turn.ids, state=loop)


def _learn(turn: _Turn, outcome: TurnOutcome, cat: Catalog) -> None:
    """Memory is a side effect: it never fails the turn. It keeps what the turn cost so far."""
    if turn.decision is not None and outcome.plan and not turn.decision.serves(outcome.plan):
        return  # a plan for another tool than the one the request is about is not remembered
    try:
        memory.learn(turn.probe, replace(outcome, latency_ms=_elapsed(turn)), cat, turn.inp.turn_id)
    except Exception:
        logger.exception("plan memory could not learn from turn %s", turn.inp.turn_id)


def _elapsed(turn: _Turn) -> int:
    return int(monotonic_ms() - turn.started)


def _deliver(sink: Sink, outcome: TurnOutcome) -> None:
    try:
        sink.on_delta(outcome.text)
    except llm.Cancelled:
        pass  # the work is done; a late cancel does not undo it


def _annotated(
    outcome: TurnOutcome,
    inp: TurnInput,
    intent: Intent,
    intent_call: llm.LLMResult | None,
    failed_recall: memory.Recall | None,
) -> TurnOutcome:
    """The outcome with what happened before it: the intent call (counted), the request it
    answers, the remembered plan that failed."""
    if intent_call is not None:
        outcome = _counting(outcome, intent_call)
        outcome.trace["intent_from_model"] = {"verb": intent.verb, "object": intent.object, "ok": intent_call.ok}
    if inp.answers:
        outcome.trace["resumed_from"] = inp.answers.get("turn_id")
    if failed_recall is not None:
        outcome.trace["memory_failed"] = failed_recall.to_trace()
    return outcome


def _counting(outcome: TurnOutcome, call: llm.LLMResult) -> TurnOutcome:
    """The outcome with one more model call (the intent call) in its usage, cost and count."""
    return replace(
        outcome,
        usage=llm.add_usage(outcome.usage, call.usage),
        cost_usd=outcome.cost_usd + call.cost,
        model_ms=outcome.model_ms + call.model_ms,
        model_calls=outcome.model_calls + 1,
    )


def _record_pattern(inp: TurnInput, needs: TurnNeeds, decision: RouteDecision, outcome: TurnOutcome) -> None:
    """What the routing patterns learn from this turn (routing.patterns)."""
    patterns.record(
        fingerprint=decision.fingerprint or fingerprint(needs),
        model=decision.model.name,
        cost_usd=outcome.cost_usd,
        latency_ms=outcome.model_ms,
        final_kind=outcome.final_kind,
        errors=int(outcome.final_kind == "error"),
        turn_id=inp.turn_id,
        workspace=inp.workspace,
    )


def _finish(turn: _Turn, outcome: TurnOutcome, recall: memory.Recall | None = None) -> TurnOutcome:
    """The turn's latency, its observation (plan memory) and its closing events."""
    latency = _elapsed(turn)
    outcome = replace(outcome, latency_ms=latency)
    inp, ids = turn.inp, turn.ids
    if turn.decision is not None:
        outcome.trace["decision"] = turn.decision.to_trace()
    if settings.METNOS_PLAN_MEMORY:
        try:
            probe = turn.probe or memory.Probe.of(inp.text, None, inp.user_id)
            memory.observe(probe, turn_id=inp.turn_id, outcome=outcome, recall=recall)
        except Exception:
            logger.exception("could not record the observation of turn %s", inp.turn_id)
    bus.emit("layer.resolved", {"layer": outcome.layer, "final_kind": outcome.final_kind}, **ids)
    if outcome.final_kind == "error":
        bus.emit("error", {"message": outcome.error or outcome.text}, **ids)
    bus.emit(
        "turn.completed",
        {
            "final_kind": outcome.final_kind,
            "layer": outcome.layer,
            "latency_ms": latency,
            "model_calls": outcome.model_calls,
            "cost_usd": format_usd(outcome.cost_usd),
        },
        **ids,
    )
    return outcome
