"""Where a model call of the planner is metered: the routed model's adapter, streamed or not, runs
inside billing's metering (admission, ledger row, settlement, `llm.call_completed`), and its
outcome is recorded in routing's availability."""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from billing import gate, ledger, metering
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
    """One metered model call: rate limits and budgets first (a ledger row is written before
    the call, so none is lost), then the call, then its settlement and `llm.call_completed`."""
    identity = gate.Identity(user_id=user_id, team_id=ledger.team_of(user_id), key_id=key_id)
    metered_call = metering.Call(
        model=model,
        identity=identity,
        role=role,
        inbound_shape=inbound_shape,
        slot=slot,
        session_id=ids.get("session_id"),
        turn_id=ids.get("turn_id"),
    )
    try:
        admitted = metering.admit(
            metered_call,
            prompt_tokens=request.prompt_tokens_estimate(),
            max_tokens=request.max_tokens or model.max_output_tokens,
        )
    except gate.Refused as refused:
        kind = "budget" if refused.kind == "budget" else "rate_limit"
        error = ProviderError(kind, str(refused), retry_after_s=refused.retry_after, provider=model.provider)
        metering.refused(metered_call, error)
        return LLMResult("", model, error=error)
    outcome, cost = metering.metered(admitted, lambda: _run(request, model, on_delta))
    text, tool_uses = outcome.result
    return LLMResult(
        text,
        model,
        outcome.usage,
        cost,
        metering.latency_ms(admitted, outcome),
        outcome.error,
        outcome.status == "cancelled",
        tool_uses,
    )


def _run(request: ChatRequest, model: ModelConfig, on_delta: Callable[[str], None] | None) -> metering.Outcome:
    """The adapter call, streamed to `on_delta` or not, told to availability. The result is the
    text (what came before a failure or a cancel included) and the native tool calls."""
    outcome = metering.Outcome()
    parts: list[str] = []
    tool_uses: tuple[ToolUseBlock, ...] = ()
    adapter = adapter_for(model)
    try:
        if on_delta is not None:
            for event in adapter.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    on_delta(event.text)
                elif isinstance(event, MessageStop):
                    outcome.usage, outcome.reported_cost = event.usage, event.reported_cost_usd
        else:
            response = adapter.complete(request)
            parts.append(response.message.text_content)
            outcome.usage, outcome.reported_cost = response.usage, response.reported_cost_usd
            tool_uses = tuple(b for b in response.message.blocks if isinstance(b, ToolUseBlock))
        availability.record_success(model.name, model.provider)
    except ProviderError as exc:
        outcome.status, outcome.error = "error", exc
        availability.record_failure(model.name, model.provider, exc)
    except Cancelled:
        outcome.status = "cancelled"
    outcome.result = ("".join(parts), tool_uses)
    return outcome


def user_facing(error: ProviderError) -> str:
    if error.kind == "budget":
        return (
            f"This call was not made: {error.message}. Ask an admin to raise the budget, or wait for the next period."
        )
    if error.kind in ("network", "timeout"):
        return f"The model is unreachable right now ({error.message}). Your message is saved; try again."
    return f"The model call failed ({error}). Your message is saved; try again."


def model_text(text: str) -> str:
    """Words a model wrote for the user, as stored: small models write HTML entities («What&#39;s»)
    that the chat, which shows plain text, would print as they are."""
    return html.unescape(text) if "&" in text else text
