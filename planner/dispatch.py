"""The entry point of a turn: which layer answers it.

    pre_fastpath (greetings and thanks, no model)
    → no tool fits the request → direct (one streamed model call)
    → engine (propose, validate, execute) → recovery → terminator
Every turn ends with exactly one final_kind and records the layer that answered."""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from django.conf import settings

from billing.cost import format_usd
from core.clock import monotonic_ms
from core.events import bus
from planner import autopath, direct, engine, fastpath, llm, memory, react
from planner import params as P
from planner.catalog import Catalog, catalog
from planner.intent import ask_model, extract
from planner.plan import parse
from planner.prefilter import Prefilter
from planner.route import ExplicitModelUnavailable, decide_for_turn
from planner.turn import CHANGES, Sink, TurnInput, TurnOutcome
from routing import patterns
from routing.chain import NoRoute
from routing.fingerprint import TurnNeeds, estimate_tokens, fingerprint
from routing.registry import current

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|ciao|salve|buongiorno|buonasera|thanks|thank you|grazie|"
    r"grazie mille|ok|okay|bye|goodbye|arrivederci)[\s!.,]*$",
    re.IGNORECASE,
)
logger = logging.getLogger(__name__)
ENGINE_MIN_SCORE = 3
_prefilter: tuple[Catalog, Prefilter] | None = None


def prefilter_for(cat: Catalog) -> Prefilter:
    """The pre-filter's index, rebuilt only when the catalog reloads (a new Catalog object)."""
    global _prefilter
    if _prefilter is None or _prefilter[0] is not cat:
        _prefilter = (cat, Prefilter(cat.executors.values()))
    return _prefilter[1]


def pre_fastpath(text: str) -> str | None:
    match = _GREETING.match(text)
    if not match:
        return None
    word = match.group(1).lower()
    if word in ("thanks", "thank you", "grazie", "grazie mille"):
        return "You're welcome." if not word.startswith("grazie") else "Prego."
    if word in ("bye", "goodbye", "arrivederci"):
        return "Goodbye." if word != "arrivederci" else "Arrivederci."
    if word in ("ok", "okay"):
        return "OK."
    return "Ciao! Cosa posso fare?" if word in ("ciao", "salve", "buongiorno", "buonasera") else "Hello! What can I do?"


def resumed(inp: TurnInput) -> TurnInput:
    """A turn that answers an earlier `ask` or `needs_inputs` carries on the request that
    stopped: the engine plans for the request and the answer together."""
    if not inp.resume or not inp.resume.get("request"):
        return inp
    return replace(inp, text=f"{inp.resume['request'].rstrip()} {inp.text.strip()}")


