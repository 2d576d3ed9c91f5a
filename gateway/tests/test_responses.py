"""POST /v1/responses with the official `openai` SDK, unpatched, against a live daphne: plain and
streamed, a function tool round trip through previous_response_id, instructions, any configured
model behind it, and the same metering and errors as the other shapes."""

import json

import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry
from gateway import keys
from gateway.tests.conftest import settled
from gateway.tests.test_sdks import anthropic_reply, openai_reply, openai_stream
from tests.loopback import Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"type": "function", "name": "get_weather", "description": "The weather in a city.", "parameters": CITY}


def openai_tool_stream(name: str, arguments: dict) -> Reply:
    text = json.dumps(arguments)
    head = {"index": 0, "id": "call_9", "type": "function", "function": {"name": name, "arguments": ""}}
    events = [json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"role": "assistant"}}]}),
              json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})]  # fmt: skip
    for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        events.append(json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": delta}]}))
    events.append(json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    events.append(json.dumps({"model": "gpt-5", "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 7}}))
    return Reply(sse_events=[*events, "[DONE]"])


def test_a_plain_and_a_streamed_response_with_instructions(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_reply("Paris."), openai_stream("Par", "is.")]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    answer = client.responses.create(model="gpt-5", instructions="Be brief.", input="Capital of France?")
    assert answer.output_text == "Paris." and answer.status == "completed" and answer.id.startswith("resp_")
    assert answer.usage.input_tokens == 12 and answer.usage.output_tokens == 3
    assert oa.requests[0]["json"]["messages"][0] == {"role": "system", "content": "Be brief."}
    kinds, text = [], []
    with client.responses.stream(model="gpt-5", input=[{"role": "user", "content": "Again"}]) as stream:
        for event in stream:
            kinds.append(event.type)
            if event.type == "response.output_text.delta":
                text.append(event.delta)
        final = stream.get_final_response()
    assert "".join(text) == "Paris." == final.output_text and final.usage.output_tokens == 3
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert {"response.output_item.added", "response.content_part.added", "response.output_text.done"} <= set(kinds)
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)).order_by("created_at"), 2)
    assert [(r.status, r.inbound_shape) for r in rows] == [("ok", "responses")] * 2 and rows[0].cost_usd > 0


def test_a_function_tool_round_trip_continued_by_previous_response_id(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_tool_stream("get_weather", {"city": "Rome"}), openai_reply("Sunny in Rome.")]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    with client.responses.stream(model="gpt-5", input="Weather in Rome?", tools=[WEATHER]) as stream:
        arguments = "".join(e.delta for e in stream if e.type == "response.function_call_arguments.delta")
        first = stream.get_final_response()
    call = first.output[0]
    assert (call.type, call.name, call.call_id, json.loads(call.arguments)) == (
        "function_call", "get_weather", "call_9", {"city": "Rome"})  # fmt: skip
    assert json.loads(arguments) == {"city": "Rome"}
    second = client.responses.create(
        model="gpt-5", previous_response_id=first.id, tools=[WEATHER],
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 24 C"}],
    )  # fmt: skip
    assert second.output_text == "Sunny in Rome." and second.previous_response_id == first.id
    sent = oa.requests[1]["json"]
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "tool"]
    assert sent["messages"][1]["tool_calls"][0]["id"] == "call_9"
    assert sent["messages"][2] == {"role": "tool", "tool_call_id": "call_9", "content": "sunny, 24 C"}
    assert sent["tools"][0]["function"]["name"] == "get_weather"


def test_any_configured_model_answers_the_responses_shape(gateway, upstreams, key):
    _, an = upstreams
    an.replies.append(anthropic_reply("Rome."))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    answer = client.responses.create(model="sonnet", input="Capital of Italy?", max_output_tokens=50)
    assert answer.output_text == "Rome." and an.requests[0]["path"].endswith("/messages")
    assert an.requests[0]["json"]["max_tokens"] == 50
    local = client.responses.create(model="local-fast", input="Say hello.", max_output_tokens=20)
    assert local.output_text and local.usage.output_tokens > 0


def test_stored_responses_are_the_keys_own_and_store_false_keeps_nothing(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_reply("One."), openai_reply("Two.")]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    kept = client.responses.create(model="gpt-5", input="First?")
    eve = get_user_model().objects.create_user(username="eve", password="pw-eve-1234567")
    other = keys.issue(name="other", user=eve)
    stranger = openai.OpenAI(base_url=f"{gateway}/v1", api_key=other.raw, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        stranger.responses.create(model="gpt-5", input="Go on", previous_response_id=kept.id)
    assert refused.value.code == "previous_response_not_found"
    unkept = client.responses.create(model="gpt-5", input="Second?", store=False)
    with pytest.raises(openai.BadRequestError, match="not found"):
        client.responses.create(model="gpt-5", input="Go on", previous_response_id=unkept.id)
    assert len(oa.requests) == 2


def test_bad_requests_are_clear_400s_and_budgets_hold(gateway, upstreams, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model="gpt-9", input="hi")
    with pytest.raises(openai.BadRequestError, match="input item type"):
        client.responses.create(model="gpt-5", input=[{"type": "computer_call_output", "call_id": "x"}])
    with pytest.raises(openai.BadRequestError, match="background"):
        client.responses.create(model="gpt-5", input="hi", background=True)
    broke = keys.issue(name="broke", user=key.key.user, budget_usd=0)
    spent = openai.OpenAI(base_url=f"{gateway}/v1", api_key=broke.raw, max_retries=0)
    with pytest.raises(openai.RateLimitError) as refused:
        spent.responses.create(model="gpt-5", input="hi")
    assert refused.value.code == "insufficient_quota"
    assert not upstreams[0].requests
