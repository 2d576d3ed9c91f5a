"""The Anthropic Messages adapter against a loopback server speaking the real wire format."""

import json

import pytest

from core.ir import (
    ChatRequest,
    ImageBlock,
    Message,
    MessageStop,
    SystemPrompt,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingStop,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from routing.providers.anthropic import AnthropicAdapter
from routing.providers.base import ProviderError
from tests.loopback import LoopbackProvider, Reply

READ = ToolSpec("read_files", "Read files", {"type": "object", "properties": {"paths": {"type": "array"}}})

MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [
        {"type": "thinking", "thinking": "the user wants a file", "signature": "sig"},
        {"type": "text", "text": "Reading it."},
        {"type": "tool_use", "id": "toolu_01", "name": "read_files", "input": {"paths": ["a.md"]}},
    ],
    "stop_reason": "tool_use",
    "usage": {
        "input_tokens": 40,
        "output_tokens": 20,
        "cache_read_input_tokens": 900,
        "cache_creation_input_tokens": 5,
    },
}


def sse(kind: str, **data) -> tuple[str, str]:
    return kind, json.dumps({"type": kind, **data})


STREAM = [
    sse(
        "message_start",
        message={
            "id": "msg_02",
            "model": "claude-test",
            "usage": {"input_tokens": 30, "output_tokens": 1, "cache_read_input_tokens": 100},
        },
    ),
    sse("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    sse("ping"),
    sse("content_block_delta", index=0, delta={"type": "text_delta", "text": "Let me "}),
    sse("content_block_delta", index=0, delta={"type": "text_delta", "text": "look."}),
    sse("content_block_stop", index=0),
    sse(
        "content_block_start",
        index=1,
        content_block={"type": "tool_use", "id": "toolu_02", "name": "read_files", "input": {}},
    ),
    sse("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": '{"paths": '}),
    sse("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": '["b.md"]}'}),
    sse("content_block_stop", index=1),
    sse("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 25}),
    sse("message_stop"),
]


def request(**kw) -> ChatRequest:
    return ChatRequest(
        model="claude-test",
        system=SystemPrompt(stable="You are Metnos.", volatile="MEMORY: tests live in tests/."),
        messages=(Message.text("user", "read a.md"),),
        tools=(READ,),
        max_tokens=256,
        **kw,
    )


def test_a_request_is_sent_in_the_anthropic_shape_with_the_cache_breakpoint_after_the_stable_segment():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(json_body=MESSAGE))
        response = AnthropicAdapter(base_url=upstream.url, api_key="sk-ant-test").complete(
            request(tool_choice={"name": "read_files"}, temperature=0.0)
        )
    sent = upstream.requests[0]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["x-api-key"] == "sk-ant-test"
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["json"] == {
        "model": "claude-test",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "read a.md"}]}],
        "system": [
            {"type": "text", "text": "You are Metnos.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "MEMORY: tests live in tests/."},
        ],
        "tools": [{"name": "read_files", "description": "Read files", "input_schema": READ.input_schema}],
        "tool_choice": {"type": "tool", "name": "read_files"},
        "temperature": 0.0,
    }
    assert response.message.blocks == (
        ThinkingBlock("the user wants a file", "sig"),
        *Message.text("assistant", "Reading it.").blocks,
        ToolUseBlock(id="toolu_01", name="read_files", input={"paths": ["a.md"]}),
    )
    assert response.stop_reason == "tool_use"
    # Anthropic reports cached tokens apart from input_tokens.
    assert response.usage == Usage(input_tokens=40, output_tokens=20, cache_read_tokens=900, cache_write_tokens=5)


def test_a_stream_yields_text_tool_arguments_and_final_usage():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=STREAM))
        events = list(AnthropicAdapter(base_url=upstream.url).stream(request()))
    assert upstream.requests[0]["json"]["stream"] is True
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me look."
    starts = [e for e in events if e.type == "tool_use_start"]
    assert [(s.id, s.name, s.index) for s in starts] == [("toolu_02", "read_files", 1)]
    args = "".join(e.partial_json for e in events if e.type == "tool_use_delta")
    assert json.loads(args) == {"paths": ["b.md"]}
    assert [e.type for e in events].count("tool_use_stop") == 1
    stop = events[-1]
    assert isinstance(stop, MessageStop) and stop.stop_reason == "tool_use"
    assert stop.usage == Usage(input_tokens=30, output_tokens=25, cache_read_tokens=100)


