"""OpenAI Chat Completions wire format (OpenAI, OpenRouter, and the local llama.cpp server)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx

from core.ir import (
    ChatRequest,
    ChatResponse,
    Message,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextBlock,
    TextDelta,
    ToolResultBlock,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from routing.providers.base import ProviderAdapter, ProviderError

_FINISH = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use"}


def _tool_history_as_calls(message: Message) -> list[dict[str, Any]]:
    """Canonical → OpenAI: tool_use blocks become `tool_calls`, tool_result blocks become `tool` messages."""
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
    results = [b for b in message.blocks if isinstance(b, ToolResultBlock)]
    wire = [{"role": "tool", "tool_call_id": b.tool_use_id, "content": b.content} for b in results]
    text = message.text_content
    if text or not results:
        wire.append({"role": message.role, "content": text})
    return wire


class OpenAICompatAdapter(ProviderAdapter):
    provider = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str = "",
        timeout_s: float = 60.0,
        connect_timeout_s: float = 3.0,
        extra_headers: dict[str, str] | None = None,
    ):
        headers = {"Content-Type": "application/json", **(extra_headers or {})}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
        )

    def close(self) -> None:
        self._client.close()

    # -- canonical -> wire -------------------------------------------------
    def render_message(self, message: Message) -> list[dict[str, Any]]:
        return _tool_history_as_calls(message)

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
            body["tool_choice"] = request.tool_choice
        return body

    # -- wire -> canonical -------------------------------------------------
    @staticmethod
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

    def from_wire(self, data: dict[str, Any], *, request: ChatRequest, latency_ms: int) -> ChatResponse:
        try:
            choice = data["choices"][0]
            wire_msg = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("protocol", f"response has no choices: {str(data)[:200]}") from None
        blocks: list = []
        if wire_msg.get("content"):
            blocks.append(TextBlock(wire_msg["content"]))
        for call in wire_msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {"_raw": fn.get("arguments")}
            blocks.append(ToolUseBlock(id=call.get("id") or "", name=fn.get("name") or "", input=args))
        usage = self.usage_from_wire(data.get("usage")) or self.count_usage(request, wire_msg.get("content") or "")
        return ChatResponse(
            message=Message(role="assistant", blocks=tuple(blocks)),
            stop_reason=_FINISH.get(choice.get("finish_reason") or "stop", "end_turn"),
            usage=usage,
            model=data.get("model") or request.model,
            provider=self.provider,
            latency_ms=latency_ms,
        )

    def count_usage(self, request: ChatRequest, output_text: str) -> Usage:
        """Hook for servers that omit usage; hosted providers always send it."""
        return Usage()

    # -- transport ---------------------------------------------------------
    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            body = response.read().decode("utf-8", "replace")[:500]
        except httpx.HTTPError:
            body = ""
        status = response.status_code
        if status in (401, 403):
            raise ProviderError("auth", body or "unauthorized", status=status)
        if status == 429:
            retry = response.headers.get("retry-after")
            try:
                retry_s = float(retry) if retry else None
            except ValueError:
                retry_s = None
            raise ProviderError("rate_limit", body or "rate limited", status=status, retry_after_s=retry_s)
        if status in (400, 404, 413, 422):
            kind = "context_length" if "context" in body.lower() and "length" in body.lower() else "bad_request"
            raise ProviderError(kind, body or "bad request", status=status)
        raise ProviderError("server", body or f"HTTP {status}", status=status)

    def _transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        if isinstance(exc, httpx.TimeoutException):
            return ProviderError("timeout", f"model server at {self.base_url} timed out")
        return ProviderError("network", f"model unreachable at {self.base_url}: {exc.__class__.__name__}")

    def complete(self, request: ChatRequest) -> ChatResponse:
        body = self.to_wire(request) | {"stream": False}
        body.pop("stream_options", None)
        started = time.monotonic()
        try:
            response = self._client.post("/v1/chat/completions", json=body)
            self._raise_for_status(response)
            data = response.json()
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        except json.JSONDecodeError:
            raise ProviderError("protocol", "model server returned invalid JSON") from None
        return self.from_wire(data, request=request, latency_ms=int((time.monotonic() - started) * 1000))

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        body = self.to_wire(request) | {"stream": True}
        body.setdefault("stream_options", {"include_usage": True})
        text_parts: list[str] = []
        usage: Usage | None = None
        finish = "stop"
        open_tools: dict[int, bool] = {}
        started = False
        try:
            with self._client.stream("POST", "/v1/chat/completions", json=body) as response:
                self._raise_for_status(response)
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    try:
                        chunk = json.loads(payload)
                    except json.JSONDecodeError:
                        raise ProviderError("protocol", f"invalid SSE chunk: {payload[:120]}") from None
                    if not started:
                        started = True
                        yield MessageStart(model=chunk.get("model") or request.model)
                    usage = self.usage_from_wire(chunk.get("usage")) or usage
                    for choice in chunk.get("choices") or []:
                        delta = choice.get("delta") or {}
                        if delta.get("content"):
                            text_parts.append(delta["content"])
                            yield TextDelta(delta["content"])
                        for call in delta.get("tool_calls") or []:
                            index = int(call.get("index", 0))
                            fn = call.get("function") or {}
                            if index not in open_tools:
                                open_tools[index] = True
                                yield ToolUseStart(index=index, id=call.get("id") or "", name=fn.get("name") or "")
                            if fn.get("arguments"):
                                yield ToolUseDelta(index=index, partial_json=fn["arguments"])
                        if choice.get("finish_reason"):
                            finish = choice["finish_reason"]
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        if not started:
            raise ProviderError("protocol", "model server closed the stream without a message")
        for index in open_tools:
            yield ToolUseStop(index=index)
        yield MessageStop(
            stop_reason=_FINISH.get(finish, "end_turn"),
            usage=usage or self.count_usage(request, "".join(text_parts)),
        )
