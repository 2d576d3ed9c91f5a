import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client

from routing.fingerprint import TurnNeeds
from routing.models import ChatModel
from routing.policy import PolicyError, parse
from routing.registry import UnknownModel, current

pytestmark = pytest.mark.django_db


def test_the_defaults_cover_anthropic_aliases_a_gpt_pair_and_the_local_tiers():
    registry = current()
    assert registry.resolve("opus").name == registry.resolve("deep").name == "claude-opus"
    assert registry.resolve("balanced").name == "claude-sonnet"
    assert registry.resolve("fast").name == "claude-haiku"
    assert {"gpt-5", "gpt-5-mini"} <= set(registry.models)
    tiers = {registry.resolve(n).tier: registry.resolve(n).params for n in ("local-fast", "local-middle", "local-wise")}
    assert tiers["fast"]["reasoning"] is False and tiers["wise"]["reasoning"] is True
    assert tiers["fast"]["max_tokens"] < tiers["middle"]["max_tokens"] < tiers["wise"]["max_tokens"]


def test_a_cloud_model_is_configured_only_when_its_key_is_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert not current().resolve("gpt-5").configured
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert current().resolve("gpt-5").configured
    assert current().resolve("local-fast").configured


def test_an_unknown_name_says_what_was_meant():
    with pytest.raises(UnknownModel, match="did you mean haiku"):
        current().resolve("haiku3")


def test_an_edit_is_seen_by_the_registry_and_max_tokens_is_capped_at_the_real_maximum():
    ChatModel.objects.filter(name="local-wise").update(max_output_tokens=300)
    ChatModel.objects.get(name="local-wise").save()  # a save (as the admin does) invalidates the snapshot
    wise = current().resolve("local-wise")
    assert wise.max_output_tokens == 300
    assert wise.output_budget() == 300 and wise.output_budget(128_000) == 300


def test_an_alias_can_belong_to_one_model_only():
    model = ChatModel.objects.get(name="local-middle")
    model.aliases = ["sonnet"]
    with pytest.raises(ValidationError, match="claude-sonnet"):
        model.full_clean()


def test_api_models_lists_models_with_aliases_and_availability(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = Client()
    client.force_login(get_user_model().objects.create_user(username="u", password="pw-u-12345678"))
    body = {m["name"]: m for m in client.get("/api/models").json()}
    assert body["claude-sonnet"]["aliases"] == ["sonnet", "balanced"]
    assert (
        body["claude-sonnet"]["available"] is False and body["claude-sonnet"]["unavailable_reason"] == "not configured"
    )
    assert body["local-fast"]["available"] is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules: [{when: {has_images: yes please}, model: x}]", "has_images must be true or false"),
        ("rules: [{when: {mood: happy}, model: x}]", "unknown predicates ['mood']"),
        ("rules: [{when: {estimated_tokens: {about: 3}}, model: x}]", "gt / gte / lt / lte"),
        ("rules: [{when: {text_matches: '('}, model: x}]", "not a valid regex"),
        ("rules: [{model: x}]", "needs `model` and a `when` mapping"),
        ("workspaces: [{name: a}]", "needs `name` and `default`"),
        ("oops: 1", "unknown keys"),
        ("a: [", "not valid YAML"),
    ],
)
def test_a_bad_routing_file_gets_a_clear_error(text, message):
    with pytest.raises(PolicyError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse(text)


def test_rule_predicates_combine_with_and():
    policy = parse(
        "rules: [{name: big, when: {estimated_tokens: {gte: 100, lt: 1000}, role: [planner], workspace: w}, model: x}]"
    )
    assert policy.first_rule(TurnNeeds(estimated_tokens=500, workspace="w")).name == "big"
    assert policy.first_rule(TurnNeeds(estimated_tokens=5000, workspace="w")) is None
    assert policy.first_rule(TurnNeeds(estimated_tokens=500, workspace="other")) is None
    assert policy.first_rule(TurnNeeds(estimated_tokens=500, workspace="w", role="worker")) is None
