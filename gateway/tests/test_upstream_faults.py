"""Upstream faults at the live gateway: a provider that fails, rate-limits, hangs, cuts its stream
off or sends garbage. Each comes back as the inbound shape's own error (the official SDKs raise
their matching exceptions), counts toward the provider's availability, and leaves a failed call in
the ledger. Upstreams are loopback servers speaking OpenAI's and Anthropic's wire formats."""

import json

import anthropic
import openai
import pytest

from billing.models import LedgerEntry
from gateway.tests.conftest import settled
from routing.models import Provider
from tests.loopback import Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

HI = [{"role": "user", "content": "hi"}]


def chunk(text: str) -> str:
    return json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"content": text}}]})


def slow(timeout_s: float) -> None:
    """The OpenAI provider's timeout; the save bumps the registry version, so daphne sees it."""
    provider = Provider.objects.get(name="openai")
    provider.timeout_s = timeout_s
    provider.save()


def failures(availability, model: str) -> int:
    raw = availability.client.get(f"{availability.prefix}:model:{model}")
    return len(json.loads(raw).get("failures", [])) if raw else 0


def test_errors_rate_limits_and_garbage_from_the_provider_are_the_shapes_errors(
    gateway, upstreams, key, gateway_availability
):
    oa, an = upstreams
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    oa.replies += [
        Reply(status=500, json_body={"error": {"message": "upstream exploded"}}),
        Reply(raw=b"<html>502 Bad Gateway</html>"),  # a 200 whose body is not JSON
    ]
    with pytest.raises(openai.InternalServerError) as server:
        client.chat.completions.create(model="gpt-5", messages=HI)
    assert server.value.status_code == 502 and "upstream exploded" in server.value.message
    with pytest.raises(anthropic.InternalServerError) as garbage:
        claude.messages.create(model="gpt-5", max_tokens=10, messages=HI)
    assert garbage.value.status_code == 502 and "not JSON" in garbage.value.message
    assert garbage.value.body["type"] == "error" and garbage.value.body["error"]["type"] == "api_error"
    assert failures(gateway_availability, "gpt-5") == 2

    an.replies.append(Reply(status=429, headers={"retry-after": "30"}, json_body={"type": "error"}))
    with pytest.raises(anthropic.OverloadedError) as limited:  # the provider's limit is not the client's
        claude.messages.create(model="sonnet", max_tokens=10, messages=HI)
    assert limited.value.status_code == 529 and limited.value.response.headers["retry-after"] == "30"
    # The provider asked for 30 s: until then the model is cooling down, and the gateway says so
    # without calling it.
    with pytest.raises(openai.InternalServerError, match="unavailable right now") as cooling:
        client.chat.completions.create(model="sonnet", messages=HI)
    assert cooling.value.status_code == 503 and len(an.requests) == 1

    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 3)
    assert sorted((r.model, r.status) for r in rows) == [("claude-sonnet", "error"), ("gpt-5", "error"),
                                                          ("gpt-5", "error")]  # fmt: skip
    assert all(r.cost_usd == 0 and r.error for r in rows)


def test_a_provider_that_hangs_times_out_as_a_504_and_counts_as_a_network_fault(
    gateway, upstreams, key, gateway_availability
):
    oa, _ = upstreams
    slow(0.5)
    oa.replies.append(Reply(json_body={}, delay_s=3))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.APIStatusError) as timed_out:
        client.chat.completions.create(model="gpt-5", messages=HI)
    assert timed_out.value.status_code == 504 and "timed out" in timed_out.value.message
    raw = gateway_availability.client.get(f"{gateway_availability.prefix}:provider:openai")
    assert json.loads(raw)["cause"] == "network errors"
    [row] = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 1)
    assert row.status == "error" and "timed out" in row.error


def test_streams_cut_off_stalled_or_garbled_end_in_the_shapes_error_event(gateway, upstreams, key):
    oa, an = upstreams
    slow(1)
    oa.replies += [
        Reply(sse_events=[chunk("Par")]),  # the connection closes: no finish_reason, no [DONE]
        Reply(sse_events=[chunk("Par"), "{not json"]),
        Reply(sse_events=[chunk("Par")], stall_s=3),  # stalls past the read timeout
    ]
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    for expected in ("cut off before it finished", "invalid JSON in the event stream", "timed out"):
        stream = client.chat.completions.create(model="gpt-5", messages=HI, stream=True)
        text = []
        with pytest.raises(openai.APIError, match=expected):
            for part in stream:
                text.append(part.choices[0].delta.content or "" if part.choices else "")
        assert "".join(text) == "Par", "what arrived before the fault still reached the client"

    an.replies.append(Reply(sse_events=[
        ("message_start", json.dumps({"type": "message_start", "message": {"model": "claude-sonnet-4-5",
                                      "usage": {"input_tokens": 10, "output_tokens": 1}}})),
        ("content_block_start", json.dumps({"type": "content_block_start", "index": 0,
                                            "content_block": {"type": "text", "text": ""}})),
        ("content_block_delta", json.dumps({"type": "content_block_delta", "index": 0,
                                            "delta": {"type": "text_delta", "text": "Ro"}})),
    ]))  # fmt: skip
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    with pytest.raises(anthropic.APIStatusError, match="cut off before message_stop"):
        with claude.messages.stream(model="sonnet", max_tokens=10, messages=HI) as stream:
            assert "".join(stream.text_stream) == "Ro"

    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 4)
    assert [r.status for r in rows] == ["error"] * 4
