"""The gateway with the official `openai` and `anthropic` SDKs, unpatched, against a live daphne;
upstream providers are loopback servers speaking OpenAI's and Anthropic's wire formats."""

import json

import anthropic
import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry
from gateway import keys
from gateway.tests.conftest import settled
from tests.loopback import Reply
from tests.minutes import early_in_a_minute

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def openai_reply(text="Paris.", tool=None) -> Reply:
    message: dict = {"role": "assistant", "content": text}
    if tool:
        call = {"id": "call_1", "type": "function", "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if tool else "stop"}
    usage = {"prompt_tokens": 12, "completion_tokens": 3}
    return Reply(json_body={"model": "gpt-5", "choices": [choice], "usage": usage})


def openai_stream(*parts: str) -> Reply:
    events = [json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"content": p}}]}) for p in parts]
    events.append(json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    events.append(json.dumps({"model": "gpt-5", "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}}))
    return Reply(sse_events=[*events, "[DONE]"])


def anthropic_reply(text="Rome.") -> Reply:
    return Reply(json_body={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                            "usage": {"input_tokens": 10, "output_tokens": 2}})  # fmt: skip


def test_the_openai_sdk_talks_to_an_openai_model_plain_and_streamed(gateway, upstreams, key):
    oa, _ = upstreams
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    oa.replies += [openai_reply("Paris."), openai_stream("Par", "is.")]
    asked = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}]
    answer = client.chat.completions.create(model="gpt-5", messages=asked)
    assert answer.choices[0].message.content == "Paris." and answer.usage.completion_tokens == 3
    stream = client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "Again"}], stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "Paris."
    assert oa.requests[0]["json"]["messages"][0] == {"role": "system", "content": "Be brief."}
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)).order_by("created_at"), 2)
    assert [(r.status, r.role, r.inbound_shape) for r in rows] == [("ok", "gateway", "openai")] * 2
    assert rows[0].cost_usd > 0


def test_the_anthropic_sdk_reaches_an_openai_model_and_the_openai_sdk_an_anthropic_one(gateway, upstreams, key):
    oa, an = upstreams
    oa.replies += [openai_reply("Paris."), openai_stream("Par", "is.")]
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw)
    message = claude.messages.create(model="gpt-5", max_tokens=50, system="Be brief.",
                                     messages=[{"role": "user", "content": "Capital of France?"}])  # fmt: skip
    assert message.content[0].text == "Paris." and message.stop_reason == "end_turn"
    with claude.messages.stream(model="gpt-5", max_tokens=50, messages=[{"role": "user", "content": "Again"}]) as s:
        assert "".join(s.text_stream) == "Paris."
        assert s.get_final_message().usage.output_tokens == 3
    an.replies.append(anthropic_reply("Rome."))
    gpt_client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    answer = gpt_client.chat.completions.create(
        model="sonnet", messages=[{"role": "user", "content": "Capital of Italy?"}]
    )
    assert answer.choices[0].message.content == "Rome."
    assert an.requests[0]["path"].endswith("/messages") and an.requests[0]["json"]["max_tokens"] > 0


def test_a_tool_call_and_its_result_round_trip(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_reply(tool=("get_weather", {"city": "Rome"})), openai_reply("Sunny in Rome.")]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
              "properties": {"city": {"type": "string"}}}}}]  # fmt: skip
    messages = [{"role": "user", "content": "Weather in Rome?"}]
    first = client.chat.completions.create(model="gpt-5", messages=messages, tools=tools)
    call = first.choices[0].message.tool_calls[0]
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "call_1",
        "get_weather",
        {"city": "Rome"},
    )
    messages += [first.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny"}]  # fmt: skip
    second = client.chat.completions.create(model="gpt-5", messages=messages, tools=tools)
    assert second.choices[0].message.content == "Sunny in Rome."
    sent = oa.requests[1]["json"]["messages"]
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}


def test_errors_come_back_as_each_sdks_own_exceptions(gateway, upstreams, key):
    oa, _ = upstreams
    bad = openai.OpenAI(base_url=f"{gateway}/v1", api_key="gw_not-a-key", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}])
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.NotFoundError, match="unknown model"):
        client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "hi"}])
    oa.replies.append(Reply(status=500, json_body={"error": {"message": "boom"}}))
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}])
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="max_tokens"):
        claude.messages.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}], max_tokens=0)
    keys.revoke(key.key)
    with pytest.raises(anthropic.AuthenticationError, match="revoked"):
        claude.messages.create(model="gpt-5", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert LedgerEntry.objects.filter(status="error", inbound_shape="openai").count() == 1


def test_rate_limits_and_budgets_use_the_shapes_error_types(gateway, upstreams):
    oa, _ = upstreams
    user = get_user_model().objects.create_user(username="ops", password="pw-ops-123456789")
    limited = keys.issue(name="ci", user=user, rpm=1)
    oa.replies += [openai_reply("one")]
    early_in_a_minute()  # both calls in one minute's count
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=limited.raw, max_retries=0)
    client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}])
    assert int(caught.value.response.headers["retry-after"]) > 0
    broke = keys.issue(name="broke", user=user, budget_usd=0)
    claude = anthropic.Anthropic(base_url=gateway, api_key=broke.raw, max_retries=0)
    with pytest.raises(anthropic.PaymentRequiredError) as refused:
        claude.messages.create(model="gpt-5", max_tokens=100, messages=[{"role": "user", "content": "hi"}])
    assert refused.value.status_code == 402 and "budget exceeded" in str(refused.value)


def test_models_and_count_tokens(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    assert "gpt-5" in {m.id for m in client.models.list()}
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw)
    count = claude.messages.count_tokens(model="sonnet", messages=[{"role": "user", "content": "x" * 400}])
    assert count.input_tokens >= 100


def test_the_local_model_answers_both_sdks_plain_and_streamed(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw)
    answer = client.chat.completions.create(
        model="local-fast", max_tokens=20, messages=[{"role": "user", "content": "Say hello."}]
    )
    assert answer.choices[0].message.content and answer.usage.completion_tokens > 0
    streamed = client.chat.completions.create(
        model="local-fast", max_tokens=20, stream=True, messages=[{"role": "user", "content": "Say hello."}]
    )
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw)
    with claude.messages.stream(model="local-fast", max_tokens=20, messages=[{"role": "user", "content": "Hi"}]) as s:
        assert "".join(s.text_stream)
    assert len(settled(LedgerEntry.objects.filter(model="local-fast", cost_usd=0), 3)) == 3


def test_oversized_bodies_and_overlong_prompts_are_refused_before_any_call(gateway, upstreams, key, settings):
    oa, _ = upstreams
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.APIStatusError) as too_big:
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "x" * 5_000_000}])
    assert too_big.value.status_code == 413
    with pytest.raises(openai.BadRequestError, match="context window"):
        client.chat.completions.create(model="local-fast", messages=[{"role": "user", "content": "word " * 20_000}])
    assert not oa.requests
