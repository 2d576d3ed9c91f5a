"""Anthropic Messages wire format, streaming included."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

from core.ir import (
    ChatRequest,
    ChatResponse,
    ImageBlock,
    Message,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingStop,
    ToolResultBlock,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from routing.providers.base import ProviderAdapter

logger = logging.getLogger(__name__)
API_VERSION = "2023-06-01"
PATH = "/v1/messages"
_STOP = {"end_turn": "end_turn", "max_tokens": "max_tokens", "tool_use": "tool_use", "stop_sequence": "stop_sequence"}
DEFAULT_MAX_TOKENS = 4096


def block_to_wire(block) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        if block.url:
            return {"type": "image", "source": {"type": "url", "url": block.url}}
        return {"type": "image", "source": {"type": "base64", "media_type": block.media_type, "data": block.data}}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        out = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": block.content}
        if block.is_error:
            out["is_error"] = True
        return out
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}


def block_from_wire(raw: dict[str, Any]):
    kind = raw.get("type")
    if kind == "text":
        return TextBlock(raw.get("text") or "")
    if kind == "tool_use":
        return ToolUseBlock(id=raw.get("id") or "", name=raw.get("name") or "", input=raw.get("input") or {})
    if kind == "thinking":
        return ThinkingBlock(raw.get("thinking") or "", raw.get("signature") or "")
    return None  # redacted_thinking, server tools: not part of the canonical format


def usage_from_wire(raw: dict[str, Any] | None) -> Usage:
    raw = raw or {}
    # Anthropic reports cached tokens apart from input_tokens, which is already the uncached part.
    return Usage(
        input_tokens=int(raw.get("input_tokens") or 0),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=int(raw.get("cache_read_input_tokens") or 0),
        cache_write_tokens=int(raw.get("cache_creation_input_tokens") or 0),
    )


def usage_to_wire(usage: Usage) -> dict[str, int]:
    """The canonical usage as Anthropic reports it (the gateway's Anthropic shape answers with it)."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
    }


