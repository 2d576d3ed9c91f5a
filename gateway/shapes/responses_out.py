"""The OpenAI Responses shape's answers: a Response object, or the typed events of its stream,
for one call (`BoundResponses`, which hands the answer's message to the endpoint's `remember`)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from core.ir import (
    ChatResponse,
    Message,
    MessageStart,
    MessageStop,
    TextBlock,
    TextDelta,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from gateway.shapes.openai import OpenAIShape

# A `custom` tool (free-form text input, as Codex's apply_patch) reaches a provider as a function
# whose one argument is that text.
CUSTOM_INPUT = "input"
OPENAI = OpenAIShape()  # a Response's errors are OpenAI's


@dataclass(frozen=True)
class ResponseCall:
    """One Responses call: its id, what it continues, and the request fields a Response echoes."""

    id: str
    previous_response_id: str | None
    store: bool
    echo: dict[str, Any]
    custom_tools: frozenset[str] = frozenset()


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def usage_to_wire(usage: Usage) -> dict:
    prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
            "output_tokens": usage.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + usage.output_tokens}  # fmt: skip


def _json_object(text: str) -> dict:
    """A tool call's streamed arguments, as the object they should be ({} when they are not)."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class _Item:
    """One output item as it streams: a message's text or a function call's arguments."""

    wire_id: str
    kind: str  # "message" or "function_call" / "custom_tool_call"
    call_id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def wire(self, status: str = "completed") -> dict:
        if self.kind == "message":
            content = [{"type": "output_text", "text": self.text, "annotations": []}] if status == "completed" else []
            return {"id": self.wire_id, "type": "message", "status": status, "role": "assistant", "content": content}
        if self.kind == "custom_tool_call":
            text = str(_json_object(self.text).get(CUSTOM_INPUT, "")) if status == "completed" else ""
            return {"id": self.wire_id, "type": "custom_tool_call", "status": status, "call_id": self.call_id,
                    "name": self.name, "input": text}  # fmt: skip
        return {"id": self.wire_id, "type": "function_call", "status": status, "call_id": self.call_id,
                "name": self.name, "arguments": self.text if status == "completed" else ""}  # fmt: skip

    def block(self):
        if self.kind == "message":
            return TextBlock(self.text)
        return ToolUseBlock(id=self.call_id, name=self.name, input=_json_object(self.text))


