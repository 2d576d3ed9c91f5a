"""The OpenAI Responses shape (/v1/responses, what the Codex CLI and the Agents SDK speak): wire
request → canonical ChatRequest, canonical response or stream → a Response object or its typed
events, and errors in OpenAI's form.

The shape is pure wire. What makes a Response more than a chat completion, its id and the
conversation `previous_response_id` continues, lives with the endpoint (gateway.responses): the
shape's `parse` names the call (`ResponseCall`, in the request's metadata) and `bound` gives the
renderer for that one call (responses_out.py), which hands the answer's message to a `remember`
callback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from core.ir import (
    ChatRequest,
    Message,
    SystemPrompt,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from gateway import failures
from gateway.shapes.common import (
    BadRequest,
    check_common,
    drop_unknown,
    image_from_url,
    object_of,
    positive_int,
    tool_arguments,
)
from gateway.shapes.responses_out import CUSTOM_INPUT, OPENAI, BoundResponses, ResponseCall, new_id

logger = logging.getLogger(__name__)

KNOWN = frozenset(
    {"model", "input", "instructions", "tools", "tool_choice", "max_output_tokens", "temperature", "top_p", "stream",
     "previous_response_id", "store", "text", "reasoning", "parallel_tool_calls", "metadata", "include", "user",
     "truncation", "prompt_cache_key", "service_tier", "safety_identifier", "stream_options", "background",
     "client_metadata"}
)  # fmt: skip
_CUSTOM_SCHEMA = {"type": "object", "properties": {CUSTOM_INPUT: {"type": "string"}}, "required": [CUSTOM_INPUT]}


def _output_text(output: Any) -> str:
    """A function call's output: a string, or a list of input_text parts."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(p.get("text", "") for p in output if isinstance(p, dict) and isinstance(p.get("text"), str))
    raise BadRequest("a function_call_output's `output` must be a string or a list of parts")


def _content_blocks(content: Any, role: str) -> list:
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise BadRequest("a message's `content` must be a string or a list of parts")
    blocks: list = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text"):
            if not isinstance(part.get("text"), str):
                raise BadRequest(f"an {kind} part needs a `text` string")
            blocks.append(TextBlock(part["text"]))
        elif kind == "input_image" and role == "user":
            if part.get("file_id") and not part.get("image_url"):
                raise BadRequest("input_image by file_id is not supported; send image_url (a URL or a data: URL)")
            blocks.append(image_from_url(part.get("image_url")))
        elif kind == "refusal":
            blocks.append(TextBlock(str(part.get("refusal", ""))))
        else:
            raise BadRequest(f"content part type {kind!r} is not supported in a {role} message")
    return blocks


class _Conversation:
    """Input items → canonical messages: consecutive assistant items (text, function calls) form
    one assistant message and consecutive function outputs one user message, as the providers
    want them."""

    def __init__(self) -> None:
        self.system: list[str] = []
        self.messages: list[Message] = []

    def add(self, role: str, blocks: list) -> None:
        last = self.messages[-1] if self.messages else None
        tool_results = all(isinstance(b, ToolResultBlock) for b in blocks)
        if (
            last is not None
            and last.role == role
            and (role == "assistant" or (tool_results and all(isinstance(b, ToolResultBlock) for b in last.blocks)))
        ):
            self.messages[-1] = Message(role, (*last.blocks, *blocks))
        else:
            self.messages.append(Message(role, tuple(blocks)))

    def item(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise BadRequest("each `input` item must be an object")
        kind = raw.get("type") or "message"
        if kind == "message":
            role = raw.get("role")
            if role in ("system", "developer"):
                self.system.append("".join(b.text for b in _content_blocks(raw.get("content"), role)))
            elif role in ("user", "assistant"):
                self.add(role, _content_blocks(raw.get("content"), role))
            else:
                raise BadRequest(f"unknown message role {role!r}")
        elif kind in ("function_call", "custom_tool_call"):
            call_id = raw.get("call_id")
            if not isinstance(call_id, str) or not call_id or not isinstance(raw.get("name"), str):
                raise BadRequest(f"a {kind} item needs `call_id` and `name` strings")
            if kind == "custom_tool_call":
                args = {CUSTOM_INPUT: str(raw.get("input", ""))}
            else:
                arguments = raw.get("arguments")
                args = arguments if isinstance(arguments, dict) else tool_arguments(arguments)
            self.add("assistant", [ToolUseBlock(id=call_id, name=raw["name"], input=args)])
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = raw.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                raise BadRequest(f"a {kind} item needs a `call_id` string")
            self.add("user", [ToolResultBlock(tool_use_id=call_id, content=_output_text(raw.get("output", "")))])
        elif kind in ("reasoning", "item_reference"):
            logger.info("gateway responses request: dropped a %s item (not carried to other providers)", kind)
        else:
            raise BadRequest(f"input item type {kind!r} is not supported")


def _tools(raw_tools: list) -> tuple[tuple[ToolSpec, ...], frozenset[str]]:
    """Function tools as they are, a `namespace`'s too; `custom` tools as a function of one string;
    hosted tools (web_search, file_search, …) exist only on OpenAI's own servers: dropped and
    logged."""
    tools, custom, dropped = [], set(), []
    flat = []
    for tool in raw_tools:
        inner = tool.get("tools") if tool.get("type") == "namespace" else [tool]
        flat += [t for t in inner or [] if isinstance(t, dict)]
    for tool in flat:
        kind = tool.get("type")
        name = tool.get("name")
        if kind in ("function", "custom"):
            if not isinstance(name, str) or not name:
                raise BadRequest(f"a {kind} tool needs a `name` string")
            schema = object_of(tool.get("parameters"), "a tool's `parameters`") or {"type": "object"}
            if kind == "custom":
                custom.add(name)
                schema = _CUSTOM_SCHEMA
            tools.append(ToolSpec(name=name, description=str(tool.get("description") or ""), input_schema=schema))
        else:
            dropped.append(str(kind))
    if dropped:
        logger.info("gateway responses request: dropped hosted tools the relay cannot run: %s", ", ".join(dropped))
    return tuple(tools), frozenset(custom)


def _response_format(text: dict) -> dict | None:
    fmt = object_of(text.get("format"), "`text.format`")
    kind = fmt.get("type")
    if kind in (None, "text"):
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        return {"type": "json_schema", "json_schema": schema}
    raise BadRequest(f"`text.format.type` {kind!r} is not supported (text, json_object or json_schema)")


def _tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict):
        if choice.get("type") in ("function", "custom"):
            return {"name": str(choice.get("name", ""))}
        raise BadRequest(f"`tool_choice` type {choice.get('type')!r} is not supported here")
    return "any" if choice == "required" else choice