class AnthropicAdapter(ProviderAdapter):
    provider = "anthropic"

    def __init__(self, *, base_url: str, api_key: str = "", **kw):
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        super().__init__(base_url=base_url, headers=headers, **kw)

    # -- canonical -> wire -------------------------------------------------
    def to_wire(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": self._messages(request.messages),
        }
        system = []
        if request.system.stable:
            # The prompt-cache breakpoint sits after the stable segment (tools and persona are
            # cached together), so the volatile segment can change every turn without a cache miss.
            system.append({"type": "text", "text": request.system.stable, "cache_control": {"type": "ephemeral"}})
        if request.system.volatile:
            system.append({"type": "text", "text": request.system.volatile})
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
            ]
        if request.tool_choice is not None:
            choice = request.tool_choice
            body["tool_choice"] = (
                {"type": "tool", "name": choice["name"]} if isinstance(choice, dict) else {"type": choice}
            )
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.top_p is not None:
            body["top_p"] = request.top_p
        if request.stop:
            body["stop_sequences"] = list(request.stop)
        if request.thinking is not None:
            body["thinking"] = request.thinking
        dropped = [name for name in ("seed", "reasoning_effort") if getattr(request, name) is not None]
        if dropped:
            logger.info("anthropic: dropped %s (the Messages API has no such field)", ", ".join(dropped))
        if request.response_format is not None:
            raise self._error(
                "bad_request", "the Anthropic adapter does not send response_format (no structured output)"
            )
        if request.stream:
            body["stream"] = True
        return body

    @staticmethod
    def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
        wire: list[dict[str, Any]] = []
        for message in messages:
            role = "assistant" if message.role == "assistant" else "user"
            blocks = [block_to_wire(b) for b in message.blocks]
            if wire and wire[-1]["role"] == role:
                wire[-1]["content"].extend(blocks)  # the API wants user and assistant to alternate
            else:
                wire.append({"role": role, "content": blocks})
        return wire

    # -- calls ---------------------------------------------------------------
    def complete(self, request: ChatRequest) -> ChatResponse:
        body = self.to_wire(request)
        body.pop("stream", None)
        started = time.monotonic()
        data = self._post_json(PATH, self._outgoing(body))
        if data.get("type") == "error":
            raise self._error("server", str(data.get("error"))[:300])
        if not isinstance(data.get("content"), list):
            raise self._error("protocol", f"response has no content: {str(data)[:200]}")
        blocks = tuple(b for b in (block_from_wire(raw) for raw in data["content"]) if b is not None)
        return ChatResponse(
            message=Message(role="assistant", blocks=blocks),
            stop_reason=_STOP.get(data.get("stop_reason") or "end_turn", "end_turn"),
            usage=usage_from_wire(data.get("usage")),
            model=data.get("model") or request.model,
            provider=self.provider,
            latency_ms=int((time.monotonic() - started) * 1000),
        )

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        body = self.to_wire(request) | {"stream": True}
        usage = Usage()
        stop_reason = "end_turn"
        tool_blocks: set[int] = set()
        signatures: dict[int, str] = {}  # open thinking blocks, by index
        started = finished = False
        for event_name, data in self._sse(PATH, self._outgoing(body)):
            event = self._json_event(data)
            kind = event.get("type") or event_name
            if kind == "ping":
                continue
            if kind == "error":
                error = event.get("error") or {}
                err_kind = "rate_limit" if error.get("type") == "rate_limit_error" else "server"
                raise self._error(err_kind, f"{error.get('type')}: {error.get('message')}")
            if kind == "message_start":
                message = event.get("message") or {}
                usage = usage_from_wire(message.get("usage"))
                started = True
                yield MessageStart(model=message.get("model") or request.model)
            elif kind == "content_block_start":
                block = event.get("content_block") or {}
                index = int(event.get("index", 0))
                if block.get("type") == "tool_use":
                    tool_blocks.add(index)
                    yield ToolUseStart(index=index, id=block.get("id") or "", name=block.get("name") or "")
                elif block.get("type") == "thinking":
                    signatures[index] = block.get("signature") or ""
                    if block.get("thinking"):
                        yield ThinkingDelta(index=index, thinking=block["thinking"])
                elif block.get("type") == "text" and block.get("text"):
                    yield TextDelta(block["text"])
            elif kind == "content_block_delta":
                delta = event.get("delta") or {}
                index = int(event.get("index", 0))
                if delta.get("type") == "text_delta":
                    yield TextDelta(delta.get("text") or "")
                elif delta.get("type") == "input_json_delta":
                    yield ToolUseDelta(index=index, partial_json=delta.get("partial_json") or "")
                elif delta.get("type") == "thinking_delta":
                    yield ThinkingDelta(index=index, thinking=delta.get("thinking") or "")
                elif delta.get("type") == "signature_delta":
                    signatures[index] = signatures.get(index, "") + (delta.get("signature") or "")
            elif kind == "content_block_stop":
                index = int(event.get("index", 0))
                if index in tool_blocks:
                    yield ToolUseStop(index=index)
                elif index in signatures:
                    yield ThinkingStop(index=index, signature=signatures.pop(index))
            elif kind == "message_delta":
                stop_reason = _STOP.get((event.get("delta") or {}).get("stop_reason") or "", stop_reason)
                # message_delta carries cumulative counts; the fields it omits or sends as null keep
                # the values message_start gave (input and cache tokens come there).
                raw = {name: value for name, value in (event.get("usage") or {}).items() if value is not None}
                if raw:
                    usage = usage_from_wire({**usage_to_wire(usage), **raw})
            elif kind == "message_stop":
                finished = True
                break
        if not started:
            raise self._error("protocol", "anthropic closed the stream without a message")
        if not finished:
            raise self._error("protocol", "anthropic stream was cut off before message_stop")
        yield MessageStop(stop_reason=stop_reason, usage=usage)
