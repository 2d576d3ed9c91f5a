"""The Responses shape on its own: what the Codex CLI sends (developer messages, item ids, a
namespace of tools, hosted and custom tools, reasoning items) parses, and a custom tool's call
goes back as one."""

import json

import pytest

from core.ir import (
    ChatResponse,
    Message,
    MessageStart,
    MessageStop,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from gateway.shapes import SHAPES, BadRequest

SHAPE = SHAPES["responses"]


def text(value: str) -> dict:
    return {"type": "input_text", "text": value}


def codex_like_body() -> dict:
    shell = {"type": "function", "name": "exec_command", "strict": False,
             "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}  # fmt: skip
    return {
        "model": "gpt-5", "stream": True, "store": False, "tool_choice": "auto", "parallel_tool_calls": True,
        "reasoning": {"summary": "auto"}, "include": ["reasoning.encrypted_content"], "prompt_cache_key": "s1",
        "client_metadata": {"a": "b"},
        "tools": [shell, {"type": "web_search", "external_web_access": True},
                  {"type": "namespace", "name": "multi_agent_v1", "tools": [dict(shell, name="spawn_agent")]},
                  {"type": "custom", "name": "apply_patch", "description": "Patch.", "format": {"type": "grammar"}}],
        "input": [
            {"type": "message", "id": "msg_1", "role": "developer", "content": [text("Rules.")]},
            {"type": "message", "id": "msg_2", "role": "user", "content": [text("Do it.")]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"},
            {"type": "function_call", "id": "fc_1", "name": "exec_command", "arguments": "{\"cmd\": \"ls\"}",
             "call_id": "call_1", "status": "completed"},
            {"type": "custom_tool_call", "id": "ctc_1", "name": "apply_patch", "input": "*** Begin",
             "call_id": "call_2"},
            {"type": "function_call_output", "id": "fco_1", "call_id": "call_1", "output": "a.txt\n"},
            {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Done"},
        ],
    }  # fmt: skip


def test_what_codex_sends_parses_into_the_canonical_form():
    model, request = SHAPE.parse(codex_like_body())
    assert model == "gpt-5" and request.stream and request.system.stable == "Rules."
    assert [t.name for t in request.tools] == ["exec_command", "spawn_agent", "apply_patch"]
    assert request.tools[2].input_schema["properties"] == {"input": {"type": "string"}}
    user, assistant, results = request.messages
    assert user == Message("user", (TextBlock("Do it."),))
    assert assistant.blocks == (ToolUseBlock("call_1", "exec_command", {"cmd": "ls"}),
                                ToolUseBlock("call_2", "apply_patch", {"input": "*** Begin"}))  # fmt: skip
    assert results.blocks == (ToolResultBlock("call_1", "a.txt\n"), ToolResultBlock("call_2", "Done"))
    assert request.metadata["responses"].store is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "gpt-5"}, "`input` is required"),
        ({"model": "gpt-5", "input": 3}, "`input` must be"),
        ({"model": "gpt-5", "input": [{"type": "function_call", "name": "f"}]}, "call_id"),
        ({"model": "gpt-5", "input": [{"role": "tool", "content": "x"}]}, "unknown message role"),
        ({"model": "gpt-5", "input": "hi", "text": {"format": {"type": "yaml"}}}, "text.format.type"),
        ({"model": "gpt-5", "input": "hi", "store": "yes"}, "`store`"),
    ],
)
def test_malformed_requests_are_named_400s(body, message):
    with pytest.raises(BadRequest, match=message):
        SHAPE.parse(body)


def test_a_custom_tool_call_goes_back_as_one_plain_and_streamed():
    _, request = SHAPE.parse(codex_like_body() | {"input": "patch it"})
    kept = []
    bound = SHAPE.bound(request.metadata["responses"], kept.append)
    use = ToolUseBlock("call_7", "apply_patch", {"input": "*** Begin Patch"})
    answer = ChatResponse(Message("assistant", (use,)), "tool_use", Usage(5, 2), "gpt-5", "openai", 1)
    item = bound.render(answer, "gpt-5")["output"][0]
    assert (item["type"], item["call_id"], item["input"]) == ("custom_tool_call", "call_7", "*** Begin Patch")
    events = [MessageStart("gpt-5"), ToolUseStart(0, "call_8", "apply_patch"),
              ToolUseDelta(0, json.dumps({"input": "*** Begin"})), ToolUseStop(0),
              MessageStop("tool_use", Usage(5, 2))]  # fmt: skip
    frames = [json.loads(f.decode().split("data: ", 1)[1]) for f in bound.stream(iter(events), "gpt-5")]
    done = [f["item"] for f in frames if f["type"] == "response.output_item.done"]
    assert done == [{"id": done[0]["id"], "type": "custom_tool_call", "status": "completed", "call_id": "call_8",
                     "name": "apply_patch", "input": "*** Begin"}]  # fmt: skip
    assert [f["sequence_number"] for f in frames] == list(range(len(frames)))
    assert frames[-1]["type"] == "response.completed" and frames[-1]["response"]["usage"]["total_tokens"] == 7
    assert kept[-1].blocks == (ToolUseBlock("call_8", "apply_patch", {"input": "*** Begin"}),)
