"""The canonical message format. Provider adapters translate to and from it at the edge;
everything inside Metnos speaks only these types."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, Literal

from core.tokens import estimate

Role = Literal["user", "assistant", "system", "tool"]


@dataclass(frozen=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ImageBlock:
    media_type: str
    data: str  # base64
    type: Literal["image"] = "image"
    # An image the provider fetches itself (media_type and data left empty).
    url: str = ""


@dataclass(frozen=True)
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"


@dataclass(frozen=True)
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True)
class ThinkingBlock:
    thinking: str
    signature: str = ""
    type: Literal["thinking"] = "thinking"


Block = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock
_BLOCK_TYPES: dict[str, type] = {
    "text": TextBlock,
    "image": ImageBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
    "thinking": ThinkingBlock,
}


@dataclass(frozen=True)
class Message:
    role: Role
    blocks: tuple[Block, ...]

    @classmethod
    def text(cls, role: Role, text: str) -> Message:
        return cls(role=role, blocks=(TextBlock(text),))

    @property
    def text_content(self) -> str:
        return "".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "blocks": [asdict(b) for b in self.blocks]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        blocks = []
        for raw in data["blocks"]:
            kind = raw.get("type")
            if kind not in _BLOCK_TYPES:
                raise ValueError(f"unknown block type {kind!r}")
            blocks.append(_BLOCK_TYPES[kind](**{k: v for k, v in raw.items() if k != "type"}))
        return cls(role=data["role"], blocks=tuple(blocks))


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class SystemPrompt:
    """Two segments: `stable` is cacheable across turns, `volatile` changes every turn
    (memory, time). Adapters put the prompt-cache breakpoint between them."""

    stable: str = ""
    volatile: str = ""

    @property
    def joined(self) -> str:
        return "\n\n".join(part for part in (self.stable, self.volatile) if part)


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[Message, ...]
    system: SystemPrompt = field(default_factory=SystemPrompt)
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str | dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    response_format: dict[str, Any] | None = None
    stream: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    stop: tuple[str, ...] = ()
    top_p: float | None = None
    seed: int | None = None
    # Anthropic's extended thinking ({"type": "enabled", "budget_tokens": N}) and OpenAI's
    # reasoning_effort: each reaches only the providers that have it; the others drop it.
    thinking: dict[str, Any] | None = None
    reasoning_effort: str | None = None
    # The client asked for a final usage chunk (OpenAI's stream_options.include_usage). Adapters
    # always ask their upstream for usage, so metering has it either way.
    include_usage: bool = False

    def prompt_tokens_estimate(self, extra_chars: int = 0) -> int:
        """About four characters a token, never zero: what budgets reserve for the prompt and
        what the gateway checks against a context window (an estimate, not a bill)."""
        chars = sum(len(m.text_content) for m in self.messages) + len(self.system.joined) + extra_chars
        return estimate(chars=chars) + 1


StopReason = Literal["end_turn", "max_tokens", "tool_use", "stop_sequence", "error"]


@dataclass(frozen=True)
class ChatResponse:
    message: Message
    stop_reason: StopReason
    usage: Usage
    model: str
    provider: str
    latency_ms: int
    # What the provider itself says the call cost (OpenRouter's usage.cost), when it says so.
    reported_cost_usd: Decimal | None = None


# Stream events, in the order an adapter yields them.
@dataclass(frozen=True)
class MessageStart:
    model: str
    type: Literal["message_start"] = "message_start"


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of a thinking block (Anthropic's extended thinking). `index` is the upstream's
    block index: it tells one thinking block from the next."""

    index: int
    thinking: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True)
class ThinkingStop:
    """The end of a thinking block, with its signature: what a client must send back, unchanged,
    for Anthropic to accept the block in a later turn."""

    index: int
    signature: str = ""
    type: Literal["thinking_stop"] = "thinking_stop"


@dataclass(frozen=True)
class ToolUseStart:
    index: int
    id: str
    name: str
    type: Literal["tool_use_start"] = "tool_use_start"


@dataclass(frozen=True)
class ToolUseDelta:
    index: int
    partial_json: str
    type: Literal["tool_use_delta"] = "tool_use_delta"


@dataclass(frozen=True)
class ToolUseStop:
    index: int
    type: Literal["tool_use_stop"] = "tool_use_stop"


@dataclass(frozen=True)
class MessageStop:
    stop_reason: StopReason
    usage: Usage
    reported_cost_usd: Decimal | None = None
    type: Literal["message_stop"] = "message_stop"


# Consumers match events by type and skip those they do not use (thinking, for most of them).
StreamEvent = (
    MessageStart | TextDelta | ThinkingDelta | ThinkingStop | ToolUseStart | ToolUseDelta | ToolUseStop | MessageStop
)
