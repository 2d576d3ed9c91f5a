"""The gateway's errors and headers as the real APIs send theirs: each shape's status, error type
and code (so the official SDKs raise the exception class they raise against api.openai.com and
api.anthropic.com), a request id on every response, our own rate limits in each shape's headers,
and GET /v1/models/{id}. Against a live daphne; upstreams are loopback servers."""

import json
import uuid
from datetime import timedelta

import anthropic
import httpx
import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry
from core.clock import now
from gateway import keys
from gateway.failures import provider_failure
from gateway.shapes import SHAPES
from gateway.tests.conftest import settled
from routing.providers.base import ProviderError
from tests.loopback import Reply
from tests.minutes import early_in_a_minute

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

HI = [{"role": "user", "content": "hi"}]
ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01"}


def openai_reply(text="Paris.") -> Reply:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    return Reply(
        json_body={"model": "gpt-5", "choices": [choice], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}
    )


def chat(gateway: str, raw_key: str | None, model: str = "gpt-5", **body) -> httpx.Response:
    auth = {"Authorization": f"Bearer {raw_key}"} if raw_key else {}
    payload = {"model": model, "messages": HI, **body}
    return httpx.post(f"{gateway}/v1/chat/completions", json=payload, headers=auth, timeout=30)


def messages(gateway: str, raw_key: str | None, model: str = "gpt-5", **body) -> httpx.Response:
    auth = {"x-api-key": raw_key} if raw_key else {}
    payload = {"model": model, "max_tokens": 10, "messages": HI, **body}
    return httpx.post(f"{gateway}/v1/messages", json=payload, headers={**auth, **ANTHROPIC_HEADERS}, timeout=30)


def user(name: str):
    return get_user_model().objects.create_user(username=name, password=f"pw-{name}-123456789")


def test_an_unknown_model_or_one_the_key_may_not_use_is_a_404_in_each_shapes_form(gateway, upstreams, key):
    unknown = chat(gateway, key.raw, "gpt-9")
    assert unknown.status_code == 404
    assert unknown.json()["error"] | {"message": ""} == {
        "message": "", "type": "invalid_request_error", "param": None, "code": "model_not_found"
    }  # fmt: skip
    assert "gpt-9" in unknown.json()["error"]["message"]
    unknown = messages(gateway, key.raw, "gpt-9")
    assert unknown.status_code == 404
    body = unknown.json()
    assert (body["type"], body["error"]["type"]) == ("error", "not_found_error")
    assert body["request_id"] == unknown.headers["request-id"]

    limited = keys.issue(name="only-sonnet", user=user("ann"), allowed_models=["claude-sonnet"])
    with pytest.raises(openai.NotFoundError) as hidden:
        openai.OpenAI(base_url=f"{gateway}/v1", api_key=limited.raw, max_retries=0).chat.completions.create(
            model="gpt-5", messages=HI
        )
    assert hidden.value.code == "model_not_found" and "may not use" in hidden.value.message
    with pytest.raises(anthropic.NotFoundError) as missing:
        anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0).messages.create(
            model="claude-9", max_tokens=10, messages=HI
        )
    assert missing.value.request_id == missing.value.response.headers["request-id"]
    assert LedgerEntry.objects.count() == 0, "nothing was admitted"


def test_a_missing_bad_revoked_or_expired_key_is_a_401_with_the_shapes_code(gateway, key):
    missing = chat(gateway, None)
    assert missing.status_code == 401 and missing.json()["error"]["code"] is None  # as OpenAI: no key, no code
    for raw in ("gw_not-a-key", "sk-someone-elses"):
        bad = chat(gateway, raw)
        assert bad.status_code == 401
        assert (bad.json()["error"]["type"], bad.json()["error"]["code"]) == (
            "invalid_request_error",
            "invalid_api_key",
        )
    bad = messages(gateway, "gw_not-a-key")
    assert bad.status_code == 401 and bad.json()["error"]["type"] == "authentication_error"

    expired = keys.issue(name="old", user=user("bea"), expires_at=now() - timedelta(minutes=1))
    with pytest.raises(openai.AuthenticationError, match="expired") as caught:
        openai.OpenAI(base_url=f"{gateway}/v1", api_key=expired.raw, max_retries=0).models.list()
    assert caught.value.code == "invalid_api_key"
    keys.revoke(key.key)
    with pytest.raises(anthropic.AuthenticationError, match="revoked"):
        anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0).messages.create(
            model="gpt-5", max_tokens=5, messages=HI
        )


