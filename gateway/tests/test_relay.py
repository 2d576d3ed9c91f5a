"""A faithful relay: what each shape's fields become at the loopback upstream, same shape and
cross-shape; the 400s where a model cannot honour a field; images routed by `has_images`; and
stream_options.include_usage as OpenAI means it, with the official SDKs against a live daphne."""

import anthropic
import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry
from core.ir import ChatRequest, ImageBlock, Message, TextBlock
from gateway import keys
from gateway.shapes import SHAPES, BadRequest
from gateway.tests.conftest import settled
from gateway.tests.test_sdks import anthropic_reply, openai_reply, openai_stream
from routing.models import ChatModel, Provider
from routing.providers.local import LocalLlamaAdapter
from tests.loopback import LoopbackProvider, Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

POLICY = """
global_default: gpt-5
rules:
  - name: gateway-images
    when: {role: gateway, has_images: true}
    model: claude-haiku
"""
PNG = "aGk="
URL = "https://example.com/cat.png"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
CLAUDE_TOOLS = [{"name": "get_weather", "input_schema": {"type": "object"}}]
SCHEMA = {"type": "json_schema", "json_schema": {"name": "city", "schema": {"type": "object"}, "strict": True}}


@pytest.fixture
def gateway_env(tmp_path):
    path = tmp_path / "routing.yaml"
    path.write_text(POLICY)
    return {"METNOS_ROUTING_FILE": str(path)}


@pytest.fixture(autouse=True)
def plain_models(db):
    """An OpenAI model with no parameter rules (gpt-5's drop top_p) and one without tool calling."""
    openai_provider = Provider.objects.get(name="openai")
    common = {"provider": openai_provider, "context_window": 128_000, "max_output_tokens": 1000}
    ChatModel.objects.create(name="gpt-4o", api_model="gpt-4o", supports_vision=True,
                             supports_structured_output=True, **common)  # fmt: skip
    ChatModel.objects.create(name="gpt-notools", api_model="gpt-notools", supports_tools=False, **common)


def image_message(text="What is this?") -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            {"type": "image_url", "image_url": {"url": URL}}]}  # fmt: skip


def test_an_openai_request_reaches_an_anthropic_model_with_its_images_stops_top_p_and_forced_tool(
    gateway, upstreams, key
):
    _, an = upstreams
    an.replies.append(anthropic_reply("A cat."))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    answer = client.chat.completions.create(
        model="sonnet", messages=[image_message()], stop=["END", "STOP"], top_p=0.5, seed=7, tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )  # fmt: skip
    assert answer.choices[0].message.content == "A cat."
    sent = an.requests[0]["json"]
    assert sent["messages"][0]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": URL}},
    ]
    assert (sent["stop_sequences"], sent["top_p"]) == (["END", "STOP"], 0.5)
    assert sent["tool_choice"] == {"type": "tool", "name": "get_weather"}
    assert "seed" not in sent, "Anthropic has no seed: dropped, not refused"


def test_an_anthropic_request_reaches_an_openai_model_with_its_images_and_stops_and_without_thinking(
    gateway, upstreams, key
):
    oa, _ = upstreams
    oa.replies.append(openai_reply("A cat."))
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    content = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": URL}},
        {"type": "text", "text": "What is this?"},
    ]
    message = claude.messages.create(
        model="gpt-4o", max_tokens=2000, messages=[{"role": "user", "content": content}], stop_sequences=["END"],
        extra_body={"top_p": 0.8}, tools=CLAUDE_TOOLS, tool_choice={"type": "any"},
        thinking={"type": "enabled", "budget_tokens": 1024},
    )  # fmt: skip
    assert message.content[0].text == "A cat."
    sent = oa.requests[0]["json"]
    assert sent["messages"][0]["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": URL}},
        {"type": "text", "text": "What is this?"},
    ]
    assert (sent["stop"], sent["top_p"], sent["tool_choice"]) == (["END"], 0.8, "required")
    assert "thinking" not in sent, "an OpenAI model has no thinking: dropped, so Claude Code keeps working"


def test_an_openai_request_reaches_an_openai_model_with_seed_schema_effort_and_tool_choice_none(
    gateway, upstreams, key
):
    oa, _ = upstreams
    oa.replies.append(openai_reply('{"city": "Rome"}'))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "A city?"}], seed=7, stop="END", top_p=0.3,
        response_format=SCHEMA, reasoning_effort="low", tools=TOOLS, tool_choice="none",
    )  # fmt: skip
    sent = oa.requests[0]["json"]
    assert (sent["seed"], sent["stop"], sent["top_p"], sent["reasoning_effort"]) == (7, ["END"], 0.3, "low")
    assert (sent["response_format"], sent["tool_choice"]) == (SCHEMA, "none")


