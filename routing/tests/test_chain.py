"""The 7-slot chain over the real registry (seeded defaults), Redis availability and pgvector patterns."""

import pytest

from core.events import ALL, bus
from routing import patterns
from routing.availability import availability
from routing.chain import SLOTS, NoRoute, RouteInputs, decide
from routing.fingerprint import TurnNeeds, fingerprint
from routing.policy import parse
from routing.providers.base import ProviderError

pytestmark = pytest.mark.django_db


@pytest.fixture
def events():
    seen = []

    def record(event):
        seen.append(event)

    bus.subscribe(ALL, record)
    yield seen
    bus.unsubscribe(ALL, record)


@pytest.fixture
def cloud(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def verdicts(decision):
    return {v.slot: (v.verdict, v.model, v.reason) for v in decision.verdicts}


def test_with_nothing_else_the_global_default_serves_and_all_seven_verdicts_are_recorded(events):
    decision = decide(TurnNeeds(text="hi"), RouteInputs(), turn_id="00000000-0000-0000-0000-000000000001")
    assert decision.model.name == "local-fast" and decision.slot == "global_default"
    assert [v.slot for v in decision.verdicts] == list(SLOTS)
    assert [v.verdict for v in decision.verdicts] == ["not_applicable"] * 6 + ["chose"]
    decided = [e for e in events if e.type == "route.decided"]
    assert len(decided) == 1
    assert decided[0].payload["winner"] == "local-fast" and len(decided[0].payload["chain"]) == 7
    assert decided[0].payload["elapsed_ms"] >= 0


def test_the_slots_win_in_order_and_later_ones_are_not_consulted(cloud):
    policy = parse(
        "rules: [{when: {text_matches: refactor}, model: gpt}]\nworkspaces: [{name: w, default: local-wise}]"
    )
    needs = TurnNeeds(text="refactor this", workspace="w")
    full = RouteInputs(per_message="haiku", sticky="sonnet", policy=policy)
    assert decide(needs, full).model.name == "claude-haiku"
    assert decide(needs, RouteInputs(sticky="sonnet", policy=policy)).model.name == "claude-sonnet"
    by_rule = decide(needs, RouteInputs(policy=policy))
    assert (by_rule.model.name, by_rule.slot) == ("gpt-5", "rule")
    assert verdicts(by_rule)["pattern"][0] == "not_applicable"
    assert decide(TurnNeeds(text="hello", workspace="w"), RouteInputs(policy=policy)).model.name == "local-wise"


def test_a_cloud_model_without_its_key_is_rejected_as_not_configured(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    decision = decide(TurnNeeds(text="hi"), RouteInputs(per_message="opus"))
    verdict = decision.verdicts[0]
    assert (verdict.verdict, verdict.reason) == ("rejected", "not_configured")
    assert "ANTHROPIC_API_KEY is not set" in verdict.detail
    assert decision.model.name == "local-fast", "the chain falls through to the next slot that can serve"


def test_an_unknown_alias_names_the_close_matches():
    decision = decide(TurnNeeds(text="hi"), RouteInputs(per_message="sonet"))
    verdict = decision.verdicts[0]
    assert verdict.reason == "not_configured"
    assert "did you mean sonnet" in verdict.detail


@pytest.mark.parametrize(
    ("needs", "model", "reason"),
    [
        (TurnNeeds(has_images=True), "local-fast", "no_vision_support"),
        (TurnNeeds(estimated_tokens=5000), "local-fast", "exceeds_context_window"),
        (TurnNeeds(needs_structured_output=True), "sonnet", "no_structured_output_support"),
    ],
)
def test_the_validation_gate_rejects_a_model_that_cannot_serve_the_turn(cloud, needs, model, reason):
    decision = decide(needs, RouteInputs(per_message=model, policy=parse("global_default: gpt")))
    assert decision.verdicts[0].reason == reason
    assert decision.model.name == "gpt-5"


def test_an_unavailable_provider_is_skipped_until_it_recovers(cloud):
    availability.record_failure("claude-sonnet", "anthropic", ProviderError("auth", "bad key"))
    decision = decide(TurnNeeds(text="hi"), RouteInputs(sticky="sonnet"))
    assert verdicts(decision)["manual_sticky"][2] == "provider_unavailable"
    assert decision.model.name == "local-fast"
    availability.record_success("claude-sonnet", "anthropic")
    assert decide(TurnNeeds(text="hi"), RouteInputs(sticky="sonnet")).model.name == "claude-sonnet"


def test_when_no_slot_can_serve_the_error_lists_why_and_the_decision_is_still_recorded(events):
    needs = TurnNeeds(has_images=True)
    with pytest.raises(NoRoute) as err:
        decide(needs, RouteInputs(per_message="local-wise"))
    message = str(err.value)
    assert "per_message_override: no_vision_support" in message
    assert "global_default: no_vision_support" in message
    decided = [e for e in events if e.type == "route.decided"]
    assert len(decided) == 1 and decided[0].payload["winner"] is None


def _learn(needs, model, score_kind, n, cost="0"):
    for _ in range(n):
        patterns.record(
            fingerprint=fingerprint(needs), model=model, cost_usd=cost, latency_ms=100, final_kind=score_kind
        )


def test_the_pattern_slot_recommends_what_worked_for_similar_turns(events):
    needs = TurnNeeds(text="summarize notes/a.md", estimated_tokens=300)
    _learn(needs, "local-fast", "error", 6)
    _learn(needs, "local-wise", "answer", 6)
    decision = decide(needs, RouteInputs())
    assert (decision.slot, decision.model.name) == ("pattern", "local-wise")
    assert decision.pattern_confidence >= 0.5
    assert [e.type for e in events].count("pattern.matched") == 1


def test_the_pattern_slot_never_overrides_the_user_or_the_rules():
    needs = TurnNeeds(text="summarize notes/a.md", estimated_tokens=300)
    _learn(needs, "local-wise", "answer", 8)
    assert decide(needs, RouteInputs(sticky="local-middle")).model.name == "local-middle"
    ruled = parse("rules: [{when: {has_tools: false}, model: local-middle}]")
    assert decide(needs, RouteInputs(policy=ruled)).slot == "rule"


def test_patterns_below_the_confidence_bar_do_not_win():
    needs = TurnNeeds(text="translate this", estimated_tokens=50)
    _learn(needs, "local-wise", "answer", 1)  # one sample: 1.0 * 1/(1+3) = 0.25 < 0.5
    assert decide(needs, RouteInputs()).slot == "global_default"