def test_our_request_limit_is_a_429_with_retry_info_and_each_shapes_rate_limit_headers(gateway, upstreams):
    oa, _ = upstreams
    oa.replies += [openai_reply("one"), openai_reply("two"), openai_reply("three")]
    limited = keys.issue(name="ci", user=user("cid"), rpm=3)
    early_in_a_minute()
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=limited.raw, max_retries=0)
    first = client.chat.completions.with_raw_response.create(model="gpt-5", messages=HI)
    assert first.headers["x-ratelimit-limit-requests"] == "3"
    assert first.headers["x-ratelimit-remaining-requests"] == "2"
    assert first.headers["x-ratelimit-reset-requests"].endswith("s")
    assert 0 < float(first.headers["x-ratelimit-reset-requests"][:-1]) <= 60
    assert "x-ratelimit-limit-tokens" not in first.headers, "no token limit applies to this key"

    claude = anthropic.Anthropic(base_url=gateway, api_key=limited.raw, max_retries=0)
    second = claude.messages.with_raw_response.create(model="gpt-5", max_tokens=10, messages=HI)
    assert second.headers["anthropic-ratelimit-requests-limit"] == "3"
    assert second.headers["anthropic-ratelimit-requests-remaining"] == "1"
    assert second.headers["anthropic-ratelimit-requests-reset"].endswith(":00Z")

    third = chat(gateway, limited.raw)  # the third request of the minute uses the last one up
    assert third.status_code == 200 and third.headers["x-ratelimit-remaining-requests"] == "0"
    with pytest.raises(openai.RateLimitError) as limit:
        client.chat.completions.create(model="gpt-5", messages=HI)
    error = limit.value.body
    assert (error["type"], error["code"]) == ("requests", "rate_limit_exceeded")
    assert 0 < int(limit.value.response.headers["retry-after"]) <= 60
    assert limit.value.response.headers["x-ratelimit-remaining-requests"] == "0"
    with pytest.raises(anthropic.RateLimitError) as limit:
        claude.messages.create(model="gpt-5", max_tokens=10, messages=HI)
    assert limit.value.body["error"]["type"] == "rate_limit_error"
    assert limit.value.response.headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert int(limit.value.response.headers["retry-after"]) > 0


def test_our_token_limit_is_a_429_whose_type_names_tokens(gateway, upstreams):
    oa, _ = upstreams
    oa.replies.append(openai_reply())
    limited = keys.issue(name="tpm", user=user("dan"), tpm=500)
    early_in_a_minute()
    ok = chat(gateway, limited.raw, max_tokens=100)
    assert ok.status_code == 200 and ok.headers["x-ratelimit-limit-tokens"] == "500"
    assert 0 < int(ok.headers["x-ratelimit-remaining-tokens"]) < 500
    refused = chat(gateway, limited.raw, max_tokens=1000)
    assert refused.status_code == 429
    assert (refused.json()["error"]["type"], refused.json()["error"]["code"]) == ("tokens", "rate_limit_exceeded")
    assert refused.headers["x-ratelimit-remaining-tokens"] == "0"


def test_a_spent_budget_is_insufficient_quota_or_billing_error_and_the_sdks_do_not_retry_it(gateway, upstreams):
    broke = keys.issue(name="broke", user=user("eve"), budget_usd=0)
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=broke.raw, max_retries=2)
    with pytest.raises(openai.RateLimitError) as quota:
        client.chat.completions.create(model="gpt-5", messages=HI)
    assert (quota.value.body["type"], quota.value.code) == ("insufficient_quota", "insufficient_quota")
    assert quota.value.response.headers["x-should-retry"] == "false"
    claude = anthropic.Anthropic(base_url=gateway, api_key=broke.raw, max_retries=2)
    with pytest.raises(anthropic.PaymentRequiredError) as billing:
        claude.messages.create(model="gpt-5", max_tokens=10, messages=HI)
    assert billing.value.body["error"]["type"] == "billing_error" and "budget exceeded" in billing.value.message
    refused = LedgerEntry.objects.filter(key_id=str(broke.key.id), status="refused")
    assert refused.count() == 2, "each SDK asked once: a spent budget is not retried"