def run_turn(inp: TurnInput, sink: Sink | None = None) -> TurnOutcome:
    sink = sink or Sink()
    started = monotonic_ms()
    ids = {"session_id": inp.session_id, "turn_id": inp.turn_id}
    bus.emit("turn.started", {"user_id": inp.user_id, "mode": inp.mode, "resumes": bool(inp.resume)}, **ids)
    if inp.resume and inp.resume.get("kind") in ("approval", "subagent"):
        return _resume_stopped(inp, sink, started, ids)
    inp = resumed(inp)

    canned = None if inp.model else pre_fastpath(inp.text)  # a named model means the user wants it to answer
    if canned is not None:
        return _finish(TurnOutcome(final_kind="answer", text=canned, layer="pre_fastpath"), started, ids, inp)

    cat = catalog()
    if not cat.executors:
        message = "No executors are available: the executor catalog is empty. An operator should check it."
        return _finish(
            TurnOutcome(final_kind="error", text=message, layer="engine", error="empty catalog"), started, ids, inp
        )
    if inp.workspace_path is None:
        message = "This session has no workspace to act in."
        return _finish(
            TurnOutcome(final_kind="error", text=message, layer="engine", error="no workspace"), started, ids, inp
        )

    intent = extract(inp.text)
    probe = memory.probe(inp.text, inp.workspace_path, inp.user_id)
    use_memory = (
        settings.METNOS_PLAN_MEMORY
        and inp.mode == "engine"
        and not inp.model
        and not inp.plan_mode
        and not inp.read_only
    )
    failed_recall = None
    if use_memory:
        recall, served = _from_memory(inp, probe, cat, sink, ids)
        if served is not None:
            return _finish(served, started, ids, inp, probe, recall)
        failed_recall = recall
    ranked = prefilter_for(cat).rank(inp.text, intent)
    # A lone description word ("my name is Ada" meets find_files' "names") is not a request for a
    # tool: the engine runs when an affinity tag or the intent's verb points at one.
    tool_request = bool(ranked) and ranked[0].score >= ENGINE_MIN_SCORE
    intent_call = None
    if tool_request and not intent.confident and not inp.model:
        # Tools fit but no verb was recognised: the fast tier names it, then the ranking is redone.
        fast = current().get(settings.METNOS_FILLER_MODEL)
        if fast is not None and fast.configured:
            intent, intent_call = ask_model(inp.text, intent, fast, ids=ids, user_id=inp.user_id)
            ranked = prefilter_for(cat).rank(inp.text, intent)
    candidates = [cat.executors[c.name] for c in ranked if c.name in cat.executors] if tool_request else []
    if inp.plan_mode:  # planning changes nothing: tools that write, run or send are not offered
        candidates = [c for c in candidates if not CHANGES.intersection(c.capabilities)]
    if inp.read_only:  # a member with read access: tools that read or compute only
        candidates = [c for c in candidates if c.category in ("E", "F")]
    if inp.allowed_tools is not None:  # a subagent's profile
        candidates = [c for c in candidates if c.name in inp.allowed_tools]
    if inp.delegate is None:
        candidates = [c for c in candidates if c.name != "run_task"]
    prompt = "".join(m.text_content for m in inp.history) + inp.text
    needs = TurnNeeds(
        acts=bool(candidates), estimated_tokens=estimate_tokens(prompt), text=inp.text, workspace=inp.workspace
    )
    delegate = settings.METNOS_PROPOSER_MODEL if candidates else None  # slot 5, for turns that act
    try:
        decision = decide_for_turn(inp, needs, ids, delegate=delegate)
    except (NoRoute, ExplicitModelUnavailable) as exc:
        outcome = TurnOutcome(final_kind="error", text=str(exc), layer="route", error=str(exc))
        return _finish(outcome, started, ids, inp, probe)

    def answer(chosen):
        if not candidates:
            return direct.answer(inp, chosen, sink, ids)
        if inp.mode == "react":
            return react.run(inp, candidates=candidates, decision=chosen, sink=sink, ids=ids)
        return engine.run(
            inp,
            intent=intent,
            candidates=candidates,
            catalog=cat,
            decision=chosen,
            sink=sink,
            ids=ids,
            excluded=_banned(probe) if use_memory else None,
        )

    outcome = answer(decision)
    if outcome.trace.get("unreachable_before_answer"):
        outcome, decision = _fail_over(inp, needs, ids, outcome, decision, answer, delegate=delegate)
    if candidates:
        if use_memory and inp.mode != "react":
            _learn(probe, outcome, cat, inp.turn_id)
        if outcome.final_kind == "answer" and outcome.layer != "terminator":
            try:
                sink.on_delta(outcome.text)  # the final message, in one piece
            except llm.Cancelled:
                pass  # the work is done; a late cancel does not undo it
    if intent_call is not None:
        outcome = _counting(outcome, intent_call)
        outcome.trace["intent_from_model"] = {"verb": intent.verb, "object": intent.object, "ok": intent_call.ok}
    if inp.resume:
        outcome.trace["resumed_from"] = inp.resume.get("turn_id")
    if failed_recall is not None:
        outcome.trace["memory_failed"] = failed_recall.to_trace()
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
    return _finish(outcome, started, ids, inp, probe)


def _fail_over(inp: TurnInput, needs: TurnNeeds, ids: dict, failed: TurnOutcome, decision, answer, *, delegate):
    """The chosen model could not be reached before it said (or, planning, ran) anything; the
    failure is already in the availability state. Route again, once, and let `answer` redo the
    turn with the next model if the chain now picks another one. A model the user named for this
    message is not replaced."""
    if decision.slot == "per_message_override":
        return failed, decision
    try:
        retry = decide_for_turn(inp, needs, ids, delegate=delegate)
    except (NoRoute, ExplicitModelUnavailable):
        return failed, decision
    if retry.model.name == decision.model.name:
        return failed, decision
    outcome = answer(retry)
    outcome = replace(
        outcome,
        model_calls=failed.model_calls + outcome.model_calls,
        cost_usd=failed.cost_usd + outcome.cost_usd,
    )
    outcome.trace["failover"] = {"from": decision.model.name, "error": failed.error, "to": retry.model.name}
    return outcome, retry


def run_forked(inp: TurnInput, profile: str, sink: Sink | None = None) -> TurnOutcome:
    """A custom command with `context: fork`: the whole request goes to a subagent, and its
    answer is this turn's (a one-step plan, run_task, with no model call here)."""
    sink = sink or Sink()
    started = monotonic_ms()
    ids = {"session_id": inp.session_id, "turn_id": inp.turn_id}
    bus.emit("turn.started", {"user_id": inp.user_id, "mode": inp.mode, "forked": profile}, **ids)
    plan = parse({"steps": [{"tool": "run_task", "args": {"profile": profile, "task": inp.text}}],
                  "final_message": "${step1.text}"})  # fmt: skip
    outcome = engine.run_remembered(inp, plan=plan, layer="fork", catalog=catalog(), sink=sink, ids=ids)
    return _finish(outcome, started, ids, inp)