class ResponsesShape:
    name = "responses"

    # -- request ------------------------------------------------------------------------------
    def parse(self, body: dict) -> tuple[str, ChatRequest]:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("`model` is required")
        check_common(body)
        if body.get("background"):
            raise BadRequest("`background` responses are not supported by this gateway; stream instead")
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise BadRequest("`instructions` must be a string")
        previous = body.get("previous_response_id")
        if previous is not None and (not isinstance(previous, str) or not previous):
            raise BadRequest("`previous_response_id` must be a string")
        conversation = _Conversation()
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            conversation.add("user", [TextBlock(raw_input)])
        elif isinstance(raw_input, list):
            for item in raw_input:
                conversation.item(item)
        elif raw_input is not None:
            raise BadRequest("`input` must be a string or a list of items")
        if not conversation.messages and previous is None:
            raise BadRequest("`input` is required")
        tools, custom = _tools(body.get("tools") or [])
        reasoning = object_of(body.get("reasoning"), "`reasoning`")
        effort = reasoning.get("effort")
        if effort is not None and not isinstance(effort, str):
            raise BadRequest("`reasoning.effort` must be a string")
        store = body.get("store", True)
        if not isinstance(store, bool):
            raise BadRequest("`store` must be true or false")
        drop_unknown(body, KNOWN, self.name)
        echo = {name: body.get(name) for name in ("instructions", "temperature", "top_p", "max_output_tokens")}
        echo |= {"tools": body.get("tools") or [], "tool_choice": body.get("tool_choice") or "auto",
                 "parallel_tool_calls": body.get("parallel_tool_calls", True), "metadata": body.get("metadata") or {},
                 "text": body.get("text") or {"format": {"type": "text"}}, "user": body.get("user"),
                 "reasoning": {"effort": effort, "summary": reasoning.get("summary")}}  # fmt: skip
        call = ResponseCall(new_id("resp"), previous, store, echo, custom)
        system = [s for s in (instructions, *conversation.system) if s]
        return model, ChatRequest(
            model=model,
            messages=tuple(conversation.messages),
            system=SystemPrompt(stable="\n\n".join(system)),
            tools=tools,
            tool_choice=_tool_choice(body.get("tool_choice")),
            max_tokens=positive_int(body, "max_output_tokens"),
            temperature=body.get("temperature"),
            top_p=body.get("top_p"),
            response_format=_response_format(object_of(body.get("text"), "`text`")),
            stream=bool(body.get("stream")),
            reasoning_effort=effort,
            metadata={"responses": call},
        )

    def bound(self, call: ResponseCall, remember: Callable[[Message], None] | None = None) -> BoundResponses:
        return BoundResponses(call, remember)

    # -- errors: OpenAI's (a stream's come from the bound renderer) --------------------------------
    def error(self, failure: failures.Failure, request_id: str | None = None) -> tuple[int, dict]:
        return OPENAI.error(failure, request_id)
