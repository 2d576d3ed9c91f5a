"""Timeouts of provider calls, against loopback upstreams: a call answered in one piece may take
up to its total, a streamed call fails only when the response does not start or stops arriving,
and each failure is a typed ProviderError("timeout"). Limits are small so the tests stay fast."""

import json

import pytest

from core.ir import ChatRequest, Message, MessageStop, TextDelta
from routing.models import Provider
from routing.providers.anthropic import AnthropicAdapter
from routing.providers.base import ProviderError, Timeouts
from routing.providers.openai_compat import OpenAICompatAdapter
from routing.registry import adapter_for, current
from tests.loopback import LoopbackProvider, Reply, paced

REPLY = {
    "model": "gpt-test",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "late"}}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1},
}
# Reads may wait 0.4 s; a whole answer may take 2 s.
LIMITS = Timeouts(connect_s=1.0, first_byte_s=0.4, idle_s=0.4, total_s=2.0)


def chunk(text: str, finish=None) -> str:
    delta = {"content": text} if text else {}
    return json.dumps({"model": "gpt-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def request(stream: bool = False) -> ChatRequest:
    return ChatRequest(model="gpt-test", messages=(Message.text("user", "hi"),), max_tokens=10, stream=stream)


@pytest.fixture
def upstream():
    with LoopbackProvider() as server:
        yield server


def test_an_answer_slower_than_a_read_timeout_but_within_the_total_arrives(upstream):
    upstream.replies.append(Reply(json_body=REPLY, delay_s=1.0))
    response = OpenAICompatAdapter(base_url=upstream.url, timeouts=LIMITS).complete(request())
    assert response.message.text_content == "late"


def test_an_answer_past_the_total_is_a_timeout_error(upstream):
    upstream.replies.append(Reply(json_body=REPLY, delay_s=1.5))
    limits = Timeouts(connect_s=1.0, first_byte_s=5.0, idle_s=5.0, total_s=0.5)
    with pytest.raises(ProviderError) as failed:
        OpenAICompatAdapter(base_url=upstream.url, timeouts=limits).complete(request())
    assert failed.value.kind == "timeout" and "no complete answer within 0.5 s" in failed.value.message


def test_a_stream_of_steady_slow_chunks_outlasts_the_total(upstream):
    events = [chunk("a"), chunk("b"), chunk("c"), chunk("d"), chunk("", finish="stop"), "[DONE]"]
    upstream.replies.append(Reply(sse_events=paced(events, 0.25)))
    limits = Timeouts(connect_s=1.0, first_byte_s=0.4, idle_s=0.4, total_s=0.5)
    out = list(OpenAICompatAdapter(base_url=upstream.url, timeouts=limits).stream(request(stream=True)))
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "abcd"
    assert isinstance(out[-1], MessageStop)


def test_a_stream_silent_past_the_idle_timeout_is_a_timeout_error(upstream):
    upstream.replies.append(Reply(sse_events=[chunk("Par")], stall_s=2.0))
    # A first-byte limit longer than the stall: only the idle limit can end this call in time.
    limits = Timeouts(connect_s=1.0, first_byte_s=5.0, idle_s=0.4, total_s=5.0)
    with pytest.raises(ProviderError) as failed:
        list(OpenAICompatAdapter(base_url=upstream.url, timeouts=limits).stream(request(stream=True)))
    assert failed.value.kind == "timeout" and "nothing received for 0.4 s" in failed.value.message


def test_a_stream_that_does_not_start_within_the_first_byte_timeout_is_a_timeout_error(upstream):
    upstream.replies.append(Reply(sse_events=[chunk("x", finish="stop"), "[DONE]"], delay_s=1.5))
    limits = Timeouts(connect_s=1.0, first_byte_s=0.4, idle_s=5.0, total_s=5.0)
    with pytest.raises(ProviderError) as failed:
        list(AnthropicAdapter(base_url=upstream.url, timeouts=limits).stream(request(stream=True)))
    assert failed.value.kind == "timeout" and "no response within 0.4 s" in failed.value.message


@pytest.mark.django_db
def test_a_providers_row_sets_its_timeouts_and_the_local_server_keeps_its_settings(settings):
    settings.METNOS_MODEL_TIMEOUT_S = 45.0
    settings.METNOS_MODEL_CONNECT_TIMEOUT_S = 2.0
    Provider.objects.filter(name="anthropic").update(first_byte_timeout_s=30, idle_timeout_s=20, total_timeout_s=900)
    Provider.objects.get(name="openai").save()  # reloads the registry
    registry = current()
    assert adapter_for(registry.resolve("sonnet")).timeouts == Timeouts(5.0, 30.0, 20.0, 900.0)
    assert adapter_for(registry.resolve("gpt-5")).timeouts == Timeouts(5.0, 300.0, 300.0, 600.0)
    assert adapter_for(registry.resolve("local-fast")).timeouts == Timeouts(2.0, 45.0, 45.0, 45.0)


@pytest.mark.django_db
def test_the_single_timeout_s_of_a_provider_sets_every_wait():
    provider = Provider.objects.get(name="openrouter")
    provider.timeout_s = 7
    provider.save()
    provider.refresh_from_db()
    assert (provider.first_byte_timeout_s, provider.idle_timeout_s, provider.total_timeout_s) == (7, 7, 7)
    assert provider.connect_timeout_s == 5.0
