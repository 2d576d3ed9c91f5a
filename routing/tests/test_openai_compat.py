"""The OpenAI Chat Completions adapter against a loopback server speaking the real wire format."""

import json

import pytest

from core.ir import ChatRequest, Message, MessageStop, SystemPrompt, TextDelta, ToolResultBlock, ToolUseBlock, Usage
from routing.providers.base import ProviderError
from routing.providers.openai_compat import OpenAICompatAdapter
from tests.live import free_port
from tests.loopback import LoopbackProvider, Reply

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-test",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi there"}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 100}},
}


def chunk(delta: dict, finish=None, usage=None) -> str:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if delta is not None else [],
    }
    if usage:
        body["usage"] = usage
    return json.dumps(body)


def request(**kw) -> ChatRequest:
    return ChatRequest(
        model="gpt-test",
        system=SystemPrompt(stable="Be brief.", volatile="Today is Monday."),
        messages=(Message.text("user", "hello"),),
        max_tokens=64,
        **kw,
    )


def test_a_completion_is_sent_in_the_openai_shape_and_read_back_as_canonical():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(json_body=COMPLETION))
        adapter = OpenAICompatAdapter(base_url=upstream.url, api_key="sk-test")
        response = adapter.complete(request())
    sent = upstream.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == "Bearer sk-test"
    assert sent["json"] == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief.\n\nToday is Monday."},
            {"role": "user", "content": "hello"},
        ],
        "stream": False,
        "max_tokens": 64,
    }
    assert response.message.text_content == "Hi there"
    assert response.stop_reason == "end_turn"
    # OpenAI's cached_tokens are a subset of prompt_tokens: canonical input excludes them.
    assert response.usage == Usage(input_tokens=20, output_tokens=3, cache_read_tokens=100)


def test_a_stream_yields_text_deltas_joined_tool_arguments_and_usage():
    events = [
        chunk({"role": "assistant", "content": "Let"}),
        chunk({"content": " me read"}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "read_files", "arguments": '{"pa'},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ths": ["a.md"]}'}}]}),
        chunk({}, finish="tool_calls"),
        chunk(None, usage={"prompt_tokens": 50, "completion_tokens": 12}),
        "[DONE]",
    ]
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=events))
        out = list(OpenAICompatAdapter(base_url=upstream.url).stream(request()))
    assert upstream.requests[0]["json"]["stream_options"] == {"include_usage": True}
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "Let me read"
    args = "".join(e.partial_json for e in out if e.type == "tool_use_delta")
    assert json.loads(args) == {"paths": ["a.md"]}
    assert next(e.type for e in out if e.type.startswith("tool_use")) == "tool_use_start"
    stop = out[-1]
    assert isinstance(stop, MessageStop) and stop.stop_reason == "tool_use"
    assert stop.usage == Usage(input_tokens=50, output_tokens=12)


def test_tool_history_keeps_its_ids_on_the_wire():
    history = (
        Message.text("user", "read a.md"),
        Message(role="assistant", blocks=(ToolUseBlock(id="toolu_01", name="read_files", input={"paths": ["a.md"]}),)),
        Message(role="user", blocks=(ToolResultBlock(tool_use_id="toolu_01", content="# A"),)),
    )
    wire = OpenAICompatAdapter(base_url="http://127.0.0.1:1").to_wire(ChatRequest(model="m", messages=history))
    assert wire["messages"][1]["tool_calls"][0]["id"] == "toolu_01"
    assert wire["messages"][2] == {"role": "tool", "tool_call_id": "toolu_01", "content": "# A"}


@pytest.mark.parametrize(
    ("status", "body", "kind", "permanent"),
    [
        (401, {"error": {"message": "bad key"}}, "auth", True),
        (400, {"error": {"message": "maximum context length exceeded"}}, "context_length", True),
        (400, {"error": {"message": "bad field"}}, "bad_request", True),
        (500, {"error": {"message": "oops"}}, "server", False),
    ],
)
def test_http_errors_become_typed_provider_errors(status, body, kind, permanent):
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(status=status, json_body=body))
        with pytest.raises(ProviderError) as err:
            OpenAICompatAdapter(base_url=upstream.url).complete(request())
    assert (err.value.kind, err.value.permanent, err.value.status) == (kind, permanent, status)


def test_a_rate_limit_carries_retry_after():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(status=429, json_body={"error": {}}, headers={"retry-after": "7"}))
        with pytest.raises(ProviderError) as err:
            list(OpenAICompatAdapter(base_url=upstream.url).stream(request()))
    assert err.value.kind == "rate_limit" and err.value.retry_after_s == 7.0 and not err.value.permanent


def test_garbage_from_the_server_is_a_protocol_error():
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(raw=b"<html>proxy error</html>"))
        with pytest.raises(ProviderError) as err:
            OpenAICompatAdapter(base_url=upstream.url).complete(request())
    assert err.value.kind == "protocol"


def test_a_server_that_is_down_is_a_network_error():
    with pytest.raises(ProviderError) as err:
        OpenAICompatAdapter(base_url=f"http://127.0.0.1:{free_port()}").complete(request())
    assert err.value.kind == "network" and "unreachable" in str(err.value)
