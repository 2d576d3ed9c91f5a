"""Routing by key policy: a `pinned` key gets the model its request names or an error; a `chain`
key lets routing.yaml choose (its rules for role `gateway`, the key's workspace default, the
global default) when the request says `auto` or its model cannot serve."""

import openai
import pytest
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry
from gateway import keys
from gateway.tests.conftest import settled
from gateway.tests.test_sdks import anthropic_reply, openai_reply
from routing.providers.base import ProviderError

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

POLICY = """
global_default: gpt-5
workspaces:
  - name: research
    default: claude-sonnet
rules:
  - name: gateway-refactors
    when: {role: gateway, text_matches: "refactor"}
    model: claude-haiku
"""


@pytest.fixture
def gateway_env(tmp_path):
    path = tmp_path / "routing.yaml"
    path.write_text(POLICY)
    return {"METNOS_ROUTING_FILE": str(path)}


@pytest.fixture
def owner():
    return get_user_model().objects.create_user(username="router", password="pw-router-123456789")


def ask(gateway, raw, model, text):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=raw, max_retries=0)
    return client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}])


def test_a_chain_key_is_routed_by_rules_then_its_workspace_default_then_the_global_default(gateway, upstreams, owner):
    oa, an = upstreams
    research = keys.issue(name="research", user=owner, routing="chain", workspace="research").raw
    plain = keys.issue(name="plain", user=owner, routing="chain").raw
    an.replies += [anthropic_reply("by the rule"), anthropic_reply("by the workspace")]
    oa.replies += [openai_reply("by the global default"), openai_reply("as named")]

    assert ask(gateway, research, "auto", "please refactor this").choices[0].message.content == "by the rule"
    assert an.requests[0]["json"]["model"].startswith("claude-haiku")
    answer = ask(gateway, research, "auto", "summarise this")
    assert answer.choices[0].message.content == "by the workspace" and answer.model == "claude-sonnet"
    assert ask(gateway, plain, "auto", "summarise this").choices[0].message.content == "by the global default"
    # A model the request names is slot 1 and wins over the rule.
    assert ask(gateway, research, "gpt-5", "please refactor").choices[0].message.content == "as named"

    rows = settled(LedgerEntry.objects.order_by("created_at"), 4)
    assert [(r.model, r.slot) for r in rows] == [
        ("claude-haiku", "rule"),
        ("claude-sonnet", "workspace_default"),
        ("gpt-5", "global_default"),
        ("gpt-5", "per_message_override"),
    ]


def test_a_chain_key_falls_through_when_the_named_model_cannot_serve_and_a_pinned_key_does_not(
    gateway, upstreams, gateway_availability, owner
):
    oa, an = upstreams
    chain = keys.issue(name="chain", user=owner, routing="chain", workspace="research").raw
    pinned = keys.issue(name="pinned", user=owner).raw
    gateway_availability.record_failure("gpt-5", "openai", ProviderError("auth", "bad key", provider="openai"))
    an.replies.append(anthropic_reply("served by the workspace default"))

    answer = ask(gateway, chain, "gpt-5", "hello")
    assert answer.choices[0].message.content == "served by the workspace default"
    with pytest.raises(openai.InternalServerError, match="unavailable"):
        ask(gateway, pinned, "gpt-5", "hello")
    with pytest.raises(openai.BadRequestError, match="routing is `chain`"):
        ask(gateway, pinned, "auto", "hello")
    assert oa.requests == []


def test_a_chain_key_keeps_to_its_allowed_models(gateway, upstreams, owner):
    oa, _ = upstreams
    raw = keys.issue(name="narrow", user=owner, routing="chain", workspace="research", allowed_models=["gpt-5"]).raw
    with pytest.raises(openai.BadRequestError, match="routing chose 'claude-sonnet'"):
        ask(gateway, raw, "auto", "hello")
    with pytest.raises(openai.NotFoundError, match="may not use model"):
        ask(gateway, raw, "claude-haiku", "hello")
    oa.replies.append(openai_reply("allowed"))
    assert ask(gateway, raw, "gpt-5", "hello").choices[0].message.content == "allowed"
