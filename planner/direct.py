"""Direct mode: one streamed model call answers the turn (a conversational request that no
tool serves)."""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from core.ir import ChatRequest, Message
from planner import llm
from planner.turn import Sink, TurnInput, TurnOutcome
from routing.chain import RouteDecision

REASONING_HINT = "Think step by step before you answer, then give the answer."


def answer(inp: TurnInput, decision: RouteDecision, sink: Sink, ids: dict) -> TurnOutcome:
    model = decision.model
    system = inp.system(settings.METNOS_SYSTEM_PROMPT)
    if model.params.get("reasoning"):
        system = replace(system, volatile="\n\n".join(p for p in (system.volatile, REASONING_HINT) if p))
    request = ChatRequest(
        model=model.api_model,
        system=system,
        messages=(*inp.history, Message.text("user", inp.text)),
        max_tokens=model.output_budget(),
        temperature=model.params.get("temperature"),
        stream=True,
    )
    result = llm.call(
        request, model, role=inp.role, ids=ids, user_id=inp.user_id, on_delta=sink.on_delta, slot=decision.slot
    )
    common = {
        "layer": "direct",
        "usage": result.usage,
        "cost_usd": result.cost,
        "model_ms": result.model_ms,
        "model_calls": 1,
        "route": decision.to_dict(),
    }
    if result.error is not None:
        outcome = TurnOutcome(final_kind="error", text=llm.user_facing(result.error), error=str(result.error), **common)
        # Nothing reached the user yet and the model could not be reached: another model may answer.
        outcome.trace["unreachable_before_answer"] = result.error.kind in ("network", "timeout") and not result.text
        return outcome
    # The streamed deltas went out as the model wrote them; the stored answer (and the chat's final
    # render of it, on turn.completed) is decoded.
    text = llm.model_text(result.text)
    if result.cancelled:
        return TurnOutcome(final_kind="error", text=text, error="cancelled by the user", **common)
    return TurnOutcome(final_kind="answer", text=text, **common)
