"""A conversation with tool calls started on one provider goes on with the other, ids intact."""

import json
from decimal import Decimal

import pytest

from core.ir import ChatRequest, Message, MessageStop, ToolResultBlock, ToolSpec
from routing.providers.anthropic import AnthropicAdapter
from routing.providers.base import ProviderError
from routing.providers.openai_compat import OpenAICompatAdapter, OpenRouterAdapter
from tests.loopback import LoopbackProvider, Reply

READ = ToolSpec("read_files", "Read files", {"type": "object", "properties": {"paths": {"type": "array"}}})


def openai_tool_call(call_id: str) -> dict:
    return {
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "read_files", "arguments": '{"paths": ["a.md"]}'},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }


def anthropic_tool_call(call_id: str) -> dict:
    return {
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "tool_use", "id": call_id, "name": "read_files", "input": {"paths": ["b.md"]}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def test_openai_tool_history_continues_on_anthropic_with_the_same_ids():
    with LoopbackProvider() as openai, LoopbackProvider() as anthropic:
        openai.replies.append(Reply(json_body=openai_tool_call("call_abc")))
        history = [Message.text("user", "read a.md")]
        first = OpenAICompatAdapter(base_url=openai.url).complete(
            ChatRequest(model="gpt-test", messages=tuple(history), tools=(READ,))
        )
        history += [first.message, Message(role="user", blocks=(ToolResultBlock("call_abc", "# A"),))]

        anthropic.replies.append(Reply(json_body=anthropic_tool_call("toolu_xyz")))
        second = AnthropicAdapter(base_url=anthropic.url).complete(
            ChatRequest(model="claude-test", messages=tuple(history), tools=(READ,), max_tokens=100)
        )
    sent = anthropic.requests[0]["json"]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "call_abc", "name": "read_files", "input": {"paths": ["a.md"]}}],
    }
    assert sent[2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_abc", "content": "# A"}],
    }
    assert second.message.blocks[0].id == "toolu_xyz"


def test_anthropic_tool_history_continues_on_openai_with_the_same_ids():
    with LoopbackProvider() as openai, LoopbackProvider() as anthropic:
        anthropic.replies.append(Reply(json_body=anthropic_tool_call("toolu_xyz")))
        history = [Message.text("user", "read b.md")]
        first = AnthropicAdapter(base_url=anthropic.url).complete(
            ChatRequest(model="claude-test", messages=tuple(history), tools=(READ,), max_tokens=100)
        )
        history += [first.message, Message(role="user", blocks=(ToolResultBlock("toolu_xyz", "# B"),))]

        openai.replies.append(Reply(json_body=openai_tool_call("call_next")))
        OpenAICompatAdapter(base_url=openai.url).complete(
            ChatRequest(model="gpt-test", messages=tuple(history), tools=(READ,))
        )
    sent = openai.requests[0]["json"]["messages"]
    assert sent[1]["tool_calls"] == [
        {
            "id": "toolu_xyz",
            "type": "function",
            "function": {"name": "read_files", "arguments": json.dumps({"paths": ["b.md"]})},
        }
    ]
    assert sent[2] == {"role": "tool", "tool_call_id": "toolu_xyz", "content": "# B"}


def test_openrouter_sends_its_headers_and_reports_the_cost_it_was_told():
    chunks = [
        json.dumps({"model": "x/y", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]}),
        json.dumps({"model": "x/y", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json.dumps(
            {"model": "x/y", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1, "cost": 0.00012}}
        ),
        "[DONE]",
    ]
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=chunks))
        adapter = OpenRouterAdapter(base_url=upstream.url, api_key="sk-or-test", app_title="Metnos")
        events = list(adapter.stream(ChatRequest(model="x/y", messages=(Message.text("user", "hi"),), stream=True)))
    sent = upstream.requests[0]
    assert sent["headers"]["Authorization"] == "Bearer sk-or-test"
    assert sent["headers"]["X-Title"] == "Metnos" and sent["headers"]["HTTP-Referer"]
    assert sent["json"]["usage"] == {"include": True}
    stop = events[-1]
    assert isinstance(stop, MessageStop) and stop.reported_cost_usd == Decimal("0.00012")


def test_an_openai_stream_cut_off_before_it_finished_is_a_protocol_error():
    chunks = [json.dumps({"model": "m", "choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": None}]})]
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=chunks))
        with pytest.raises(ProviderError) as err:
            list(
                OpenAICompatAdapter(base_url=upstream.url).stream(
                    ChatRequest(model="m", messages=(Message.text("user", "x"),))
                )
            )
    assert err.value.kind == "protocol" and "cut off" in str(err.value)
