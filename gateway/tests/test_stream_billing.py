"""Billing of the gateway's streams: a streamed call costs what the same call answered in one piece
costs, to the last Decimal, for each inbound shape and each kind of upstream; a stream the client
abandons is billed for what the provider produced; Anthropic's streamed thinking is relayed; and
every endpoint answers to the key's budget and rate limits. Upstreams are loopback servers that
speak OpenAI's and Anthropic's wire formats."""

import json
import time
from decimal import Decimal

import anthropic
import httpx
import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry, ModelPrice, PriceVersion
from core.clock import now
from core.ir import (
    ChatRequest,
    Message,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ThinkingStop,
    ToolUseDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from gateway import keys
from gateway.shapes import AnthropicShape, OpenAIShape
from gateway.tests.conftest import settled
from routing.models import ChatModel, Provider
from routing.providers.openai_compat import OpenAICompatAdapter
from tests.loopback import LoopbackProvider, Reply, paced

DRAIN_S = 3.0
GAP_S = 0.2  # between a paced upstream's events: the client is long gone before the last one

# The same usage in each upstream's words, and what it costs at the list prices (billing.defaults):
# gpt-5 at $1.25 / $10 / $0.125 cached a million; claude-sonnet-4-5 at $3 / $15 / $0.30 read /
# $3.75 written. Cache reads and writes each at their own rate.
OPENAI_USAGE = {"prompt_tokens": 1000, "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 800}}
OPENAI_TOKENS = (200, 50, 800, 0)
OPENAI_COST = (200 * Decimal("1.25") + 50 * 10 + 800 * Decimal("0.125")) / 1_000_000
ANTHROPIC_START = {"input_tokens": 40, "output_tokens": 1, "cache_read_input_tokens": 900,
                   "cache_creation_input_tokens": 100}  # fmt: skip
ANTHROPIC_TOKENS = (40, 20, 900, 100)
ANTHROPIC_COST = (40 * 3 + 20 * 15 + 900 * Decimal("0.30") + 100 * Decimal("3.75")) / 1_000_000


@pytest.fixture
def gateway_env() -> dict:
    return {"METNOS_ABANDONED_STREAM_DRAIN_S": str(DRAIN_S)}


def sse(kind: str, **data) -> tuple[str, str]:
    return kind, json.dumps({"type": kind, **data})


def openai_chunks(*parts: str, usage: dict | None = OPENAI_USAGE) -> list[str]:
    chunks = [{"model": "gpt-5", "choices": [{"index": 0, "delta": {"content": p}}]} for p in parts]
    if usage is not None:
        chunks.append({"model": "gpt-5", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        chunks.append({"model": "gpt-5", "choices": [], "usage": usage})
    return [json.dumps(c) for c in chunks] + (["[DONE]"] if usage is not None else [])


def anthropic_events(*parts: str, delta_usage: dict | None = None, thinking: str = "") -> list[tuple[str, str]]:
    """A streamed Anthropic message: usage in message_start, output tokens (cumulative) in
    message_delta; an optional signed thinking block first. No delta_usage: cut after the text."""
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
               "usage": ANTHROPIC_START}  # fmt: skip
    events = [sse("message_start", message=message)]
    text_index = 0
    if thinking:
        text_index = 1
        events += [
            sse("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
            *(
                sse("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": t})
                for t in thinking.split("|")
            ),
            sse("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "sig-1"}),
            sse("content_block_stop", index=0),
        ]
    events.append(sse("content_block_start", index=text_index, content_block={"type": "text", "text": ""}))
    events += [sse("content_block_delta", index=text_index, delta={"type": "text_delta", "text": p}) for p in parts]
    if delta_usage is None:
        return events
    end = sse("message_delta", delta={"stop_reason": "end_turn"}, usage=delta_usage)
    return [*events, sse("content_block_stop", index=text_index), end, sse("message_stop")]


def openai_whole(text: str) -> Reply:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    return Reply(json_body={"model": "gpt-5", "choices": [choice], "usage": OPENAI_USAGE})


def anthropic_whole(text: str) -> Reply:
    usage = {**ANTHROPIC_START, "output_tokens": 20}
    content = [{"type": "text", "text": text}]
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
    return Reply(json_body={**message, "content": content, "stop_reason": "end_turn", "usage": usage})


def body_for(path: str, model: str, *, stream: bool, text: str = "Tell me a story.") -> dict:
    body = {"model": model, "messages": [{"role": "user", "content": text}], "stream": stream}
    if path == "/v1/messages":
        return body | {"max_tokens": 200}
    return body | ({"stream_options": {"include_usage": True}} if stream else {})


def tokens(row) -> tuple[int, int, int, int]:
    return row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens


# -- the shapes' streams, event by event --------------------------------------------------------


THOUGHT = [MessageStart(model="m"), ThinkingDelta(0, "Let me "), ThinkingDelta(0, "think."), ThinkingStop(0, "sig")]


def test_the_openai_shape_skips_thinking_and_relays_the_rest():
    events = [*THOUGHT, TextDelta("Hi."), MessageStop("end_turn", Usage(3, 2))]
    frames = b"".join(OpenAIShape().stream(iter(events), "m", include_usage=True)).decode()
    chunks = [json.loads(line[6:]) for line in frames.splitlines() if line.startswith("data: {")]
    assert "think" not in frames and "sig" not in frames
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Hi."
    assert chunks[-1]["usage"]["completion_tokens"] == 2 and frames.endswith("data: [DONE]\n\n")


def test_the_anthropic_shape_numbers_thinking_text_and_tool_blocks_as_anthropic_does():
    events = [*THOUGHT, TextDelta("Reading."), ToolUseStart(2, "toolu_1", "read"), ToolUseDelta(2, '{"p": 1}'),
              ToolUseStop(2), MessageStop("tool_use", Usage(3, 9))]  # fmt: skip
    frames = b"".join(AnthropicShape().stream(iter(events), "m")).decode().split("\n\n")
    seen = []
    for frame in filter(None, frames):
        data = json.loads(frame.split("data: ", 1)[1])
        what = (data.get("content_block") or data.get("delta") or {}).get("type")
        seen.append((data["type"], data.get("index"), what))
    assert seen == [
        ("message_start", None, None),
        ("content_block_start", 0, "thinking"),
        ("content_block_delta", 0, "thinking_delta"),
        ("content_block_delta", 0, "thinking_delta"),
        ("content_block_delta", 0, "signature_delta"),
        ("content_block_stop", 0, None),
        ("content_block_start", 1, "text"),
        ("content_block_delta", 1, "text_delta"),
        ("content_block_stop", 1, None),
        ("content_block_start", 2, "tool_use"),
        ("content_block_delta", 2, "input_json_delta"),
        ("content_block_stop", 2, None),
        ("message_delta", None, None),
        ("message_stop", None, None),
    ]


def test_a_streamed_reported_cost_of_zero_is_kept_as_in_a_whole_answer():
    """A free model's `usage.cost: 0` is a cost: the stream must not fall back to the list price."""
    chunks = openai_chunks("Hi", usage={"prompt_tokens": 5, "completion_tokens": 1, "cost": 0})
    request = ChatRequest(model="gpt-5", messages=(Message.text("user", "hi"),), stream=True)
    with LoopbackProvider() as upstream:
        upstream.replies.append(Reply(sse_events=chunks))
        stop = list(OpenAICompatAdapter(base_url=upstream.url).stream(request))[-1]
    assert isinstance(stop, MessageStop) and stop.reported_cost_usd == Decimal("0")


# -- through the live gateway --------------------------------------------------------------------


def live(test):
    """A test against a live daphne, on a database it can see (committed rows)."""
    return pytest.mark.live(pytest.mark.django_db(transaction=True)(test))


def auth(raw_key: str) -> dict:
    return {"Authorization": f"Bearer {raw_key}"}


@live
def test_streamed_thinking_comes_back_signed_to_the_anthropic_sdk_and_the_openai_sdk_skips_it(gateway, upstreams, key):
    _, an = upstreams
    thought = anthropic_events("Rome.", delta_usage={"output_tokens": 20}, thinking="The capital |of Italy.")
    an.replies += [Reply(sse_events=thought), Reply(sse_events=thought)]
    asked = [{"role": "user", "content": "Capital of Italy?"}]
    claude = anthropic.Anthropic(base_url=gateway, api_key=key.raw, max_retries=0)
    thinking = {"type": "enabled", "budget_tokens": 1024}
    with claude.messages.stream(model="sonnet", max_tokens=2048, thinking=thinking, messages=asked) as stream:
        final = stream.get_final_message()
    assert [block.type for block in final.content] == ["thinking", "text"]
    assert (final.content[0].thinking, final.content[0].signature) == ("The capital of Italy.", "sig-1")
    assert final.content[1].text == "Rome." and final.usage.output_tokens == 20
    assert an.requests[0]["json"]["thinking"] == thinking
    gpt = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    chunks = list(gpt.chat.completions.create(model="sonnet", messages=asked, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Rome."


@live
def test_a_streamed_call_bills_what_the_same_call_in_one_piece_bills_to_the_last_decimal(gateway, upstreams, key):
    """Each inbound shape on each kind of upstream; Anthropic's message_delta usage both as the
    output count alone and with the other counts null (message_start had them)."""
    oa, an = upstreams
    null_counts = {"input_tokens": None, "cache_read_input_tokens": None, "cache_creation_input_tokens": None}
    expected = []
    for path, delta_usage in (("/v1/chat/completions", {"output_tokens": 20}),
                              ("/v1/messages", {**null_counts, "output_tokens": 20})):  # fmt: skip
        oa.replies += [openai_whole("Once upon."), Reply(sse_events=openai_chunks("Once", " upon."))]
        story = anthropic_events("Once", " upon.", delta_usage=delta_usage)
        an.replies += [anthropic_whole("Once upon."), Reply(sse_events=story)]
        for model, billed in (("gpt-5", (OPENAI_TOKENS, OPENAI_COST)), ("sonnet", (ANTHROPIC_TOKENS, ANTHROPIC_COST))):
            for stream in (False, True):
                body = body_for(path, model, stream=stream)
                answer = httpx.post(f"{gateway}{path}", json=body, headers=auth(key.raw), timeout=30)
                assert answer.status_code == 200, answer.text
                expected.append((path, model, stream, billed))
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)).order_by("created_at"), len(expected))
    got = [(tokens(row), row.cost_usd) for row in rows]
    assert [(r.status, r.inbound_shape) for r in rows] == [("ok", "openai")] * 4 + [("ok", "anthropic")] * 4
    assert got == [billed for *_, billed in expected]
    assert got[0::2] == got[1::2]  # streamed == whole, Decimal for Decimal


def abandon(gateway: str, raw_key: str, path: str, model: str) -> None:
    """Open a stream, read its first event and hang up."""
    with httpx.stream("POST", f"{gateway}{path}", json=body_for(path, model, stream=True), headers=auth(raw_key),
                      timeout=30) as response:  # fmt: skip
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data:"):
                return


def cancelled_rows(key, count: int) -> dict:
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), count, timeout_s=DRAIN_S + 8)
    assert [r.status for r in rows] == ["cancelled"] * count, [(r.status, r.error) for r in rows]
    return {(r.inbound_shape, r.model): r for r in rows}


@live
def test_an_abandoned_stream_is_billed_with_the_usage_its_upstream_reports_after_the_client_left(
    gateway, upstreams, key
):
    oa, an = upstreams
    oa.replies.append(Reply(sse_events=paced(openai_chunks("Once", " upon", " a", " time."), GAP_S)))
    for _ in range(2):
        story = anthropic_events("Once", " upon", " a time.", delta_usage={"output_tokens": 20})
        an.replies.append(Reply(sse_events=paced(story, GAP_S)))
    abandon(gateway, key.raw, "/v1/chat/completions", "gpt-5")
    abandon(gateway, key.raw, "/v1/chat/completions", "sonnet")
    abandon(gateway, key.raw, "/v1/messages", "sonnet")
    rows = cancelled_rows(key, 3)
    assert (tokens(rows["openai", "gpt-5"]), rows["openai", "gpt-5"].cost_usd) == (OPENAI_TOKENS, OPENAI_COST)
    for shape in ("openai", "anthropic"):
        row = rows[shape, "claude-sonnet"]
        assert (tokens(row), row.cost_usd) == (ANTHROPIC_TOKENS, ANTHROPIC_COST)


@live
def test_an_abandoned_stream_whose_upstream_stalls_is_billed_by_estimate_when_the_drain_time_ends(
    gateway, upstreams, key
):
    oa, an = upstreams
    parts = ("Once upon a time, ", "there was a gateway")
    oa.replies.append(Reply(sse_events=openai_chunks(*parts, usage=None), stall_s=DRAIN_S + 3))
    an.replies.append(Reply(sse_events=anthropic_events(*parts), stall_s=DRAIN_S + 3))
    started = time.monotonic()
    abandon(gateway, key.raw, "/v1/chat/completions", "gpt-5")
    abandon(gateway, key.raw, "/v1/chat/completions", "sonnet")
    rows = cancelled_rows(key, 2)
    # Billed when the drain time ran out, not when the upstream's idle timeout (5 s) gave up.
    assert time.monotonic() - started < DRAIN_S + 1.5
    prompt = ChatRequest(model="m", messages=(Message.text("user", "Tell me a story."),)).prompt_tokens_estimate()
    output = (len("".join(parts)) + 3) // 4  # four characters a token, as core.tokens estimates
    gpt, claude = rows["openai", "gpt-5"], rows["openai", "claude-sonnet"]
    assert tokens(gpt) == tokens(claude) == (prompt, output, 0, 0) and output > 0
    assert gpt.cost_usd == (prompt * Decimal("1.25") + output * 10) / 1_000_000
    assert claude.cost_usd == Decimal(prompt * 3 + output * 15) / 1_000_000


# -- budgets and rate limits on every endpoint ---------------------------------------------------

# Every endpoint that makes a model call, with a body that would make one: a new one joins here.
ENDPOINTS = [
    ("/v1/chat/completions", {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}),
    ("/v1/responses", {"model": "gpt-5", "input": "hi"}),
    ("/v1/messages", {"model": "gpt-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}),
    ("/v1/embeddings", {"model": "text-embedding-3-small", "input": "a sentence to embed"}),
]


def refusal(gateway: str, raw_key: str, path: str, body: dict) -> tuple[int, str]:
    """POST `body` to `path` as this key: the status and the error message it got."""
    answer = httpx.post(f"{gateway}{path}", json=body, headers=auth(raw_key), timeout=30)
    return answer.status_code, answer.json()["error"]["message"]


@live
def test_every_endpoint_refuses_a_key_whose_budget_is_spent_or_whose_rate_limit_is_reached(gateway, upstreams):
    embedder = "text-embedding-3-small"
    openai_provider = Provider.objects.get(name="openai")
    ChatModel.objects.create(
        name=embedder, provider=openai_provider, api_model=embedder, supports_tools=False, params={"embeddings": True}
    )
    version = PriceVersion.objects.order_by("-effective_from").first()
    price = {"input_per_mtok": Decimal("0.02"), "output_per_mtok": Decimal("0")}
    ModelPrice.objects.create(version=version, provider_kind="openai", api_model=embedder, **price)
    user = get_user_model().objects.create_user(username="ops", password="pw-ops-123456789")
    spent = keys.issue(name="spent", user=user, budget_usd=Decimal("1"))
    gpt = {"model": "gpt-5", "provider": "openai", "provider_kind": "openai", "api_model": "gpt-5"}
    LedgerEntry.objects.create(
        **gpt, created_at=now(), status="ok", cost_usd=Decimal("1"), key_id=str(spent.key.id), role="gateway"
    )
    limited = keys.issue(name="limited", user=user, tpm=1)
    for path, body in ENDPOINTS:
        status, message = refusal(gateway, spent.raw, path, body)
        assert status in (402, 429) and "budget exceeded" in message, (path, status, message)
        status, message = refusal(gateway, limited.raw, path, body)
        assert status == 429 and "rate limit" in message, (path, status, message)
    assert not upstreams[0].requests and not upstreams[1].requests
    refused = LedgerEntry.objects.filter(status="refused")
    assert refused.filter(key_id=str(spent.key.id)).count() == refused.filter(key_id=str(limited.key.id)).count()
    assert refused.count() == 2 * len(ENDPOINTS)
