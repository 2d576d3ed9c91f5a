"""The local llama.cpp server (llama_cpp.server). It speaks OpenAI Chat Completions but has gaps
this adapter covers: no usage on streamed responses, a 500 on tool history with `content: null`."""

from __future__ import annotations

import json
import logging
from typing import Any

from core.ir import ChatRequest, ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from routing.providers.openai_compat import OpenAICompatAdapter, message_to_wire

logger = logging.getLogger(__name__)

# What llama_cpp.server takes beside the OpenAI fields and passes on with its chatml-function-calling
# format (which drops logit_bias and seed).
SAMPLING_KEYS = frozenset(
    {"top_p", "top_k", "min_p", "repeat_penalty", "presence_penalty", "frequency_penalty", "stop"}
)


def _text(content: str | list | None) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if part.get("type") == "text")
    return content or ""


def _chatml(role: str, content: str) -> str:
    return f"<|im_start|>{role}\n{content}<|im_end|>\n"


class LocalLlamaAdapter(OpenAICompatAdapter):
    provider = "local"

    def render_message(self, message: Message) -> list[dict[str, Any]]:
        # The server's chat template dereferences `content` on every message, so tool calls and
        # results are rendered as plain text turns it accepts (ids kept for continuity).
        if message.role == "user" and any(isinstance(b, ImageBlock) for b in message.blocks):
            # Only a model row that says vision is sent images (the gateway refuses them before).
            return message_to_wire(message)
        parts: list[str] = []
        for block in message.blocks:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolUseBlock):
                parts.append(f"[tool call {block.id}] {block.name}({json.dumps(block.input)})")
            elif isinstance(block, ToolResultBlock):
                status = "error" if block.is_error else "result"
                parts.append(f"[tool {status} {block.tool_use_id}] {block.content}")
        role = "assistant" if message.role == "assistant" else "user"
        return [{"role": role, "content": "\n".join(parts)}]

    def to_wire(self, request: ChatRequest) -> dict[str, Any]:
        """Also llama.cpp's own sampling parameters, when the caller sets them
        (request.metadata["sampling"]); unknown keys are dropped."""
        body = super().to_wire(request)
        if body.pop("reasoning_effort", None) is not None:
            logger.info("local: dropped `reasoning_effort` (llama.cpp has no such field)")
        schema_format = body.get("response_format") or {}
        if schema_format.get("type") == "json_schema":
            # llama.cpp takes a schema as {"type": "json_object", "schema": ...}, not OpenAI's form.
            schema = (schema_format.get("json_schema") or {}).get("schema") or {}
            body["response_format"] = {"type": "json_object", "schema": schema}
        sampling = request.metadata.get("sampling") or {}
        body.update({k: v for k, v in sampling.items() if k in SAMPLING_KEYS})
        return body

    def count_tokens(self, text: str) -> int:
        data = self._post_json("/extras/tokenize/count", {"input": text})
        if not isinstance(data.get("count"), int):
            raise self._error("protocol", "the tokenizer endpoint returned no count")
        return data["count"]

    def count_usage(self, request: ChatRequest, output_text: str) -> Usage:
        """Count tokens with the model's own tokenizer: the server reports none when streaming.
        The prompt is rendered the way the ChatML template renders it."""
        wire = self.to_wire(request)["messages"]
        prompt = "".join(_chatml(m["role"], _text(m.get("content"))) for m in wire) + "<|im_start|>assistant\n"
        return Usage(
            input_tokens=self.count_tokens(prompt), output_tokens=self.count_tokens(output_text) if output_text else 0
        )