def test_an_overloaded_upstream_is_anthropics_529_and_openais_503_streamed_or_not(gateway, upstreams, key):
    oa, an = upstreams
    an.replies.append(Reply(status=529, json_body={"type": "error", "error": {"type": "overloaded_error"}}))
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    with pytest.raises(anthropic.OverloadedError) as overloaded:  # an HTTP error, not a 200 with an error event
        with claude.messages.stream(model="sonnet", max_tokens=10, messages=HI) as stream:
            "".join(stream.text_stream)
    assert overloaded.value.body["error"]["type"] == "overloaded_error"

    oa.replies.append(Reply(status=429, headers={"retry-after-ms": "2500"}, json_body={"error": {"message": "slow"}}))
    limited = messages(gateway, key.raw, "gpt-5")
    assert limited.status_code == 529 and limited.json()["error"]["type"] == "overloaded_error"
    assert limited.headers["retry-after"] == "3", "the provider's retry-after-ms, rounded up"
    # The model cools down for those 2.5 s; the gateway says so without calling it.
    with pytest.raises(openai.InternalServerError, match="unavailable right now") as cooling:
        openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0).chat.completions.create(
            model="gpt-5", messages=HI
        )
    assert cooling.value.status_code == 503 and cooling.value.body["type"] == "server_error"
    assert len(oa.requests) == 1
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 2)
    assert sorted(r.status for r in rows) == ["error", "error"]


def test_each_shape_names_a_provider_timeout_as_its_api_does():
    timed_out = provider_failure(ProviderError("timeout", "openai at http://x timed out"))
    status, body = SHAPES["anthropic"].error(timed_out, "req_1")
    assert (status, body["error"]["type"], body["request_id"]) == (504, "timeout_error", "req_1")
    status, body = SHAPES["openai"].error(timed_out)
    assert (status, body["error"]["type"]) == (504, "server_error")
    event = SHAPES["anthropic"].stream_error(timed_out, "req_1").decode()
    assert (
        event.startswith("event: error\n") and json.loads(event.split("data: ")[1])["error"]["type"] == "timeout_error"
    )


def test_every_response_carries_its_request_id_and_an_admitted_call_is_found_by_it(gateway, upstreams, key):
    oa, _ = upstreams
    oa.replies += [openai_reply("Paris."), Reply(sse_events=[
        json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]}),
        "[DONE]",
    ])]  # fmt: skip
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    answer = client.chat.completions.create(model="gpt-5", messages=HI)
    row = LedgerEntry.objects.get(id=uuid.UUID(answer._request_id.removeprefix("req_")))
    assert row.key_id == str(key.key.id) and row.inbound_shape == "openai"
    with client.chat.completions.with_streaming_response.create(model="gpt-5", messages=HI, stream=True) as streamed:
        assert streamed.headers["x-request-id"].startswith("req_")
        assert streamed.headers["x-request-id"] != answer._request_id
        streamed.read()

    seen = set()
    for response in (
        httpx.get(f"{gateway}/v1/models", headers={"Authorization": f"Bearer {key.raw}"}),
        httpx.post(f"{gateway}/v1/messages/count_tokens", headers={"x-api-key": key.raw, **ANTHROPIC_HEADERS},
                   json={"model": "sonnet", "messages": HI}),
        httpx.get(f"{gateway}/v1/nowhere"),
        httpx.get(f"{gateway}/v1/messages", headers=ANTHROPIC_HEADERS),
        chat(gateway, key.raw, max_tokens=-1),
    ):  # fmt: skip
        name = (
            "request-id" if "count_tokens" in str(response.url) or "messages" in str(response.url) else "x-request-id"
        )
        assert response.headers[name].startswith("req_"), (response.url, dict(response.headers))
        seen.add(response.headers[name])
    assert len(seen) == 5


def test_a_model_is_retrieved_by_id_in_each_shape_and_only_if_the_key_may_use_it(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    model = client.models.retrieve("gpt-5")
    assert (model.id, model.object, model.owned_by) == ("gpt-5", "model", "openai")
    assert client.models.retrieve("sonnet").id == "claude-sonnet", "an alias names its model"
    with pytest.raises(openai.NotFoundError) as unknown:
        client.models.retrieve("gpt-9")
    assert unknown.value.code == "model_not_found"

    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    info = claude.models.retrieve("gpt-5")
    assert (info.id, info.type, info.display_name) == ("gpt-5", "model", "gpt-5")
    limited = keys.issue(name="only-gpt", user=user("fay"), allowed_models=["gpt-5"])
    assert openai.OpenAI(base_url=f"{gateway}/v1", api_key=limited.raw).models.retrieve("gpt-5").id == "gpt-5"
    with pytest.raises(anthropic.NotFoundError):
        anthropic.Anthropic(base_url=gateway, api_key=limited.raw, max_retries=0).models.retrieve("claude-sonnet")
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{gateway}/v1", api_key="gw_nope", max_retries=0).models.retrieve("gpt-5")
