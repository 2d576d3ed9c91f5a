"""POST /v1/embeddings in OpenAI's shape. `local-embed` is the shipped MiniLM, run in this process
(gateway.local_embed); a model row whose params say {"embeddings": true}, on an OpenAI-compatible
provider, is relayed to that provider's /v1/embeddings. Either way the call is metered like a chat
call: the key's allowed models, rate limits, a budget reservation and a ledger row."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from billing import gate, metering
from core.clock import monotonic_ms
from core.ir import Usage
from gateway import calls, embeddings_relay, failures, inbound, local_embed, settlement
from gateway.failures import Failure, provider_failure
from gateway.model_choice import AUTO
from gateway.models import GatewayKey
from gateway.shapes import SHAPES
from gateway.threads import release_db
from routing.availability import availability
from routing.providers.base import ProviderError
from routing.providers.openai_compat import reported_cost
from routing.registry import ModelConfig, UnknownModel, current

MAX_INPUTS = 2048  # OpenAI's own limit per request
_RELAY_KINDS = ("openai", "openrouter")  # providers that speak OpenAI's /v1/embeddings
_SHAPE = SHAPES["openai"]


@dataclass(frozen=True)
class Asked:
    model: str
    texts: list[str]
    encoding_format: str
    dimensions: int | None
    body: dict  # as sent: a relay passes it on


@dataclass(frozen=True)
class Prepared:
    call: metering.Call
    prompt_tokens: int
    run: Callable[[], metering.Outcome]


@csrf_exempt
async def create(request):
    return await inbound.served(request, _SHAPE, handle)


def handle(request) -> JsonResponse:
    """On a gateway thread: the model (loaded on first use) and the upstream never run on the loop."""
    started = monotonic_ms()
    try:
        key = inbound.authenticate(request)
        asked = parse(inbound.json_body(request))
        prepared = _local(asked, key) if asked.model == local_embed.NAME else _relayed(asked, key)
        admitted = calls.admit(request, prepared.call, "openai", prompt_tokens=prepared.prompt_tokens, max_tokens=0,
                               started=started)  # fmt: skip
    finally:
        release_db()
    outcome, _ = metering.metered(admitted, prepared.run, settle_with=settlement.settle)
    if isinstance(outcome.error, ProviderError):
        raise provider_failure(outcome.error) from outcome.error
    return JsonResponse(outcome.result)


def _bad(param: str, message: str) -> Failure:
    return Failure(400, message, param=param)


def parse(body: dict) -> Asked:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _bad("model", "`model` is required: local-embed, or an embeddings model from GET /v1/models")
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else raw
    if not isinstance(texts, list) or not texts:
        raise _bad("input", "`input` must be a string or a non-empty list of strings")
    if not all(isinstance(t, str) for t in texts):
        raise _bad("input", "`input` must be text: token arrays are not accepted here")
    if len(texts) > MAX_INPUTS:
        raise _bad("input", f"`input` has {len(texts)} items; at most {MAX_INPUTS} per request")
    if any(not t for t in texts):
        raise _bad("input", "`input` may not contain an empty string")
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise _bad("encoding_format", f"`encoding_format` must be float or base64, not {encoding!r}")
    dimensions = body.get("dimensions")
    if dimensions is not None and (isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1):
        raise _bad("dimensions", "`dimensions` must be a positive integer")
    if body.get("user") is not None and not isinstance(body["user"], str):
        raise _bad("user", "`user` must be a string")
    return Asked(model, texts, encoding, dimensions, body)


def _call(model, key: GatewayKey) -> metering.Call:
    identity = gate.Identity(user_id=key.user_id, team_id=key.team_id, key_id=str(key.id))
    return metering.Call(model=model, identity=identity, role="gateway", inbound_shape="embeddings")


def _check_allowed(key: GatewayKey, asked: str, name: str) -> None:
    if key.allowed_models and asked not in key.allowed_models and name not in key.allowed_models:
        raise Failure(
            404,
            f"this key may not use model {asked!r}; it may use: {', '.join(key.allowed_models)}",
            reason=failures.MODEL_NOT_FOUND,
            param="model",
        )


# -- local-embed ---------------------------------------------------------------


def _local(asked: Asked, key: GatewayKey) -> Prepared:
    _check_allowed(key, asked.model, local_embed.NAME)
    if asked.dimensions not in (None, local_embed.DIMENSIONS):
        raise _bad("dimensions", f"local-embed makes {local_embed.DIMENSIONS}-dimensional vectors only")
    counts = local_embed.count(asked.texts)
    window, cap = local_embed.window(), local_embed.MAX_TOKENS_PER_REQUEST
    longest = max(range(len(counts)), key=counts.__getitem__)
    total = sum(counts)
    # Refused rather than cut short, as OpenAI does: a vector of a text's first part only would
    # pass for the whole text's.
    if counts[longest] > window:
        message = f"input[{longest}] has {counts[longest]} tokens; local-embed reads at most {window}"
        raise Failure(400, message, reason=failures.CONTEXT_LENGTH, param="input")
    if total > cap:
        message = f"the inputs have {total} tokens; local-embed takes at most {cap} per request"
        raise Failure(400, message, reason=failures.CONTEXT_LENGTH, param="input")

    def run() -> metering.Outcome:
        vectors = local_embed.embed(asked.texts)
        data = [{"object": "embedding", "index": i, "embedding": _encoded(v, asked.encoding_format)}
                for i, v in enumerate(vectors)]  # fmt: skip
        body = {"object": "list", "data": data, "model": local_embed.NAME,
                "usage": {"prompt_tokens": total, "total_tokens": total}}  # fmt: skip
        return metering.Outcome(Usage(input_tokens=total), result=body)

    return Prepared(_call(local_embed.SERVED, key), total, run)


def _encoded(vector, encoding_format: str) -> list[float] | str:
    """OpenAI's base64 is the vector's little-endian float32 bytes."""
    if encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return vector.tolist()


# -- relayed -------------------------------------------------------------------


def _relayed(asked: Asked, key: GatewayKey) -> Prepared:
    model = _row(asked.model)
    if not model.params.get("embeddings") or model.provider_kind not in _RELAY_KINDS:
        raise _bad("model", f"model {asked.model!r} does not make embeddings; local-embed does")
    _check_allowed(key, asked.model, model.name)
    if not model.configured:
        raise Failure(
            503, f"model {asked.model!r} cannot serve: {model.api_key_env or 'its provider'} is not configured"
        )
    reason = availability.unavailable_reason(model.name, model.provider)
    if reason:
        message = f"model {asked.model!r} is unavailable right now ({reason}); try again shortly"
        raise Failure(503, message, reason=failures.OVERLOADED)
    estimate = sum(model.count_tokens(t) for t in asked.texts)
    body = {**asked.body, "model": model.api_model}

    def run() -> metering.Outcome:
        try:
            answer = embeddings_relay.relay_for(model).embed(body)
        except ProviderError as exc:
            return metering.Outcome(status="error", error=exc)
        usage = answer.get("usage") or {}
        counted = usage.get("prompt_tokens")
        tokens = counted if isinstance(counted, int) and counted >= 0 else estimate
        return metering.Outcome(
            Usage(input_tokens=tokens), reported_cost=reported_cost(usage), result={**answer, "model": asked.model}
        )

    return Prepared(_call(model, key), estimate, run)


def _row(name: str) -> ModelConfig:
    if name in AUTO:
        raise Failure(
            400, f"model {name!r} is for chat; name an embeddings model (local-embed, or one of GET /v1/models)"
        )
    registry = current()
    model = registry.get(name) or next((m for m in registry.all() if m.api_model == name), None)
    if model is not None:
        return model
    try:
        return registry.resolve(name)
    except UnknownModel as exc:
        raise Failure(
            404,
            f"{exc}. local-embed makes embeddings here; GET /v1/models lists the others",
            reason=failures.MODEL_NOT_FOUND,
            param="model",
        ) from exc
