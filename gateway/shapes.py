"""The two inbound shapes, OpenAI chat completions and Anthropic messages: wire request →
canonical ChatRequest, canonical response or stream → wire, and errors in each shape's own form.
Any shape reaches any provider: the provider adapters translate canonical ↔ their wire on the
other side."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from core.ir import (
    ChatRequest,
    ChatResponse,
    Message,
    MessageStart,
    MessageStop,
    SystemPrompt,
    TextBlock,
    TextDelta,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)


class BadRequest(ValueError):
    """The body is not a valid request of this shape (HTTP 400)."""


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    raise BadRequest("message content must be a string or a list of parts")


def _int(body: dict, name: str, default=None):
    value = body.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise BadRequest(f"`{name}` must be a positive integer")
    return value


def _check_common(body: dict) -> None:
    """The fields both shapes share, by type: a wrong type is a 400 that names the field."""
    tools = body.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools)):
        raise BadRequest("`tools` must be a list of objects")
    temperature = body.get("temperature")
    if temperature is not None and (
        not isinstance(temperature, int | float) or isinstance(temperature, bool) or not 0 <= temperature <= 2
    ):
        raise BadRequest("`temperature` must be a number from 0 to 2")
    if body.get("tool_choice") is not None and not isinstance(body["tool_choice"], str | dict):
        raise BadRequest("`tool_choice` must be a string or an object")
    if body.get("response_format") is not None and not isinstance(body["response_format"], dict):
        raise BadRequest("`response_format` must be an object")
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        raise BadRequest("`stream` must be true or false")


def _object(value: Any, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"{what} must be an object")
    return value


class OpenAIShape:
    name = "openai"

    # -- request ------------------------------------------------------------------------------
    def parse(self, body: dict) -> tuple[str, ChatRequest]:
        model = body.get("model")
        messages = body.get("messages")
        if not isinstance(model, str) or not model:
            raise BadRequest("`model` is required")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("`messages` must be a non-empty list")
        _check_common(body)
        system: list[str] = []
        out: list[Message] = []
        for raw in messages:
            if not isinstance(raw, dict):
                raise BadRequest("each message must be an object")
            role = raw.get("role")
            if role in ("system", "developer"):
                system.append(_text_of(raw.get("content")))
            elif role == "user":
                out.append(Message.text("user", _text_of(raw.get("content"))))
            elif role == "assistant":
                blocks: list = []
                if raw.get("content"):
                    blocks.append(TextBlock(_text_of(raw["content"])))
                calls = raw.get("tool_calls") or []
                if not isinstance(calls, list):
                    raise BadRequest("`tool_calls` must be a list")
                for call in calls:
                    fn = _object(_object(call, "a tool call").get("function"), "a tool call's `function`")
                    arguments = fn.get("arguments") or "{}"
                    try:
                        args = json.loads(arguments) if isinstance(arguments, str) else None
                    except json.JSONDecodeError as exc:
                        raise BadRequest(f"tool call arguments are not JSON: {exc.msg}") from exc
                    if not isinstance(args, dict):
                        raise BadRequest("tool call arguments must be a JSON object in a string")
                    name = str(fn.get("name") or "")
                    blocks.append(ToolUseBlock(id=str(call.get("id") or ""), name=name, input=args))
                out.append(Message("assistant", tuple(blocks)))
            elif role == "tool":
                result = ToolResultBlock(
                    tool_use_id=raw.get("tool_call_id") or "", content=_text_of(raw.get("content"))
                )
                if out and out[-1].role == "user" and all(isinstance(b, ToolResultBlock) for b in out[-1].blocks):
                    out[-1] = Message("user", (*out[-1].blocks, result))
                else:
                    out.append(Message("user", (result,)))
            else:
                raise BadRequest(f"unknown message role {role!r}")
        functions = [_object(t.get("function"), "a tool's `function`") for t in body.get("tools") or []]
        tools = tuple(
            ToolSpec(
                name=str(fn.get("name", "")),
                description=str(fn.get("description", "")),
                input_schema=_object(fn.get("parameters"), "a tool's `parameters`") or {"type": "object"},
            )
            for fn in functions
        )
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"name": str(_object(choice.get("function"), "`tool_choice.function`").get("name", ""))}
        elif choice == "required":
            choice = "any"
        max_tokens = _int(body, "max_completion_tokens") or _int(body, "max_tokens")
        return model, ChatRequest(
            model=model,
            messages=tuple(out),
            system=SystemPrompt(stable="\n\n".join(s for s in system if s)),
            tools=tools,
            tool_choice=choice,
            max_tokens=max_tokens,
            temperature=body.get("temperature"),
            response_format=body.get("response_format"),
            stream=bool(body.get("stream")),
        )

    # -- response -----------------------------------------------------------------------------
    _FINISH = {"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls", "stop_sequence": "stop"}

    def render(self, response: ChatResponse, model: str) -> dict:
        text = "".join(b.text for b in response.message.blocks if isinstance(b, TextBlock))
        calls = [
            {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": json.dumps(b.input)}}
            for b in response.message.blocks
            if isinstance(b, ToolUseBlock)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": self._FINISH.get(response.stop_reason, "stop")}
            ],
            "usage": self.usage(response.usage),
        }

    @staticmethod
    def usage(usage: Usage) -> dict:
        prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        return {
            "prompt_tokens": prompt,
            "completion_tokens": usage.output_tokens,
            "total_tokens": prompt + usage.output_tokens,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens},
        }

    def stream(self, events: Iterator, model: str) -> Iterator[bytes]:
        ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

        def chunk(delta: dict, finish=None, usage=None) -> bytes:
            body = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            if usage is not None:
                body["usage"] = usage
            return f"data: {json.dumps(body)}\n\n".encode()

        tool_slots: dict[int, int] = {}
        for event in events:
            if isinstance(event, MessageStart):
                yield chunk({"role": "assistant", "content": ""})
            elif isinstance(event, TextDelta):
                yield chunk({"content": event.text})
            elif isinstance(event, ToolUseStart):
                tool_slots[event.index] = len(tool_slots)
                yield chunk({"tool_calls": [{"index": tool_slots[event.index], "id": event.id, "type": "function",
                                             "function": {"name": event.name, "arguments": ""}}]})  # fmt: skip
            elif isinstance(event, ToolUseDelta):
                yield chunk({"tool_calls": [{"index": tool_slots.get(event.index, 0),
                                             "function": {"arguments": event.partial_json}}]})  # fmt: skip
            elif isinstance(event, MessageStop):
                yield chunk({}, finish=self._FINISH.get(event.stop_reason, "stop"))
                body = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                        "choices": [], "usage": self.usage(event.usage)}  # fmt: skip
                yield f"data: {json.dumps(body)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    # -- errors -------------------------------------------------------------------------------
    _TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 402: "insufficient_quota",
              403: "permission_error", 404: "not_found_error", 413: "invalid_request_error",
              429: "rate_limit_exceeded", 500: "api_error", 502: "api_error", 503: "api_error"}  # fmt: skip

    def error(self, status: int, message: str, code: str | None = None) -> dict:
        return {
            "error": {"message": message, "type": self._TYPES.get(status, "api_error"), "param": None, "code": code}
        }

    def stream_error(self, status: int, message: str) -> bytes:
        return f"data: {json.dumps(self.error(status, message))}\n\n".encode()


class AnthropicShape:
    name = "anthropic"

    def parse(self, body: dict) -> tuple[str, ChatRequest]:
        model = body.get("model")
        messages = body.get("messages")
        if not isinstance(model, str) or not model:
            raise BadRequest("model: Field required")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("messages: must be a non-empty list")
        max_tokens = _int(body, "max_tokens")
        if max_tokens is None:
            raise BadRequest("max_tokens: Field required")
        _check_common(body)
        system = body.get("system")
        system_text = system if isinstance(system, str) else _text_of(system) if system else ""
        out: list[Message] = []
        for raw in messages:
            if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant"):
                raise BadRequest("messages: each message needs role user or assistant")
            content = raw.get("content")
            if isinstance(content, str):
                out.append(Message.text(raw["role"], content))
                continue
            if not isinstance(content, list):
                raise BadRequest("messages: content must be a string or a list of blocks")
            blocks: list = []
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text":
                    if not isinstance(block.get("text", ""), str):
                        raise BadRequest("messages: a text block's `text` must be a string")
                    blocks.append(TextBlock(block.get("text", "")))
                elif kind == "tool_use":
                    tool_input = _object(block.get("input"), "messages: a tool_use block's `input`")
                    name = str(block.get("name", ""))
                    blocks.append(ToolUseBlock(id=str(block.get("id", "")), name=name, input=tool_input))
                elif kind == "tool_result":
                    blocks.append(ToolResultBlock(tool_use_id=block.get("tool_use_id", ""),
                                                  content=_text_of(block.get("content")),
                                                  is_error=bool(block.get("is_error"))))  # fmt: skip
                elif kind in ("thinking", "redacted_thinking", "image", "document"):
                    continue  # not carried across providers
                else:
                    raise BadRequest(f"messages: unknown content block type {kind!r}")
            out.append(Message(raw["role"], tuple(blocks)))
        tools = tuple(
            ToolSpec(
                name=str(t["name"]),
                description=str(t.get("description", "")),
                input_schema=_object(t.get("input_schema"), "a tool's `input_schema`"),
            )
            for t in body.get("tools") or []
            if t.get("name")
        )
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"name": str(choice.get("name", ""))} if choice.get("type") == "tool" else choice.get("type")
        return model, ChatRequest(
            model=model,
            messages=tuple(out),
            system=SystemPrompt(stable=system_text),
            tools=tools,
            tool_choice=choice,
            max_tokens=max_tokens,
            temperature=body.get("temperature"),
            stream=bool(body.get("stream")),
        )

    @staticmethod
    def usage(usage: Usage) -> dict:
        return {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_input_tokens": usage.cache_read_tokens,
            "cache_creation_input_tokens": usage.cache_write_tokens,
        }

    def render(self, response: ChatResponse, model: str) -> dict:
        content = []
        for b in response.message.blocks:
            if isinstance(b, TextBlock):
                content.append({"type": "text", "text": b.text})
            elif isinstance(b, ToolUseBlock):
                content.append(
                    {
                        "type": "tool_use",
                        "id": b.id or f"toolu_{uuid.uuid4().hex[:20]}",
                        "name": b.name,
                        "input": b.input,
                    }
                )
        return {
            "id": f"msg_{uuid.uuid4().hex}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": response.stop_reason if response.stop_reason != "error" else "end_turn",
            "stop_sequence": None,
            "usage": self.usage(response.usage),
        }

    def stream(self, events: Iterator, model: str) -> Iterator[bytes]:
        def sse(kind: str, **data) -> bytes:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

        index = -1
        text_open = False
        for event in events:
            if isinstance(event, MessageStart):
                message = {
                    "id": f"msg_{uuid.uuid4().hex}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 0, "output_tokens": 0},
                }
                yield sse("message_start", message=message)
            elif isinstance(event, TextDelta):
                if not text_open:
                    index += 1
                    text_open = True
                    yield sse("content_block_start", index=index, content_block={"type": "text", "text": ""})
                yield sse("content_block_delta", index=index, delta={"type": "text_delta", "text": event.text})
            elif isinstance(event, ToolUseStart):
                if text_open:
                    yield sse("content_block_stop", index=index)
                    text_open = False
                index += 1
                yield sse("content_block_start", index=index,
                          content_block={"type": "tool_use", "id": event.id or f"toolu_{uuid.uuid4().hex[:20]}",
                                         "name": event.name, "input": {}})  # fmt: skip
            elif isinstance(event, ToolUseDelta):
                yield sse(
                    "content_block_delta",
                    index=index,
                    delta={"type": "input_json_delta", "partial_json": event.partial_json},
                )
            elif isinstance(event, ToolUseStop):
                yield sse("content_block_stop", index=index)
            elif isinstance(event, MessageStop):
                if text_open:
                    yield sse("content_block_stop", index=index)
                stop = event.stop_reason if event.stop_reason != "error" else "end_turn"
                yield sse(
                    "message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage=self.usage(event.usage)
                )
                yield sse("message_stop")

    _TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
              404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
              502: "api_error", 503: "overloaded_error"}  # fmt: skip

    def error(self, status: int, message: str, code: str | None = None) -> dict:
        return {"type": "error", "error": {"type": self._TYPES.get(status, "api_error"), "message": message}}

    def stream_error(self, status: int, message: str) -> bytes:
        return f"event: error\ndata: {json.dumps(self.error(status, message))}\n\n".encode()


SHAPES = {"openai": OpenAIShape(), "anthropic": AnthropicShape()}