def _resume_stopped(inp: TurnInput, sink: Sink, started: float, ids: dict) -> TurnOutcome:
    """The person answered an approval request, or the subagent finished: the stopped plan goes
    on (no model call, in engine mode)."""
    cat = catalog()
    pending = inp.resume
    inp = replace(inp, text=pending["request"])
    if pending.get("mode") == "react":
        loop = {**pending["react"], "decision": pending.get("decision"), "result": pending.get("result")}
        candidates = [cat.executors[name] for name in loop.get("candidates", []) if name in cat.executors]
        needs = TurnNeeds(acts=True, estimated_tokens=estimate_tokens(inp.text), text=inp.text, workspace=inp.workspace)
        try:
            decision = decide_for_turn(inp, needs, ids, delegate=settings.METNOS_PROPOSER_MODEL)
        except (NoRoute, ExplicitModelUnavailable) as exc:
            return _finish(
                TurnOutcome(final_kind="error", text=str(exc), layer="route", error=str(exc)), started, ids, inp
            )
        outcome = react.run(inp, candidates=candidates, decision=decision, sink=sink, ids=ids, state=loop)
        return _finish(outcome, started, ids, inp)
    outcome = engine.resume_stopped(inp, catalog=cat, sink=sink, ids=ids)
    probe = memory.probe(inp.text, inp.workspace_path, inp.user_id)
    if outcome.plan_ok and settings.METNOS_PLAN_MEMORY and inp.mode == "engine":
        _learn(probe, outcome, cat, inp.turn_id)  # a plan that ran once approved is remembered
    if outcome.final_kind == "answer":
        try:
            sink.on_delta(outcome.text)
        except llm.Cancelled:
            pass
    return _finish(outcome, started, ids, inp, probe)


def _from_memory(inp: TurnInput, probe: memory.Probe, cat: Catalog, sink: Sink, ids: dict):
    """L0 then L1. Returns (recall, outcome): the outcome when memory answered; (recall, None)
    when a remembered plan was admitted but failed to run (the engine then answers); (None,
    None) on a miss."""
    recall = memory.lookup(probe, cat)
    if recall is None:
        return None, None
    bus.emit("pattern.matched", recall.to_trace(), **ids)
    outcome = engine.run_remembered(inp, plan=recall.plan, layer=recall.layer, catalog=cat, sink=sink, ids=ids)
    outcome.trace["memory"] = recall.to_trace()
    if outcome.final_kind == "awaiting":
        return recall, outcome  # a remembered plan still asks before a sensitive step
    layer = fastpath if recall.layer == "fastpath" else autopath
    ok = outcome.final_kind == "answer"
    layer.used(recall.entry, success=ok, latency_ms=int(recall.lookup_ms))
    if not ok:
        autopath.record_failure(probe, outcome.plan or recall.plan.to_dict(), reason=outcome.error or "failed")
        return recall, None
    try:
        sink.on_delta(outcome.text)
    except llm.Cancelled:
        pass
    return recall, outcome


def _banned(probe: memory.Probe):
    hashes = autopath.banned_hashes(probe.owner_id, probe.intent.verb, probe.intent.object)
    if not hashes:
        return None
    return lambda plan: P.plan_hash(memory.template_of(probe, plan)) in hashes


def _learn(probe: memory.Probe, outcome: TurnOutcome, cat: Catalog, turn_id: str) -> None:
    """A plan the engine completed is remembered (L0) and counted (L1); one that failed is
    counted against (anti-autopaths). Memory is a side effect: it never fails the turn."""
    if outcome.plan is None or outcome.final_kind == "awaiting":
        return  # waiting for a person is neither a success nor a failure of the plan
    try:
        if outcome.plan_ok and outcome.layer in ("engine", "recovery"):
            fastpath.learn(probe, outcome.plan, cat, turn_id=turn_id, latency_ms=outcome.latency_ms)
            autopath.record_success(probe, outcome.plan, cat, latency_ms=outcome.latency_ms)
        elif not outcome.plan_ok:
            autopath.record_failure(probe, outcome.plan, reason=outcome.error or outcome.final_kind)
    except Exception:
        logger.exception("plan memory could not learn from turn %s", turn_id)


def _counting(outcome: TurnOutcome, call: llm.LLMResult) -> TurnOutcome:
    """The outcome with one more model call (the intent call) in its usage, cost and count."""
    return replace(
        outcome,
        usage=llm.add_usage(outcome.usage, call.usage),
        cost_usd=outcome.cost_usd + call.cost,
        model_ms=outcome.model_ms + call.model_ms,
        model_calls=outcome.model_calls + 1,
    )


def _finish(
    outcome: TurnOutcome,
    started: float,
    ids: dict,
    inp: TurnInput,
    probe: memory.Probe | None = None,
    recall: memory.Recall | None = None,
) -> TurnOutcome:
    latency = int(monotonic_ms() - started)
    outcome = replace(outcome, latency_ms=latency)
    if settings.METNOS_PLAN_MEMORY:
        try:
            probe = probe or memory.probe(inp.text, None, inp.user_id)
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
