"""The OpenAI chat-completions shape: wire request → canonical ChatRequest, canonical response or
stream → wire, and errors in OpenAI's form."""

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
    Usage,
)
from gateway import failures
from gateway.shapes.common import (
    BadRequest,
    check_common,
    drop_unknown,
    image_from_url,
    model_and_messages,
    object_of,
    positive_int,
    stop_of,
    text_of,
    tool_arguments,
)

KNOWN = frozenset(
    {"model", "messages", "tools", "tool_choice", "max_tokens", "max_completion_tokens", "temperature", "top_p",
     "stop", "seed", "response_format", "reasoning_effort", "stream", "stream_options"}
)  # fmt: skip


def user_blocks(content) -> tuple:
    """A user message's text and image_url parts, in order."""
    if not isinstance(content, list):
        return (TextBlock(text_of(content)),)
    blocks: list = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            blocks.append(TextBlock(text_of([part])))
        elif kind == "image_url":
            image = part.get("image_url")
            blocks.append(image_from_url(image.get("url") if isinstance(image, dict) else image))
        else:
            raise BadRequest(f"content part type {kind!r} is not supported; send text and image_url parts")
    return tuple(blocks)


class OpenAIShape:
    name = "openai"

    # -- request ------------------------------------------------------------------------------
    def parse(self, body: dict) -> tuple[str, ChatRequest]:
        model, messages = model_and_messages(
            body, no_model="`model` is required", no_messages="`messages` must be a non-empty list"
        )
        check_common(body)
        system: list[str] = []
        out: list[Message] = []
        for raw in messages:
            if not isinstance(raw, dict):
                raise BadRequest("each message must be an object")
            role = raw.get("role")
            if role in ("system", "developer"):
                system.append(text_of(raw.get("content")))
            elif role == "user":
                out.append(Message("user", user_blocks(raw.get("content"))))
            elif role == "assistant":
                blocks: list = []
                if raw.get("content"):
                    blocks.append(TextBlock(text_of(raw["content"])))
                calls = raw.get("tool_calls") or []
                if not isinstance(calls, list):
                    raise BadRequest("`tool_calls` must be a list")
                for call in calls:
                    fn = object_of(object_of(call, "a tool call").get("function"), "a tool call's `function`")
                    args = tool_arguments(fn.get("arguments"))
                    name = str(fn.get("name") or "")
                    blocks.append(ToolUseBlock(id=str(call.get("id") or ""), name=name, input=args))
                out.append(Message("assistant", tuple(blocks)))
            elif role == "tool":
                result = ToolResultBlock(tool_use_id=raw.get("tool_call_id") or "", content=text_of(raw.get("content")))
                if out and out[-1].role == "user" and all(isinstance(b, ToolResultBlock) for b in out[-1].blocks):
                    out[-1] = Message("user", (*out[-1].blocks, result))
                else:
                    out.append(Message("user", (result,)))
            else:
                raise BadRequest(f"unknown message role {role!r}")
        functions = [object_of(t.get("function"), "a tool's `function`") for t in body.get("tools") or []]
        tools = tuple(
            ToolSpec(
                name=str(fn.get("name", "")),
                description=str(fn.get("description", "")),
                input_schema=object_of(fn.get("parameters"), "a tool's `parameters`") or {"type": "object"},
            )
            for fn in functions
        )
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"name": str(object_of(choice.get("function"), "`tool_choice.function`").get("name", ""))}
        elif choice == "required":
            choice = "any"
        max_tokens = positive_int(body, "max_completion_tokens") or positive_int(body, "max_tokens")
        seed = body.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise BadRequest("`seed` must be an integer")
        effort = body.get("reasoning_effort")
        if effort is not None and not isinstance(effort, str):
            raise BadRequest("`reasoning_effort` must be a string")
        stream_options = object_of(body.get("stream_options"), "`stream_options`")
        drop_unknown(body, KNOWN, self.name)
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
            stop=stop_of(body.get("stop"), "stop"),
            top_p=body.get("top_p"),
            seed=seed,
            reasoning_effort=effort,
            include_usage=bool(body.get("stream")) and stream_options.get("include_usage") is True,
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

    def stream(self, events: Iterator, model: str, *, include_usage: bool = False) -> Iterator[bytes]:
        """As api.openai.com streams: the last chunk, with empty `choices` and the usage, only when
        the client asked for it (stream_options.include_usage); every chunk before it then carries
        `usage: null`."""
        ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

        def chunk(delta: dict, finish=None) -> bytes:
            body = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            if include_usage:
                body["usage"] = None
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
                if not include_usage:
                    continue
                body = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                        "choices": [], "usage": self.usage(event.usage)}  # fmt: skip
                yield f"data: {json.dumps(body)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    # -- errors -------------------------------------------------------------------------------
    # As api.openai.com answers: a 4xx is an `invalid_request_error` (a bad key included) and a
    # 5xx a `server_error`, except that a rate limit's type names the limit (`requests` or
    # `tokens`) and a spent quota's is `insufficient_quota`; `code` says which failure it is.
    _TYPES = {failures.RATE_LIMIT_REQUESTS: "requests", failures.RATE_LIMIT_TOKENS: "tokens",
              failures.QUOTA: "insufficient_quota"}  # fmt: skip
    _CODES = {failures.INVALID_KEY: "invalid_api_key", failures.MODEL_NOT_FOUND: "model_not_found",
              failures.CONTEXT_LENGTH: "context_length_exceeded", failures.RATE_LIMIT_REQUESTS: "rate_limit_exceeded",
              failures.RATE_LIMIT_TOKENS: "rate_limit_exceeded", failures.QUOTA: "insufficient_quota",
              failures.PREVIOUS_RESPONSE_NOT_FOUND: "previous_response_not_found"}  # fmt: skip

    def error(self, failure: failures.Failure, request_id: str | None = None) -> tuple[int, dict]:
        reason = failure.reason or (failures.RATE_LIMIT_REQUESTS if failure.status == 429 else None)
        kind = self._TYPES.get(reason) or ("invalid_request_error" if failure.status < 500 else "server_error")
        error = {"message": failure.message, "type": kind, "param": failure.param, "code": self._CODES.get(reason)}
        return failure.status, {"error": error}

    def stream_error(self, failure: failures.Failure, request_id: str | None = None) -> bytes:
        return f"data: {json.dumps(self.error(failure, request_id)[1])}\n\n".encode()