def test_a_streamed_thinking_block_comes_as_thinking_deltas_then_its_signature():
    """As Anthropic streams extended thinking: the block, its thinking_delta pieces, one
    signature_delta, then the text; message_delta's null counts keep message_start's."""
    thinking = [
        sse("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        sse("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "They want "}),
        sse("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "a file."}),
        sse("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "EqQBCkgIAR"}),
        sse("content_block_stop", index=0),
        sse("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        sse("content_block_delta", index=1, delta={"type": "text_delta", "text": "Here."}),
        sse("content_block_stop", index=1),
        sse("message_delta", delta={"stop_reason": "end_turn"}, usage={"input_tokens": None, "output_tokens": 31}),
        sse("message_stop"),
    ]
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=[STREAM[0], *thinking]))
        events = list(AnthropicAdapter(base_url=upstream.url).stream(request(thinking={"type": "enabled"})))
    assert upstream.requests[0]["json"]["thinking"] == {"type": "enabled"}
    assert [e for e in events if isinstance(e, ThinkingDelta | ThinkingStop)] == [
        ThinkingDelta(0, "They want "),
        ThinkingDelta(0, "a file."),
        ThinkingStop(0, "EqQBCkgIAR"),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Here."
    assert events[-1].usage == Usage(input_tokens=30, output_tokens=31, cache_read_tokens=100)


def test_images_and_tool_results_keep_their_shape_and_roles_alternate():
    history = (
        Message(role="user", blocks=(ImageBlock("image/png", "aGk="), *Message.text("user", "what is this?").blocks)),
        Message(role="assistant", blocks=(ToolUseBlock("toolu_9", "read_files", {"paths": ["x"]}),)),
        Message(role="user", blocks=(ToolResultBlock("toolu_9", "boom", is_error=True),)),
        Message.text("user", "try again"),
    )
    wire = AnthropicAdapter(base_url="http://127.0.0.1:1").to_wire(ChatRequest(model="m", messages=history))
    assert [m["role"] for m in wire["messages"]] == ["user", "assistant", "user"]
    assert wire["messages"][0]["content"][0] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "aGk="},
    }
    assert wire["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_9", "content": "boom", "is_error": True},
        {"type": "text", "text": "try again"},
    ]


def test_a_stream_cut_off_before_message_stop_is_a_protocol_error():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=STREAM[:5]))
        with pytest.raises(ProviderError) as err:
            list(AnthropicAdapter(base_url=upstream.url).stream(request()))
    assert err.value.kind == "protocol" and "cut off" in str(err.value)


def test_an_error_event_mid_stream_is_a_typed_error():
    with LoopbackProvider() as upstream:
        upstream.replies.append(
            Reply(sse_events=[STREAM[0], sse("error", error={"type": "overloaded_error", "message": "Overloaded"})])
        )
        with pytest.raises(ProviderError) as err:
            list(AnthropicAdapter(base_url=upstream.url).stream(request()))
    assert err.value.kind == "server" and not err.value.permanent


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (401, "invalid x-api-key", "auth"),
        (400, "prompt is too long: 250000 tokens > 200000 maximum", "context_length"),
        (529, "Overloaded", "server"),
    ],
)
def test_http_errors_map_to_typed_errors(status, message, kind):
    body = {"type": "error", "error": {"type": "x", "message": message}}
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(status=status, json_body=body))
        with pytest.raises(ProviderError) as err:
            AnthropicAdapter(base_url=upstream.url).complete(request())
    assert err.value.kind == kind and err.value.provider == "anthropic"


def test_a_provider_that_hangs_hits_the_timeout():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(json_body=MESSAGE, delay_s=2.0))
        with pytest.raises(ProviderError) as err:
            AnthropicAdapter(base_url=upstream.url, timeout_s=0.3).complete(request())
    assert err.value.kind == "timeout" and not err.value.permanent


def test_structured_output_is_refused_rather_than_silently_dropped():
    with pytest.raises(ProviderError) as err:
        AnthropicAdapter(base_url="http://127.0.0.1:1").to_wire(request(response_format={"type": "json_object"}))
    assert err.value.kind == "bad_request"
