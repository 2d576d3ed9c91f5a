"""One call through the gateway, on a gateway thread: prepare it (key, body, model choice,
admission), then make it through billing's metering, answered in one piece or streamed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from django.http import HttpResponse, JsonResponse

from billing import gate, metering
from core.clock import monotonic_ms, now
from core.ir import ChatRequest
from gateway import failures, headers, inbound, model_choice, settlement, streaming
from gateway.failures import Failure, provider_failure
from gateway.models import GatewayKey
from gateway.shapes import SHAPES
from gateway.threads import release_db
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for

Bind = Callable[[GatewayKey, ChatRequest], tuple[ChatRequest, object]]


@dataclass(frozen=True)
class Prepared:
    shape: object
    asked: str  # the model the answer names
    model: ModelConfig
    canonical: ChatRequest
    admitted: metering.Admitted


def handle(request, shape_name: str, bind: Bind | None = None) -> HttpResponse:
    """Prepare (the body is parsed once, here), then answer in one piece or open the stream the
    body asked for. `bind`, for a shape that keeps state (the Responses API), completes the
    canonical request with it and gives the renderer of this one call."""
    started = monotonic_ms()
    try:
        prepared = _prepare(request, shape_name, started, bind)
    finally:
        release_db()
    if prepared.canonical.stream:
        response = streaming.open_stream(
            prepared.shape,
            prepared.asked,
            prepared.model,
            prepared.canonical,
            prepared.admitted,
            headers.request_id(request),
        )
    else:
        response = _complete(prepared)
    return headers.stamp(request, response, shape_name)


def _prepare(request, shape_name: str, started: float, bind: Bind | None) -> Prepared:
    """Everything before the provider call: key, body, model, limits, ledger row. (The body's
    size was checked by the view before it was read.)"""
    shape = SHAPES[shape_name]
    key = inbound.authenticate(request)
    asked, canonical = inbound.parse(shape, inbound.json_body(request))
    if bind is not None:
        canonical, shape = bind(key, canonical)
    prompt_tokens = canonical.prompt_tokens_estimate()
    model, slot = model_choice.choose(asked, canonical, key, prompt_tokens)
    canonical = replace(canonical, model=model.api_model, max_tokens=canonical.max_tokens or model.max_output_tokens)
    identity = gate.Identity(user_id=key.user_id, team_id=key.team_id, key_id=str(key.id))
    call = metering.Call(model=model, identity=identity, role="gateway", inbound_shape=shape_name, slot=slot)
    admitted = admit(request, call, shape_name, prompt_tokens=prompt_tokens, max_tokens=canonical.max_tokens,
                     started=started)  # fmt: skip
    if asked in model_choice.AUTO:
        asked = model.name  # the answer names the model that served it
    return Prepared(shape, asked, model, canonical, admitted)


def admit(request, call: metering.Call, shape_name: str, *, prompt_tokens: int, max_tokens: int,
          started: float) -> metering.Admitted:  # fmt: skip
    """Billing's admission (rate limits, budget reservation, ledger row) for any endpoint. What is
    left of the rate limits the call met goes out with whatever answer it gets; a refusal is the
    shape's 429."""
    refused = None
    try:
        admitted = metering.admit(call, prompt_tokens=prompt_tokens, max_tokens=max_tokens, started=started)
    except gate.Refused as exc:
        refused = exc
    at = now()
    left = headers.rate_left(call.identity, at)
    headers.add(request, headers.rate_headers(shape_name, left, at))
    if refused is not None:
        raise _refusal(refused, left) from refused
    headers.admitted(request, admitted.opened.entry_id)
    return admitted


def _refusal(refused: gate.Refused, left: headers.Left | None) -> Failure:
    """A budget says no until a person acts: `insufficient_quota`. A rate limit says which limit
    (requests or tokens) and when to come back."""
    if refused.kind == "budget":
        return Failure(429, str(refused), reason=failures.QUOTA)
    reason = failures.RATE_LIMIT_TOKENS if left and left.exceeded == "tokens" else failures.RATE_LIMIT_REQUESTS
    return Failure(429, str(refused), refused.retry_after, reason=reason)


def _complete(prepared: Prepared) -> JsonResponse:
    def run() -> metering.Outcome:
        try:
            response = adapter_for(prepared.model).complete(prepared.canonical)
        except ProviderError as exc:
            return metering.Outcome(status="error", error=exc)
        return metering.Outcome(response.usage, reported_cost=response.reported_cost_usd, result=response)

    outcome, _ = metering.metered(prepared.admitted, run, settle_with=settlement.settle)
    if isinstance(outcome.error, ProviderError):
        raise provider_failure(outcome.error) from outcome.error
    return JsonResponse(prepared.shape.render(outcome.result, prepared.asked))
