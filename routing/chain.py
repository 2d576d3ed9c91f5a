"""The 7-slot routing chain. The first slot that names a model which passes the validation
gate wins; every slot gets a verdict (not_applicable, chose, rejected + reason) and each
decision emits exactly one `route.decided`, also when no slot can serve."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings

from core.events import bus
from routing import policy as policies
from routing.availability import availability
from routing.fingerprint import TurnNeeds, fingerprint
from routing.patterns import recommend
from routing.registry import ModelConfig, Registry, current

SLOTS = (
    "per_message_override",
    "manual_sticky",
    "rule",
    "pattern",
    "delegate_request",
    "workspace_default",
    "global_default",
)
REJECTIONS = (
    "not_configured",
    "provider_unavailable",
    "no_vision_support",
    "exceeds_context_window",
    "no_tool_support",
    "no_system_prompt_support",
    "no_structured_output_support",
)


@dataclass(frozen=True)
class SlotVerdict:
    slot: str
    verdict: str  # not_applicable | chose | rejected
    model: str | None = None
    reason: str | None = None  # one of REJECTIONS when rejected
    detail: str = ""

    def as_dict(self) -> dict:
        # By hand: dataclasses.asdict deep-copies and costs more than the rest of a decision.
        return {
            "slot": self.slot,
            "verdict": self.verdict,
            "model": self.model,
            "reason": self.reason,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class RouteInputs:
    per_message: str | None = None
    sticky: str | None = None
    policy: policies.Policy = policies.EMPTY
    delegate: str | None = None
    use_patterns: bool = True


@dataclass(frozen=True)
class RouteDecision:
    model: ModelConfig
    slot: str
    verdicts: tuple[SlotVerdict, ...]
    elapsed_ms: float
    pattern_confidence: float | None = None
    fingerprint: list[float] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        return {
            "winner": self.model.name,
            "slot": self.slot,
            "provider": self.model.provider,
            "elapsed_ms": self.elapsed_ms,
            "chain": [v.as_dict() for v in self.verdicts],
        }


class NoRoute(Exception):
    """No slot named a usable model. The message lists why each slot failed."""

    def __init__(self, verdicts: tuple[SlotVerdict, ...]):
        self.verdicts = verdicts
        lines = [
            f"{v.slot}: {v.reason}{f' ({v.detail})' if v.detail else ''}"
            if v.verdict == "rejected"
            else f"{v.slot}: nothing configured"
            for v in verdicts
        ]
        super().__init__("no model can serve this turn — " + "; ".join(lines))


def validate(model: ModelConfig | None, needs: TurnNeeds, unavailable: dict[str, str]) -> tuple[str, str] | None:
    """The validation gate: None when the model can serve the turn, else (reason, detail)."""
    if model is None:
        return "not_configured", "unknown model"
    if not model.configured:
        why = "disabled" if not model.enabled else f"{model.api_key_env} is not set"
        return "not_configured", why
    if model.name in unavailable:
        return "provider_unavailable", unavailable[model.name]
    if needs.has_images and not model.supports_vision:
        return "no_vision_support", ""
    if needs.estimated_tokens > model.context_window:
        return "exceeds_context_window", f"~{needs.estimated_tokens} tokens > {model.context_window}"
    if needs.has_tools and not model.supports_tools:
        return "no_tool_support", ""
    if needs.has_system_prompt and not model.supports_system_prompt:
        return "no_system_prompt_support", ""
    if needs.needs_structured_output and not model.supports_structured_output:
        return "no_structured_output_support", ""
    return None


def decide(
    needs: TurnNeeds,
    inputs: RouteInputs,
    *,
    registry: Registry | None = None,
    session_id: str | None = None,
    turn_id: str | None = None,
) -> RouteDecision:
    started = time.perf_counter()
    registry = registry or current()
    pol = inputs.policy
    rule = pol.first_rule(needs)
    named = {
        "per_message_override": inputs.per_message,
        "manual_sticky": inputs.sticky,
        "rule": rule.model if rule else None,
        "delegate_request": inputs.delegate,
        "workspace_default": pol.workspace_defaults.get(needs.workspace),
        "global_default": pol.global_default or settings.METNOS_DEFAULT_MODEL,
    }
    # One round trip for every usable model (slot 4's pick is only known later); a model that
    # is not configured is rejected before availability matters.
    unavailable = availability.unavailable_reasons([(m.name, m.provider) for m in registry.all() if m.configured])

    verdicts: list[SlotVerdict] = []
    winner: tuple[str, ModelConfig] | None = None
    confidence = None
    fp: list[float] = []
    for slot in SLOTS:
        if winner is not None:
            verdicts.append(SlotVerdict(slot, "not_applicable", detail="not consulted"))
            continue
        if slot == "pattern":
            name, confidence, fp = _pattern_choice(needs, inputs)
        else:
            name = named[slot]
        model = registry.get(name) if name else None
        if not name:
            verdicts.append(SlotVerdict(slot, "not_applicable"))
            continue
        rejection = validate(model, needs, unavailable)
        if rejection is None:
            detail = (
                f"rule {rule.name}" if slot == "rule" else (f"confidence {confidence}" if slot == "pattern" else "")
            )
            verdicts.append(SlotVerdict(slot, "chose", model.name, detail=detail))
            winner = (slot, model)
        else:
            reason, detail = rejection
            if model is None:
                detail = _unknown_detail(registry, name)
            verdicts.append(SlotVerdict(slot, "rejected", model.name if model else name, reason, detail))

    elapsed = round((time.perf_counter() - started) * 1000, 3)
    ids = {"session_id": session_id, "turn_id": turn_id}
    if winner is None:
        chain = [v.as_dict() for v in verdicts]
        bus.emit("route.decided", {"winner": None, "slot": None, "elapsed_ms": elapsed, "chain": chain}, **ids)
        raise NoRoute(tuple(verdicts))
    slot, model = winner
    decision = RouteDecision(model, slot, tuple(verdicts), elapsed, confidence, fp)
    if slot == "pattern":
        bus.emit("pattern.matched", {"model": model.name, "confidence": confidence}, **ids)
    bus.emit("route.decided", decision.to_dict(), **ids)
    return decision


def _pattern_choice(needs: TurnNeeds, inputs: RouteInputs):
    if not inputs.use_patterns:
        return None, None, []
    fp = fingerprint(needs)
    recommendation = recommend(fp)
    if recommendation is None:
        return None, None, fp
    return recommendation.model, recommendation.confidence, fp


def _unknown_detail(registry: Registry, name: str) -> str:
    try:
        registry.resolve(name)
    except LookupError as exc:
        return str(exc)
    return ""
