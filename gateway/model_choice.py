"""Which model serves a gateway request: a `pinned` key gets the model its request names, or an
error that says why not; a `chain` key's request goes through the routing chain, its model as
slot 1 (the per-message override)."""

from __future__ import annotations

from core.ir import ChatRequest, ImageBlock
from gateway import failures
from gateway.failures import Failure
from gateway.models import GatewayKey
from routing import policy as policies
from routing.availability import availability
from routing.chain import NoRoute, RouteInputs, decide
from routing.fingerprint import TurnNeeds
from routing.registry import ModelConfig, UnknownModel, current

AUTO = frozenset({"auto", "metnos/auto"})  # a `chain` key's request that leaves the choice to routing


def choose(asked: str, canonical: ChatRequest, key: GatewayKey, prompt_tokens: int) -> tuple[ModelConfig, str]:
    """The model and the chain slot that chose it."""
    if key.routing == GatewayKey.Routing.CHAIN:
        model, slot = _routed(asked, canonical, key, prompt_tokens)
    else:
        model, slot = _pinned(asked, key, prompt_tokens), "per_message"
    _check_fit(canonical, model)
    return model, slot


def has_images(canonical: ChatRequest) -> bool:
    return any(isinstance(b, ImageBlock) for m in canonical.messages for b in m.blocks)


def needs_structured_output(canonical: ChatRequest) -> bool:
    return (canonical.response_format or {}).get("type", "text") != "text"


def _check_fit(canonical: ChatRequest, model: ModelConfig) -> None:
    """A 400 for what the model cannot honour where dropping it would change the answer: images
    it cannot see, a tool it cannot be forced to call, a JSON shape it cannot keep to. What
    changes only how it gets there (thinking, sampling extras) is dropped by the adapter."""
    if has_images(canonical) and not model.supports_vision:
        raise Failure(400, f"model {model.name!r} cannot see images; send text only or name a model with vision",
                      param="messages")  # fmt: skip
    if canonical.tool_choice not in (None, "auto", "none") and not model.supports_tools:
        raise Failure(400, f"model {model.name!r} has no tool calling, so tool_choice cannot force a tool",
                      param="tool_choice")  # fmt: skip
    if needs_structured_output(canonical) and not model.supports_structured_output:
        kind = canonical.response_format.get("type")
        raise Failure(400, f"model {model.name!r} has no structured output, so response_format {kind!r} "
                      "cannot be honoured; name a model that has it", param="response_format")  # fmt: skip


def _known(asked: str) -> ModelConfig:
    registry = current()
    model = registry.get(asked) or next((m for m in registry.all() if m.api_model == asked), None)
    if model is None:
        try:
            model = registry.resolve(asked)
        except UnknownModel as exc:
            raise Failure(
                404, f"{exc}. GET /v1/models lists the models you can use", reason=failures.MODEL_NOT_FOUND
            ) from exc
    return model


def visible(asked: str, key: GatewayKey) -> ModelConfig:
    """The model GET /v1/models/{id} describes: one that GET /v1/models lists for this key."""
    model = _known(asked)
    if not model.enabled:
        raise Failure(404, f"model {asked!r} is disabled", reason=failures.MODEL_NOT_FOUND)
    _check_allowed(key, asked, model)
    return model


def _check_allowed(key: GatewayKey, asked: str, model: ModelConfig) -> None:
    if key.allowed_models and asked not in key.allowed_models and model.name not in key.allowed_models:
        # As the real APIs do, a model the key may not use is one it cannot see (GET /v1/models).
        raise Failure(
            404,
            f"this key may not use model {asked!r}; it may use: {', '.join(key.allowed_models)}",
            reason=failures.MODEL_NOT_FOUND,
        )


def _pinned(asked: str, key: GatewayKey, prompt_tokens: int) -> ModelConfig:
    if asked in AUTO:
        raise Failure(400, f"model {asked!r} needs a key whose routing is `chain`; name a model instead")
    model = _known(asked)
    _check_allowed(key, asked, model)
    if not model.configured:
        raise Failure(503, f"model {asked!r} cannot serve: {model.api_key_env or 'its provider'} is not configured")
    reason = availability.unavailable_reason(model.name, model.provider)
    if reason:
        raise Failure(
            503, f"model {asked!r} is unavailable right now ({reason}); try again shortly", reason=failures.OVERLOADED
        )
    if prompt_tokens > model.context_window:
        raise Failure(
            400,
            f"the prompt (~{prompt_tokens} tokens) is longer than {asked}'s context window ({model.context_window})",
            reason=failures.CONTEXT_LENGTH,
            param="messages",
        )
    return model


def _routed(asked: str, canonical: ChatRequest, key: GatewayKey, prompt_tokens: int) -> tuple[ModelConfig, str]:
    """The request's model is slot 1 of the routing chain (`auto` leaves it empty); when it cannot
    serve, routing.yaml's rules (role `gateway`, the key's workspace), the key's workspace default
    and the global default follow."""
    named = None
    if asked not in AUTO:
        named = _known(asked)
        _check_allowed(key, asked, named)
    last_user = next((m.text_content for m in reversed(canonical.messages) if m.role == "user"), "")
    needs = TurnNeeds(
        has_images=has_images(canonical),
        has_tools=bool(canonical.tools),
        needs_structured_output=needs_structured_output(canonical),
        has_system_prompt=bool(canonical.system.joined),
        estimated_tokens=prompt_tokens,
        role="gateway",
        text=last_user,
        workspace=key.workspace,
    )
    inputs = RouteInputs(per_message=named.name if named else None, policy=policies.in_force(), use_patterns=False)
    try:
        decision = decide(needs, inputs)
    except NoRoute as exc:
        raise Failure(503, str(exc)) from exc
    if key.allowed_models and decision.model.name not in key.allowed_models:
        raise Failure(400, f"routing chose {decision.model.name!r} ({decision.slot}), which this key may not use")
    return decision.model, decision.slot
