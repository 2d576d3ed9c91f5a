"""One model call, accounted: the adapter for the routed model, streamed or not, with the
outcome recorded in availability, its cost computed, and one `llm.call_completed` event."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from billing import gate, ledger
from billing.cost import format_usd
from core.clock import monotonic_ms
from core.events import bus
from core.ir import ChatRequest, MessageStop, TextDelta, ToolUseBlock, Usage
from routing.availability import availability
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for

logger = logging.getLogger(__name__)


class Cancelled(Exception):
    """Raised by a delta sink to stop a turn the user cancelled."""


@dataclass(frozen=True)
class LLMResult:
    text: str
    model: ModelConfig
    usage: Usage = field(default_factory=Usage)
    cost: Decimal = Decimal("0")
    model_ms: int = 0
    error: ProviderError | None = None
    cancelled: bool = False
    tool_uses: tuple[ToolUseBlock, ...] = ()  # native tool calls in the reply (non-streamed calls)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cancelled


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cache_read_tokens + b.cache_read_tokens,
        a.cache_write_tokens + b.cache_write_tokens,
    )


def call(
    request: ChatRequest,
    model: ModelConfig,
    *,
    role: str,
    ids: dict,
    user_id: int | None,
    on_delta: Callable[[str], None] | None = None,
    key_id: str = "",
    inbound_shape: str = "chat",
    slot: str = "",
) -> LLMResult:
    """One accounted model call: rate limits and budgets first (a ledger row is written before
    the call, so none is lost), then the call, then its settlement and `llm.call_completed`."""
    identity = gate.Identity(user_id=user_id, team_id=ledger.team_of(user_id), key_id=key_id)
    try:
        opened = ledger.admit(
            model=model.name,
            provider=model.provider,
            provider_kind=model.provider_kind,
            api_model=model.api_model,
            prompt_tokens=request.prompt_tokens_estimate(),
            max_tokens=request.max_tokens or model.max_output_tokens,
            identity=identity,
            role=role,
            inbound_shape=inbound_shape,
            session_id=ids.get("session_id"),
            turn_id=ids.get("turn_id"),
            slot=slot,
        )
    except gate.Refused as refused:
        kind = "budget" if refused.kind == "budget" else "rate_limit"
        error = ProviderError(kind, str(refused), retry_after_s=refused.retry_after, provider=model.provider)
        _emit(model, Usage(), Decimal("0"), 0, "refused", error, role, user_id, identity, inbound_shape, ids)
        return LLMResult("", model, error=error)
    started = monotonic_ms()
    parts: list[str] = []
    usage, reported, error, cancelled = Usage(), None, None, False
    tool_uses: tuple[ToolUseBlock, ...] = ()
    adapter = adapter_for(model)
    try:
        if on_delta is not None:
            for event in adapter.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    on_delta(event.text)
                elif isinstance(event, MessageStop):
                    usage, reported = event.usage, event.reported_cost_usd
        else:
            response = adapter.complete(request)
            parts.append(response.message.text_content)
            usage, reported = response.usage, response.reported_cost_usd
            tool_uses = tuple(b for b in response.message.blocks if isinstance(b, ToolUseBlock))
        availability.record_success(model.name, model.provider)
    except ProviderError as exc:
        error = exc
        availability.record_failure(model.name, model.provider, exc)
    except Cancelled:
        cancelled = True
    model_ms = int(monotonic_ms() - started)
    status = "error" if error else ("cancelled" if cancelled else "ok")
    cost = ledger.settle(
        opened,
        usage=usage,
        status=status,
        latency_ms=model_ms,
        error=str(error) if error else "",
        reported_cost=reported,
    )
    _emit(model, usage, cost, model_ms, status, error, role, user_id, identity, inbound_shape, ids, opened.entry_id)
    return LLMResult("".join(parts), model, usage, cost, model_ms, error, cancelled, tool_uses)


def _emit(model, usage, cost, model_ms, status, error, role, user_id, identity, inbound_shape, ids, entry_id=None):
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
            "role": role,
            "user_id": user_id,
            "team_id": identity.team_id,
            "key_id": identity.key_id,
            "inbound_shape": inbound_shape,
            "ledger_id": str(entry_id) if entry_id else None,
        },
        **ids,
    )


def user_facing(error: ProviderError) -> str:
    if error.kind == "budget":
        return (
            f"This call was not made: {error.message}. Ask an admin to raise the budget, or wait for the next period."
        )
    if error.kind in ("network", "timeout"):
        return f"The model is unreachable right now ({error.message}). Your message is saved; try again."
    return f"The model call failed ({error}). Your message is saved; try again."