class BoundResponses:
    """The renderer of one Responses call: a Response object, or its stream of typed events."""

    name = "responses"

    def __init__(self, call: ResponseCall, remember: Callable[[Message], None] | None) -> None:
        self.call, self.remember = call, remember
        self.created_at = int(time.time())
        self._sequence = 0

    def error(self, failure, request_id=None):
        return OPENAI.error(failure, request_id)

    def stream_error(self, failure, request_id=None) -> bytes:
        error = self.error(failure, request_id)[1]["error"]
        return self._event("error", code=error["code"], message=error["message"], param=error["param"])

    def _response(self, model: str, status: str, output: list[dict], usage: Usage | None, stop: str = "") -> dict:
        incomplete = {"reason": "max_output_tokens"} if stop == "max_tokens" else None
        return {"id": self.call.id, "object": "response", "created_at": self.created_at,
                "status": "incomplete" if incomplete and status == "completed" else status, "error": None,
                "incomplete_details": incomplete, "model": model, "output": output,
                "previous_response_id": self.call.previous_response_id, "store": self.call.store,
                "truncation": "disabled", "usage": usage_to_wire(usage) if usage is not None else None,
                **self.call.echo}  # fmt: skip

    def _tool_item(self, call_id: str, name: str, arguments: str = "") -> _Item:
        """A tool call: a custom tool's comes back as a custom_tool_call, any other a function_call."""
        custom = name in self.call.custom_tools
        kind = "custom_tool_call" if custom else "function_call"
        parts = [arguments] if arguments else []
        return _Item(new_id("ctc" if custom else "fc"), kind, call_id=call_id or new_id("call"), name=name, parts=parts)

    def _items(self, message: Message) -> list[_Item]:
        items = []
        for block in message.blocks:
            if isinstance(block, TextBlock) and block.text:
                items.append(_Item(new_id("msg"), "message", parts=[block.text]))
            elif isinstance(block, ToolUseBlock):
                items.append(self._tool_item(block.id, block.name, json.dumps(block.input)))
        return items

    def render(self, response: ChatResponse, model: str) -> dict:
        items = self._items(response.message)
        self._remember(items)
        return self._response(model, "completed", [i.wire() for i in items], response.usage, response.stop_reason)

    def _remember(self, items: list[_Item]) -> None:
        if self.remember is not None:
            self.remember(Message("assistant", tuple(i.block() for i in items)))

    def _event(self, kind: str, **data) -> bytes:
        body = {"type": kind, "sequence_number": self._sequence, **data}
        self._sequence += 1
        return f"event: {kind}\ndata: {json.dumps(body)}\n\n".encode()

    def stream(self, events: Iterator, model: str, *, include_usage: bool = False) -> Iterator[bytes]:
        """As api.openai.com streams a Response: created and in_progress, each output item added,
        its deltas and done events, then completed (or incomplete) with the whole Response and
        its usage (a Response always carries its usage: include_usage is chat completions')."""
        items: list[_Item] = []
        by_index: dict[int, int] = {}  # canonical tool index → output index
        text_at: int | None = None  # the output index of the message being written

        def close_text() -> Iterator[bytes]:
            nonlocal text_at
            if text_at is None:
                return
            item, at = items[text_at], text_at
            part = {"type": "output_text", "text": item.text, "annotations": []}
            yield self._event("response.output_text.done", item_id=item.wire_id, output_index=at, content_index=0,
                              text=item.text)  # fmt: skip
            yield self._event("response.content_part.done", item_id=item.wire_id, output_index=at, content_index=0,
                              part=part)  # fmt: skip
            yield self._event("response.output_item.done", output_index=at, item=item.wire())
            text_at = None

        def close_tool(at: int) -> Iterator[bytes]:
            item = items[at]
            if item.kind == "function_call":
                yield self._event("response.function_call_arguments.done", item_id=item.wire_id, output_index=at,
                                  arguments=item.text)  # fmt: skip
            yield self._event("response.output_item.done", output_index=at, item=item.wire())

        open_tools: set[int] = set()
        for event in events:
            if isinstance(event, MessageStart):
                started = self._response(model, "in_progress", [], None)
                yield self._event("response.created", response=started)
                yield self._event("response.in_progress", response=started)
            elif isinstance(event, TextDelta):
                if text_at is None:
                    text_at = len(items)
                    items.append(_Item(new_id("msg"), "message"))
                    item = items[text_at]
                    yield self._event("response.output_item.added", output_index=text_at,
                                      item=item.wire("in_progress"))  # fmt: skip
                    part = {"type": "output_text", "text": "", "annotations": []}
                    yield self._event("response.content_part.added", item_id=item.wire_id, output_index=text_at,
                                      content_index=0, part=part)  # fmt: skip
                items[text_at].parts.append(event.text)
                yield self._event("response.output_text.delta", item_id=items[text_at].wire_id, output_index=text_at,
                                  content_index=0, delta=event.text)  # fmt: skip
            elif isinstance(event, ToolUseStart):
                yield from close_text()
                at = by_index[event.index] = len(items)
                items.append(self._tool_item(event.id, event.name))
                open_tools.add(at)
                yield self._event("response.output_item.added", output_index=at, item=items[at].wire("in_progress"))
            elif isinstance(event, ToolUseDelta) and event.index in by_index:
                at = by_index[event.index]
                items[at].parts.append(event.partial_json)
                if items[at].kind == "function_call":
                    yield self._event("response.function_call_arguments.delta", item_id=items[at].wire_id,
                                      output_index=at, delta=event.partial_json)  # fmt: skip
            elif isinstance(event, ToolUseStop) and by_index.get(event.index) in open_tools:
                open_tools.discard(by_index[event.index])
                yield from close_tool(by_index[event.index])
            elif isinstance(event, MessageStop):
                yield from close_text()
                for at in sorted(open_tools):
                    yield from close_tool(at)
                open_tools.clear()
                self._remember(items)
                final = self._response(model, "completed", [i.wire() for i in items], event.usage, event.stop_reason)
                yield self._event(f"response.{final['status']}", response=final)
