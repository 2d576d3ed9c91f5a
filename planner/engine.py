"""Runs one chat turn against a model and reports what happened.

This is the engine's direct mode: the routing chain picks a model and one streamed call answers
the turn. The planning cascade (fastpath, autopath, proposer, validator, executor) is built on
top of it; every mode ends in the same TurnOutcome with exactly one final_kind. The engine knows
nothing of the database rows that hold a turn: its caller passes plain data in and persists the
outcome."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.conf import settings

from billing.cost import call_cost, format_usd
from billing.prices import list_price
from core.clock import monotonic_ms
from core.events import bus
from core.ir import ChatRequest, Message, MessageStop, SystemPrompt, TextDelta, Usage
from routing import patterns
from routing import policy as policies
from routing.availability import availability
from routing.chain import NoRoute, RouteDecision, RouteInputs, decide
from routing.fingerprint import TurnNeeds, estimate_tokens, fingerprint
from routing.policy import PolicyError
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for

logger = logging.getLogger(__name__)

FINAL_KINDS = ("answer", "ask", "awaiting", "needs_inputs", "cap_steps", "cap_same_executor", "loop_break", "error")
REASONING_HINT = "Think step by step before you answer, then give the answer."


class Cancelled(Exception):
    """Raised by a delta sink to stop a turn the user cancelled."""


@dataclass(frozen=True)
class TurnInput:
    turn_id: str
    session_id: str
    user_id: int
    text: str
    history: tuple[Message, ...] = ()
    model: str | None = None  # slot 1: a per-message override
    sticky_model: str | None = None  # slot 2: the session's pinned model
    workspace: str = ""


@dataclass(frozen=True)
class TurnOutcome:
    final_kind: str
    text: str
    layer: str
    usage: Usage = field(default_factory=Usage)
    cost_usd: Decimal = Decimal("0")
    latency_ms: int = 0
    model_ms: int = 0
    route: dict = field(default_factory=dict)
    error: str = ""


def _user_facing(error: ProviderError) -> str:
    if error.kind in ("network", "timeout"):
        return f"The model is unreachable right now ({error.message}). Your message is saved; try again."
    return f"The model call failed ({error}). Your message is saved; try again."


def _cost(model: ModelConfig, usage: Usage, reported: Decimal | None) -> Decimal:
    if reported is not None:
        return reported
    price = list_price(provider_kind=model.provider_kind, api_model=model.api_model)
    if price is None:
        logger.warning("no list price for %s; its calls are recorded at $0", model.api_model)
        return Decimal("0")
    return call_cost(usage=usage, price=price)


def _route(inp: TurnInput, needs: TurnNeeds, ids: dict) -> RouteDecision:
    try:
        policy = policies.load(settings.METNOS_ROUTING_FILE)
    except PolicyError as exc:
        logger.error("ignoring routing rules: %s", exc)
        policy = policies.EMPTY
    inputs = RouteInputs(per_message=inp.model, sticky=inp.sticky_model, policy=policy)
    return decide(needs, inputs, **ids)


def run_turn(inp: TurnInput, on_delta: Callable[[str], None]) -> TurnOutcome:
    started = monotonic_ms()
    ids = {"session_id": inp.session_id, "turn_id": inp.turn_id}
    bus.emit("turn.started", {"user_id": inp.user_id}, **ids)

    system = SystemPrompt(stable=settings.METNOS_SYSTEM_PROMPT)
    prompt_text = system.joined + "".join(m.text_content for m in inp.history) + inp.text
    needs = TurnNeeds(estimated_tokens=estimate_tokens(prompt_text), text=inp.text, workspace=inp.workspace)
    try:
        decision = _route(inp, needs, ids)
    except NoRoute as exc:
        return _finish(TurnOutcome(final_kind="error", text=str(exc), layer="route", error=str(exc)), started, ids)
    override = decision.verdicts[0]
    if override.verdict == "rejected" and override.reason == "not_configured":
        # The user named a model for this message; serving it with another would ignore them.
        message = f"Cannot use {override.model!r}: {override.detail}"
        return _finish(TurnOutcome(final_kind="error", text=message, layer="route", error=message), started, ids)
    model = decision.model

    if model.params.get("reasoning"):
        system = replace(system, volatile=REASONING_HINT)
    request = ChatRequest(
        model=model.api_model,
        system=system,
        messages=(*inp.history, Message.text("user", inp.text)),
        max_tokens=model.output_budget(),
        temperature=model.params.get("temperature"),
        stream=True,
    )
    parts: list[str] = []
    usage, reported = Usage(), None
    call_started = monotonic_ms()
    status, error = "ok", None
    try:
        for event in adapter_for(model).stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
                on_delta(event.text)
            elif isinstance(event, MessageStop):
                usage, reported = event.usage, event.reported_cost_usd
        availability.record_success(model.name, model.provider)
    except ProviderError as exc:
        status, error = "error", exc
        availability.record_failure(model.name, model.provider, exc)
    except Cancelled:
        status = "cancelled"
    model_ms = int(monotonic_ms() - call_started)
    cost = _cost(model, usage, reported)
    bus.emit(
        "llm.call_completed",
        {
            "model": model.name,
            "provider": model.provider,
            "usage": usage.to_dict(),
            "cost_usd": format_usd(cost),
            "latency_ms": model_ms,
            "status": status,
            "error": str(error) if error else "",
            "role": "planner",
            "user_id": inp.user_id,
            "inbound_shape": "chat",
        },
        **ids,
    )
    final_kind, text, error_text = "answer", "".join(parts), ""
    if error is not None:
        final_kind, text, error_text = "error", _user_facing(error), str(error)
    elif status == "cancelled":
        final_kind, error_text = "error", "cancelled by the user"
    else:
        bus.emit("layer.resolved", {"layer": "direct"}, **ids)
    patterns.record(
        fingerprint=decision.fingerprint or fingerprint(needs),
        model=model.name,
        cost_usd=cost,
        latency_ms=model_ms,
        final_kind=final_kind,
        errors=int(error is not None),
        turn_id=inp.turn_id,
        workspace=inp.workspace,
    )
    outcome = TurnOutcome(
        final_kind=final_kind,
        text=text,
        layer="direct",
        usage=usage,
        cost_usd=cost,
        model_ms=model_ms,
        route=decision.to_dict(),
        error=error_text,
    )
    return _finish(outcome, started, ids)


def _finish(outcome: TurnOutcome, started: float, ids: dict) -> TurnOutcome:
    latency = int(monotonic_ms() - started)
    outcome = replace(outcome, latency_ms=latency)
    if outcome.final_kind == "error":
        bus.emit("error", {"message": outcome.error or outcome.text}, **ids)
    bus.emit(
        "turn.completed",
        {
            "final_kind": outcome.final_kind,
            "layer": outcome.layer,
            "latency_ms": latency,
            "cost_usd": format_usd(outcome.cost_usd),
        },
        **ids,
    )
    return outcome
