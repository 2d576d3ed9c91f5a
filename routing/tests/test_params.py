"""Per-model parameter rules: the payload a provider receives follows the model's rules (seeded for
the default rows, edited in the database), asserted on what a loopback upstream speaking the
provider's wire format received."""

import importlib
import json
import logging

import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured, ValidationError

from core.ir import ChatRequest, Message
from planner import llm
from routing.models import ChatModel, Provider
from routing.params import InvalidRules, parse
from routing.registry import adapter_for, current
from tests.loopback import LoopbackProvider, Reply

pytestmark = pytest.mark.django_db

OPENAI_REPLY = {
    "model": "gpt-5",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 1},
}
ANTHROPIC_REPLY = {
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 12, "output_tokens": 1},
}


def chunk(delta: dict, finish=None) -> str:
    return json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


@pytest.fixture
def upstream():
    with LoopbackProvider() as server:
        yield server


def point(provider_name: str, url: str, monkeypatch, key_env: str = "") -> None:
    if key_env:
        monkeypatch.setenv(key_env, "sk-test")
    provider = Provider.objects.get(name=provider_name)
    provider.base_url = url
    provider.save()  # bumps the registry version, as an admin edit does


def ask(model_name: str, **kw) -> ChatRequest:
    model = current().resolve(model_name)
    return ChatRequest(model=model.api_model, messages=(Message.text("user", "hi"),), **kw)


def test_a_gpt5_call_carries_max_completion_tokens_and_no_temperature(upstream, monkeypatch, caplog):
    point("openai", upstream.url, monkeypatch, "OPENAI_API_KEY")
    upstream.replies.append(Reply(json_body=OPENAI_REPLY))
    with caplog.at_level(logging.INFO, logger="routing.params"):
        adapter_for(current().resolve("gpt-5")).complete(ask("gpt-5", max_tokens=300, temperature=0.2))
    sent = upstream.requests[0]["json"]
    assert sent["max_completion_tokens"] == 300
    assert "max_tokens" not in sent and "temperature" not in sent
    assert "dropped temperature from the call to gpt-5" in caplog.text


def test_a_streamed_chat_turn_call_to_gpt5_mini_follows_the_same_rules(upstream, monkeypatch):
    """The planner's metered call (what a chat turn makes) goes through the same adapter."""
    point("openai", upstream.url, monkeypatch, "OPENAI_API_KEY")
    upstream.replies.append(
        Reply(sse_events=[chunk({"role": "assistant", "content": "ok"}), chunk({}, finish="stop"), "[DONE]"])
    )
    model = current().resolve("gpt-mini")
    deltas: list[str] = []
    result = llm.call(
        ask("gpt-mini", max_tokens=50, temperature=0.0), model, role="planner", ids={}, user_id=None,
        on_delta=deltas.append,
    )  # fmt: skip
    assert result.ok and deltas == ["ok"]
    sent = upstream.requests[0]["json"]
    assert (sent["model"], sent["max_completion_tokens"], sent["stream"]) == ("gpt-5-mini", 50, True)
    assert "max_tokens" not in sent and "temperature" not in sent


def test_an_anthropic_call_clamps_temperature_into_its_range(upstream, monkeypatch):
    point("anthropic", upstream.url, monkeypatch, "ANTHROPIC_API_KEY")
    upstream.replies.append(Reply(json_body=ANTHROPIC_REPLY))
    adapter_for(current().resolve("sonnet")).complete(ask("sonnet", max_tokens=100, temperature=1.7))
    sent = upstream.requests[0]["json"]
    assert (sent["temperature"], sent["max_tokens"]) == (1, 100)


def test_a_local_row_still_sends_max_tokens_and_its_temperature(upstream, monkeypatch):
    point("local", upstream.url, monkeypatch)
    upstream.replies.append(Reply(json_body=OPENAI_REPLY))
    adapter_for(current().resolve("local-fast")).complete(ask("local-fast", max_tokens=256, temperature=0.2))
    sent = upstream.requests[0]["json"]
    assert (sent["max_tokens"], sent["temperature"]) == (256, 0.2)
    assert "max_completion_tokens" not in sent


def test_rules_edited_in_the_database_change_the_next_call(upstream, monkeypatch):
    point("openai", upstream.url, monkeypatch, "OPENAI_API_KEY")
    upstream.replies += [Reply(json_body=OPENAI_REPLY), Reply(json_body=OPENAI_REPLY)]
    adapter_for(current().resolve("gpt-5")).complete(ask("gpt-5", max_tokens=10, temperature=0.5))
    row = ChatModel.objects.get(name="gpt-5")
    row.params = {**row.params, "rules": {"clamp": {"temperature": [0, 0.3]}, "default": {"reasoning_effort": "low"}}}
    row.full_clean()
    row.save()
    adapter_for(current().resolve("gpt-5")).complete(ask("gpt-5", max_tokens=10, temperature=0.5))
    before, after = (r["json"] for r in upstream.requests)
    assert "max_completion_tokens" in before and "temperature" not in before
    assert (after["max_tokens"], after["temperature"], after["reasoning_effort"]) == (10, 0.3, "low")


def test_it_refuses_rules_it_cannot_apply_in_the_admin_and_at_load():
    row = ChatModel.objects.get(name="gpt-5")
    row.params = {"rules": {"rename": {"max_tokens": "max_completion_tokens"}, "remove": ["temperature"]}}
    with pytest.raises(ValidationError, match="unknown rule remove"):
        row.full_clean()
    ChatModel.objects.filter(name="gpt-5").update(params={"rules": {"clamp": {"temperature": [1, 0]}}})
    ChatModel.objects.get(name="local-fast").save()  # any save reloads the registry
    with pytest.raises(ImproperlyConfigured, match=r"model gpt-5: params.rules: clamp.temperature"):
        current()


def test_the_rules_run_in_their_documented_order_and_leave_other_fields_alone():
    rules = parse(
        {
            "drop": ["logit_bias"],
            "clamp": {"temperature": [0, 1]},
            "exclusive": [["temperature", "top_p"]],
            "rename": {"max_tokens": "max_completion_tokens"},
            "default": {"max_completion_tokens": 99, "reasoning_effort": "low"},
        }
    )
    payload = {"model": "m", "max_tokens": 10, "temperature": 2.0, "top_p": 0.5, "logit_bias": {}, "stream": False}
    assert rules.apply(payload, model="m") == {
        "model": "m",
        "max_completion_tokens": 10,
        "temperature": 1,
        "reasoning_effort": "low",
        "stream": False,
    }
    assert payload["max_tokens"] == 10  # the caller's payload is not changed
    assert parse(None).apply(payload, model="m") is payload
    with pytest.raises(InvalidRules, match="drop must be a list"):
        parse({"drop": "temperature"})


def test_the_migration_gives_existing_rows_their_rules_and_keeps_an_operators_own():
    migration = importlib.import_module("routing.migrations.0007_provider_timeouts_and_param_rules")
    ChatModel.objects.filter(name__in=["gpt-5", "claude-haiku", "local-fast"]).update(params={})
    ChatModel.objects.filter(name="gpt-5-mini").update(params={"rules": {"drop": ["temperature"]}})
    migration.seed_rules(apps, None)
    params = dict(ChatModel.objects.values_list("name", "params"))
    assert params["gpt-5"]["rules"]["rename"] == {"max_tokens": "max_completion_tokens"}
    assert params["claude-haiku"]["rules"]["clamp"] == {"temperature": [0, 1]}
    assert params["gpt-5-mini"] == {"rules": {"drop": ["temperature"]}}
    assert params["local-fast"] == {}
