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
        return _routed(asked, canonical, key, prompt_tokens)
    return _pinned(asked, key, prompt_tokens), "per_message"


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
        has_images=any(isinstance(b, ImageBlock) for m in canonical.messages for b in m.blocks),
        has_tools=bool(canonical.tools),
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
