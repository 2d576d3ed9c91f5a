"""The Anthropic messages shape: wire request → canonical ChatRequest, canonical response or
stream → wire, and errors in Anthropic's form."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from core.ir import (
    ChatRequest,
    ChatResponse,
    ImageBlock,
    Message,
    MessageStart,
    MessageStop,
    SystemPrompt,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingStop,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
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
)
from routing.providers.anthropic import usage_to_wire

KNOWN = frozenset(
    {"model", "messages", "system", "max_tokens", "tools", "tool_choice", "temperature", "top_p", "stop_sequences",
     "thinking", "stream"}
)  # fmt: skip


def image_block(block: dict) -> ImageBlock:
    source = object_of(block.get("source"), "messages: an image block's `source`")
    if source.get("type") == "base64":
        if not isinstance(source.get("media_type"), str) or not isinstance(source.get("data"), str):
            raise BadRequest("messages: a base64 image source needs `media_type` and `data` strings")
        return ImageBlock(media_type=source["media_type"], data=source["data"])
    if source.get("type") == "url":
        return image_from_url(source.get("url"))
    raise BadRequest(f"messages: image source type {source.get('type')!r} is not supported (base64 or url)")


class AnthropicShape:
    name = "anthropic"

    def parse(self, body: dict) -> tuple[str, ChatRequest]:
        model, messages = model_and_messages(
            body, no_model="model: Field required", no_messages="messages: must be a non-empty list"
        )
        max_tokens = positive_int(body, "max_tokens")
        if max_tokens is None:
            raise BadRequest("max_tokens: Field required")
        check_common(body)
        system = body.get("system")
        system_text = system if isinstance(system, str) else text_of(system) if system else ""
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
                    tool_input = object_of(block.get("input"), "messages: a tool_use block's `input`")
                    name = str(block.get("name", ""))
                    blocks.append(ToolUseBlock(id=str(block.get("id", "")), name=name, input=tool_input))
                elif kind == "tool_result":
                    blocks.append(ToolResultBlock(tool_use_id=block.get("tool_use_id", ""),
                                                  content=text_of(block.get("content")),
                                                  is_error=bool(block.get("is_error"))))  # fmt: skip
                elif kind == "image":
                    blocks.append(image_block(block))
                elif kind == "thinking":
                    # Anthropic wants them back, signed, in the turn before a tool result; the
                    # OpenAI-speaking adapters drop them.
                    blocks.append(ThinkingBlock(str(block.get("thinking", "")), str(block.get("signature", ""))))
                elif kind in ("redacted_thinking", "document"):
                    continue  # not carried
                else:
                    raise BadRequest(f"messages: unknown content block type {kind!r}")
            out.append(Message(raw["role"], tuple(blocks)))
        tools = tuple(
            ToolSpec(
                name=str(t["name"]),
                description=str(t.get("description", "")),
                input_schema=object_of(t.get("input_schema"), "a tool's `input_schema`"),
            )
            for t in body.get("tools") or []
            if t.get("name")
        )
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"name": str(choice.get("name", ""))} if choice.get("type") == "tool" else choice.get("type")
        thinking = object_of(body.get("thinking"), "`thinking`") or None
        drop_unknown(body, KNOWN, self.name)
        return model, ChatRequest(
            model=model,
            messages=tuple(out),
            system=SystemPrompt(stable=system_text),
            tools=tools,
            tool_choice=choice,
            max_tokens=max_tokens,
            temperature=body.get("temperature"),
            stream=bool(body.get("stream")),
            stop=stop_of(body.get("stop_sequences"), "stop_sequences"),
            top_p=body.get("top_p"),
            thinking=thinking,
        )

    def render(self, response: ChatResponse, model: str) -> dict:
        content = []
        for b in response.message.blocks:
            if isinstance(b, TextBlock):
                content.append({"type": "text", "text": b.text})
            elif isinstance(b, ThinkingBlock) and b.signature:
                # Only Anthropic's own, signed thinking: it is what a client may send back to it.
                content.append({"type": "thinking", "thinking": b.thinking, "signature": b.signature})
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
            "usage": usage_to_wire(response.usage),
        }

    def stream(self, events: Iterator, model: str, *, include_usage: bool = False) -> Iterator[bytes]:
        """As Anthropic streams: each content block (thinking, text, tool_use) opened, filled with
        its deltas and closed before the next one opens, numbered in order. One block is open at a
        time: an event of another block closes it, so an upstream that never closes its blocks
        (the OpenAI-speaking ones close tool calls only at the end) still gives well-formed ones."""

        # Anthropic's stream always reports usage (message_start, message_delta): include_usage
        # is OpenAI's and changes nothing here.
        def sse(kind: str, **data) -> bytes:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

        index = -1
        current: tuple[str, int] | None = None  # the open block: its kind and upstream index

        def close() -> list[bytes]:
            nonlocal current
            was, current = current, None
            return [sse("content_block_stop", index=index)] if was else []

        def open_block(kind: str, upstream: int, block: dict) -> list[bytes]:
            nonlocal index, current
            frames = close()
            index += 1
            current = (kind, upstream)
            return [*frames, sse("content_block_start", index=index, content_block=block)]

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
            elif isinstance(event, ThinkingDelta | ThinkingStop):
                if current != ("thinking", event.index):
                    yield from open_block(
                        "thinking", event.index, {"type": "thinking", "thinking": "", "signature": ""}
                    )
                if isinstance(event, ThinkingDelta):
                    delta = {"type": "thinking_delta", "thinking": event.thinking}
                    yield sse("content_block_delta", index=index, delta=delta)
                    continue
                if event.signature:
                    delta = {"type": "signature_delta", "signature": event.signature}
                    yield sse("content_block_delta", index=index, delta=delta)
                yield from close()
            elif isinstance(event, TextDelta):
                if current is None or current[0] != "text":
                    yield from open_block("text", -1, {"type": "text", "text": ""})
                yield sse("content_block_delta", index=index, delta={"type": "text_delta", "text": event.text})
            elif isinstance(event, ToolUseStart):
                block = {"type": "tool_use", "id": event.id or f"toolu_{uuid.uuid4().hex[:20]}", "name": event.name,
                         "input": {}}  # fmt: skip
                yield from open_block("tool_use", event.index, block)
            elif isinstance(event, ToolUseDelta):
                if current == ("tool_use", event.index):
                    delta = {"type": "input_json_delta", "partial_json": event.partial_json}
                    yield sse("content_block_delta", index=index, delta=delta)
            elif isinstance(event, ToolUseStop):
                if current == ("tool_use", event.index):
                    yield from close()
            elif isinstance(event, MessageStop):
                yield from close()
                stop = event.stop_reason if event.stop_reason != "error" else "end_turn"
                yield sse(
                    "message_delta",
                    delta={"stop_reason": stop, "stop_sequence": None},
                    usage=usage_to_wire(event.usage),
                )
                yield sse("message_stop")

    # As api.anthropic.com answers (its errors page): a type per status, any other 4xx an
    # `invalid_request_error`; an overloaded upstream is its 529, a spent budget its 402.
    _TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
              404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
              504: "timeout_error", 529: "overloaded_error"}  # fmt: skip
    _STATUS = {failures.QUOTA: 402, failures.OVERLOADED: 529}

    def error(self, failure: failures.Failure, request_id: str | None = None) -> tuple[int, dict]:
        status = self._STATUS.get(failure.reason, failure.status)
        kind = self._TYPES.get(status) or ("invalid_request_error" if status < 500 else "api_error")
        body = {"type": "error", "error": {"type": kind, "message": failure.message}}
        if request_id:
            body["request_id"] = request_id
        return status, body

    def stream_error(self, failure: failures.Failure, request_id: str | None = None) -> bytes:
        return f"event: error\ndata: {json.dumps(self.error(failure, request_id)[1])}\n\n".encode()