def test_an_anthropic_request_reaches_an_anthropic_model_with_thinking_and_its_signed_blocks(gateway, upstreams, key):
    _, an = upstreams
    thought = {"type": "thinking", "thinking": "Say it is sunny.", "signature": "sig-2"}
    an.replies.append(Reply(json_body={"id": "msg_1", "type": "message", "role": "assistant",
                                       "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                                       "content": [thought, {"type": "text", "text": "Sunny."}],
                                       "usage": {"input_tokens": 10, "output_tokens": 2}}))  # fmt: skip
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    history = [
        {"role": "user", "content": "Weather in Rome?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Use the tool.", "signature": "sig-1"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Rome"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
    ]  # fmt: skip
    thinking = {"type": "enabled", "budget_tokens": 1024}
    message = claude.messages.create(
        model="sonnet", max_tokens=2000, messages=history, tools=CLAUDE_TOOLS, thinking=thinking,
        stop_sequences=["END"], tool_choice={"type": "auto"},
    )  # fmt: skip
    sent = an.requests[0]["json"]
    assert (sent["thinking"], sent["stop_sequences"], sent["tool_choice"]) == (thinking, ["END"], {"type": "auto"})
    assert sent["messages"][1]["content"][0] == {"type": "thinking", "thinking": "Use the tool.", "signature": "sig-1"}
    assert [b.type for b in message.content] == ["thinking", "text"] and message.content[0].signature == "sig-2"


def test_it_refuses_images_forced_tools_and_schemas_a_model_cannot_honour(gateway, upstreams, key):
    oa, an = upstreams
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.BadRequestError, match="'local-fast' cannot see images") as no_vision:
        client.chat.completions.create(model="local-fast", messages=[image_message()])
    assert no_vision.value.body["param"] == "messages"
    with pytest.raises(openai.BadRequestError, match="no tool calling, so tool_choice cannot force a tool"):
        client.chat.completions.create(model="gpt-notools", messages=[{"role": "user", "content": "hi"}],
                                       tools=TOOLS, tool_choice="required")  # fmt: skip
    with pytest.raises(openai.BadRequestError, match="no structured output, so response_format 'json_schema'"):
        client.chat.completions.create(model="sonnet", messages=[{"role": "user", "content": "hi"}],
                                       response_format=SCHEMA)  # fmt: skip
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="no tool calling"):
        claude.messages.create(model="gpt-notools", max_tokens=50, messages=[{"role": "user", "content": "hi"}],
                               tools=CLAUDE_TOOLS, tool_choice={"type": "tool", "name": "get_weather"})  # fmt: skip
    assert oa.requests == [] and an.requests == []
    assert not LedgerEntry.objects.exists(), "refused before admission: nothing to bill"


def test_an_image_routes_a_chain_key_by_has_images_and_past_a_model_without_vision(gateway, upstreams):
    oa, an = upstreams
    owner = get_user_model().objects.create_user(username="router", password="pw-router-123456789")
    chain = keys.issue(name="chain", user=owner, routing="chain").raw
    an.replies += [anthropic_reply("a cat"), anthropic_reply("a cat again")]
    oa.replies.append(openai_reply("plain text"))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=chain, max_retries=0)
    assert client.chat.completions.create(model="auto", messages=[image_message()]).choices[0].message.content == (
        "a cat"
    )
    assert client.chat.completions.create(model="auto", messages=[{"role": "user", "content": "hi"}]).model == "gpt-5"
    # local-fast, named as slot 1, has no vision: the chain passes it by and the rule serves.
    served = client.chat.completions.create(model="local-fast", messages=[image_message()])
    assert served.choices[0].message.content == "a cat again"
    rows = settled(LedgerEntry.objects.order_by("created_at"), 3)
    assert [(r.model, r.slot) for r in rows] == [("claude-haiku", "rule"), ("gpt-5", "global_default"),
                                                 ("claude-haiku", "rule")]  # fmt: skip
    assert an.requests[0]["json"]["messages"][0]["content"][1]["type"] == "image"


def test_the_usage_chunk_comes_only_when_the_client_asks_for_it(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_stream("Par", "is."), openai_stream("Par", "is.")]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    asked = [{"role": "user", "content": "Capital of France?"}]
    plain = list(client.chat.completions.create(model="gpt-4o", messages=asked, stream=True))
    assert all(c.choices for c in plain), "no empty-choices chunk unless asked: clients read choices[0]"
    assert "".join(c.choices[0].delta.content or "" for c in plain) == "Paris."
    counted = list(client.chat.completions.create(model="gpt-4o", messages=asked, stream=True,
                                                  stream_options={"include_usage": True}))  # fmt: skip
    assert counted[-1].choices == [] and all(c.usage is None for c in counted[:-1])
    usage = counted[-1].usage
    assert oa.requests[0]["json"]["stream_options"] == {"include_usage": True}, "metering gets usage either way"
    rows = settled(LedgerEntry.objects.order_by("created_at"), 2)
    assert [(r.input_tokens, r.output_tokens) for r in rows] == [(12, 3), (12, 3)]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (12, 3, 15)


def test_the_local_adapter_sends_stops_top_p_seed_and_a_schema_llama_cpp_reads():
    with LoopbackProvider() as server:
        server.replies.append(openai_reply("{}"))
        server.replies.append(openai_reply("a cat"))
        adapter = LocalLlamaAdapter(base_url=server.url, timeout_s=5)
        ask = [Message.text("user", "A city?")]
        adapter.complete(ChatRequest(model="", messages=tuple(ask), stop=("END",), top_p=0.9, seed=3,
                                     reasoning_effort="low", response_format=SCHEMA))  # fmt: skip
        image = Message("user", (TextBlock("What is this?"), ImageBlock("image/png", PNG)))
        adapter.complete(ChatRequest(model="", messages=(image,)))
    sent, seen = server.requests[0]["json"], server.requests[1]["json"]
    assert (sent["stop"], sent["top_p"], sent["seed"]) == (["END"], 0.9, 3)
    assert sent["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    assert "reasoning_effort" not in sent
    assert seen["messages"][0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG}"},
    }


def test_stream_options_and_a_data_url_without_base64_are_checked():
    shape = SHAPES["openai"]
    _, asked = shape.parse({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True,
                            "stream_options": {"include_usage": True}})  # fmt: skip
    assert asked.include_usage
    _, unstreamed = shape.parse({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                                 "stream_options": {"include_usage": True}})  # fmt: skip
    assert not unstreamed.include_usage
    bad = {"type": "image_url", "image_url": {"url": "data:image/png,plain"}}
    with pytest.raises(BadRequest, match="data:<media type>;base64"):
        shape.parse({"model": "m", "messages": [{"role": "user", "content": [bad]}]})
