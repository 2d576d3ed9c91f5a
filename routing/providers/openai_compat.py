"""OpenAI Chat Completions wire format: OpenAI, OpenRouter and the local llama.cpp server."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
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
    ToolResultBlock,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from routing.providers.base import ProviderAdapter

logger = logging.getLogger(__name__)
_FINISH = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use"}
PATH = "/v1/chat/completions"


def _content(blocks: list) -> str | list[dict[str, Any]]:
    """Plain text stays a string; text with images becomes OpenAI content parts."""
    if not any(isinstance(b, ImageBlock) for b in blocks):
        return "".join(b.text for b in blocks if isinstance(b, TextBlock))
    parts: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append({"type": "text", "text": b.text})
        elif isinstance(b, ImageBlock):
            parts.append({"type": "image_url", "image_url": {"url": b.url or f"data:{b.media_type};base64,{b.data}"}})
    return parts


def message_to_wire(message: Message) -> list[dict[str, Any]]:
    """Canonical → OpenAI: tool_use blocks become `tool_calls`, tool_result blocks become
    `tool` messages (ids kept), thinking blocks are dropped (OpenAI has no slot for them)."""
    if message.role == "assistant":
        calls = [
            {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": json.dumps(b.input)}}
            for b in message.blocks
            if isinstance(b, ToolUseBlock)
        ]
        out: dict[str, Any] = {"role": "assistant", "content": message.text_content or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    wire = [
        {"role": "tool", "tool_call_id": b.tool_use_id, "content": b.content}
        for b in message.blocks
        if isinstance(b, ToolResultBlock)
    ]
    rest = [b for b in message.blocks if isinstance(b, TextBlock | ImageBlock)]
    if rest or not wire:
        wire.append({"role": message.role, "content": _content(rest)})
    return wire


def usage_from_wire(raw: dict[str, Any] | None) -> Usage | None:
    if not raw:
        return None
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0)
    # OpenAI's cached_tokens are a subset of prompt_tokens; canonical input_tokens excludes them.
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0) - cached,
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=cached,
    )


def reported_cost(raw: dict[str, Any] | None) -> Decimal | None:
    if not raw or raw.get("cost") is None:
        return None
    try:
        return Decimal(str(raw["cost"]))
    except InvalidOperation:
        return None


class OpenAICompatAdapter(ProviderAdapter):
    provider = "openai"

    def __init__(self, *, base_url: str, api_key: str = "", extra_headers: dict[str, str] | None = None, **kw):
        headers = dict(extra_headers or {})
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        super().__init__(base_url=base_url, headers=headers, **kw)

    # -- canonical -> wire -------------------------------------------------
    def render_message(self, message: Message) -> list[dict[str, Any]]:
        return message_to_wire(message)

    def to_wire(self, request: ChatRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system.joined:
            messages.append({"role": "system", "content": request.system.joined})
        for message in request.messages:
            messages.extend(self.render_message(message))
        body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": request.stream}
        if request.stream:
            body["stream_options"] = {"include_usage": True}
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.top_p is not None:
            body["top_p"] = request.top_p
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        if request.reasoning_effort is not None:
            body["reasoning_effort"] = request.reasoning_effort
        if request.thinking is not None:
            logger.info("%s: dropped `thinking` (Anthropic's; this API has no such field)", self.provider)
        if request.response_format is not None:
            body["response_format"] = request.response_format
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                }
                for t in request.tools
            ]
        if request.tool_choice is not None:
            body["tool_choice"] = self._tool_choice(request.tool_choice)
        return body

    @staticmethod
    def _tool_choice(choice: str | dict[str, Any]) -> str | dict[str, Any]:
        """Canonical tool_choice: "auto" | "none" | "any" | {"name": tool}."""
        if isinstance(choice, dict):
            return {"type": "function", "function": {"name": choice["name"]}}
        return "required" if choice == "any" else choice

    # -- wire -> canonical -------------------------------------------------
    def from_wire(self, data: dict[str, Any], *, request: ChatRequest, latency_ms: int) -> ChatResponse:
        try:
            choice = data["choices"][0]
            wire_msg = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise self._error("protocol", f"response has no choices: {str(data)[:200]}") from None
        blocks: list = []
        if wire_msg.get("reasoning_content"):
            blocks.append(ThinkingBlock(wire_msg["reasoning_content"]))
        if wire_msg.get("content"):
            blocks.append(TextBlock(wire_msg["content"]))
        for call in wire_msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {"_raw": fn.get("arguments")}
            blocks.append(ToolUseBlock(id=call.get("id") or "", name=fn.get("name") or "", input=args))
        usage = usage_from_wire(data.get("usage")) or self.count_usage(request, wire_msg.get("content") or "")
        return ChatResponse(
            message=Message(role="assistant", blocks=tuple(blocks)),
            stop_reason=_FINISH.get(choice.get("finish_reason") or "stop", "end_turn"),
            usage=usage,
            model=data.get("model") or request.model,
            provider=self.provider,
            latency_ms=latency_ms,
            reported_cost_usd=reported_cost(data.get("usage")),
        )

    def count_usage(self, request: ChatRequest, output_text: str) -> Usage:
        """Hook for servers that omit usage; hosted providers always send it."""
        return Usage()

    # -- calls ---------------------------------------------------------------
    def complete(self, request: ChatRequest) -> ChatResponse:
        body = self.to_wire(request) | {"stream": False}
        body.pop("stream_options", None)
        started = time.monotonic()
        data = self._post_json(PATH, self._outgoing(body))
        return self.from_wire(data, request=request, latency_ms=int((time.monotonic() - started) * 1000))

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        body = self.to_wire(request) | {"stream": True}
        body.setdefault("stream_options", {"include_usage": True})
        text_parts: list[str] = []
        usage: Usage | None = None
        cost: Decimal | None = None
        finish: str | None = None
        open_tools: list[int] = []
        started = done = False
        for _event, data in self._sse(PATH, self._outgoing(body)):
            if data == "[DONE]":
                done = True
                break
            chunk = self._json_event(data)
            if "error" in chunk:
                raise self._error("server", f"error in stream: {str(chunk['error'])[:300]}")
            if not started:
                started = True
                yield MessageStart(model=chunk.get("model") or request.model)
            usage = usage_from_wire(chunk.get("usage")) or usage
            # A reported cost of 0 (a free model) is a cost, as in a call answered in one piece.
            cost = reported if (reported := reported_cost(chunk.get("usage"))) is not None else cost
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text_parts.append(delta["content"])
                    yield TextDelta(delta["content"])
                for call in delta.get("tool_calls") or []:
                    index = int(call.get("index", 0))
                    fn = call.get("function") or {}
                    if index not in open_tools:
                        open_tools.append(index)
                        yield ToolUseStart(index=index, id=call.get("id") or "", name=fn.get("name") or "")
                    if fn.get("arguments"):
                        yield ToolUseDelta(index=index, partial_json=fn["arguments"])
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        if not started:
            raise self._error("protocol", f"{self.provider} closed the stream without a message")
        if not done and finish is None:
            raise self._error("protocol", f"{self.provider} stream was cut off before it finished")
        for index in open_tools:
            yield ToolUseStop(index=index)
        yield MessageStop(
            stop_reason=_FINISH.get(finish or "stop", "end_turn"),
            usage=usage or self.count_usage(request, "".join(text_parts)),
            reported_cost_usd=cost,
        )


class OpenRouterAdapter(OpenAICompatAdapter):
    """OpenRouter speaks OpenAI Chat Completions, identifies the calling app by two headers and
    reports the call's cost in `usage.cost` when asked with `usage: {include: true}`."""

    provider = "openrouter"

    def __init__(self, *, app_url: str = "http://127.0.0.1:8000", app_title: str = "Metnos", **kw):
        headers = {"HTTP-Referer": app_url, "X-Title": app_title, **(kw.pop("extra_headers", None) or {})}
        super().__init__(extra_headers=headers, **kw)

    def to_wire(self, request: ChatRequest) -> dict[str, Any]:
        return super().to_wire(request) | {"usage": {"include": True}}
