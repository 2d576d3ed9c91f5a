"""One model call, accounted: the adapter for the routed model, streamed or not, with the
outcome recorded in availability, its cost computed, and one `llm.call_completed` event."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from billing.cost import call_cost, format_usd
from billing.prices import list_price
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


def cost_of(model: ModelConfig, usage: Usage, reported: Decimal | None = None) -> Decimal:
    if reported is not None:
        return reported
    price = list_price(provider_kind=model.provider_kind, api_model=model.api_model)
    if price is None:
        logger.warning("no list price for %s; its calls are recorded at $0", model.api_model)
        return Decimal("0")
    return call_cost(usage=usage, price=price)


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
) -> LLMResult:
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
    cost = cost_of(model, usage, reported)
    status = "error" if error else ("cancelled" if cancelled else "ok")
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
            "inbound_shape": "chat",
        },
        **ids,
    )
    return LLMResult("".join(parts), model, usage, cost, model_ms, error, cancelled, tool_uses)


def user_facing(error: ProviderError) -> str:
    if error.kind in ("network", "timeout"):
        return f"The model is unreachable right now ({error.message}). Your message is saved; try again."
    return f"The model call failed ({error}). Your message is saved; try again."
