"""Runs one chat turn against a model and reports what happened.

This is the engine's direct mode: one streamed model call answers the turn. The planning
cascade (fastpath, autopath, proposer, validator, executor) is built on top of it; every
mode ends in the same TurnOutcome with exactly one final_kind. The engine knows nothing of
the database rows that hold a turn: its caller passes plain data in and persists the outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.conf import settings

from billing.cost import FREE, Price, call_cost, format_usd
from core.clock import monotonic_ms
from core.events import bus
from core.ir import ChatRequest, Message, MessageStop, SystemPrompt, TextDelta, Usage
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, UnknownModel, adapter_for, resolve

FINAL_KINDS = ("answer", "ask", "awaiting", "needs_inputs", "cap_steps", "cap_same_executor", "loop_break", "error")


class Cancelled(Exception):
    """Raised by a delta sink to stop a turn the user cancelled."""


@dataclass(frozen=True)
class TurnInput:
    turn_id: str
    session_id: str
    user_id: int
    text: str
    history: tuple[Message, ...] = ()
    model: str | None = None


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


def _price(model: ModelConfig) -> Price:
    if model.provider == "local":
        return FREE
    return Price(input_per_mtok=model.input_price_per_mtok, output_per_mtok=model.output_price_per_mtok)


def _user_facing(error: ProviderError) -> str:
    if error.kind in ("network", "timeout"):
        return f"The model is unreachable right now ({error.message}). Your message is saved; try again."
    return f"The model call failed ({error}). Your message is saved; try again."


def run_turn(inp: TurnInput, on_delta: Callable[[str], None]) -> TurnOutcome:
    started = monotonic_ms()
    ids = {"session_id": inp.session_id, "turn_id": inp.turn_id}
    bus.emit("turn.started", {"user_id": inp.user_id}, **ids)

    try:
        model = resolve(inp.model)
    except UnknownModel as exc:
        outcome = TurnOutcome(final_kind="error", text=str(exc), layer="route", error=str(exc))
        return _finish(outcome, started, ids)
    route = {"winner": model.id, "slot": "per_message" if inp.model else "global_default", "provider": model.provider}
    bus.emit("route.decided", route | {"elapsed_ms": round(monotonic_ms() - started, 3)}, **ids)

    request = ChatRequest(
        model=model.api_model,
        system=SystemPrompt(stable=settings.METNOS_SYSTEM_PROMPT),
        messages=(*inp.history, Message.text("user", inp.text)),
        max_tokens=model.max_output_tokens,
        stream=True,
    )
    parts: list[str] = []
    usage = Usage()
    call_started = monotonic_ms()
    status, error = "ok", None
    try:
        for event in adapter_for(model).stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
                on_delta(event.text)
            elif isinstance(event, MessageStop):
                usage = event.usage
    except ProviderError as exc:
        status, error = "error", exc
    except Cancelled:
        status = "cancelled"
    model_ms = int(monotonic_ms() - call_started)
    cost = call_cost(usage=usage, price=_price(model))
    bus.emit(
        "llm.call_completed",
        {
            "model": model.id,
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
    outcome = TurnOutcome(
        final_kind=final_kind,
        text=text,
        layer="direct",
        usage=usage,
        cost_usd=cost,
        model_ms=model_ms,
        route=route,
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
