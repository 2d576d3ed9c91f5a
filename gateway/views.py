"""The REST gateway: /v1/chat/completions (OpenAI shape), /v1/messages (Anthropic shape),
/v1/models and /v1/messages/count_tokens. A request is authenticated by its gw_ key, parsed into
the canonical form, routed (its `model` is the per-message override, slot 1, through aliases),
accounted by billing (rate limits, budget reservation, ledger row) and sent through the chosen
provider's adapter; the answer goes back in the inbound shape, streamed or not. The gateway keeps
no conversation and runs no tools."""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from billing import gate, ledger
from core.clock import monotonic_ms
from core.events import bus
from core.ir import MessageStop, Usage
from gateway import keys
from gateway.shapes import SHAPES, BadRequest
from routing.availability import availability
from routing.providers.base import ProviderError
from routing.registry import UnknownModel, adapter_for, current

logger = logging.getLogger(__name__)
_STATUS = {"auth": 502, "rate_limit": 503, "bad_request": 400, "context_length": 400, "server": 502,
           "network": 503, "timeout": 504, "protocol": 502}  # fmt: skip


class Failure(Exception):
    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def _error(shape, failure: Failure) -> JsonResponse:
    response = JsonResponse(shape.error(failure.status, failure.message), status=failure.status)
    if failure.retry_after:
        response["Retry-After"] = str(failure.retry_after)
    return response


def _raw_key(request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def _prepare(request, shape_name: str):
    """Everything before the provider call: key, body, model, limits, ledger row. (The body's
    size was checked by the view before it was read.)"""
    shape = SHAPES[shape_name]
    try:
        key = keys.authenticate(_raw_key(request))
    except keys.KeyError_ as exc:
        raise Failure(401, str(exc)) from exc
    try:
        body = json.loads(request.body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Failure(400, f"the body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise Failure(400, "the body must be a JSON object")
    try:
        asked, canonical = shape.parse(body)
    except BadRequest as exc:
        raise Failure(400, str(exc)) from exc
    registry = current()
    model = registry.get(asked) or next((m for m in registry.all() if m.api_model == asked), None)
    if model is None:
        try:
            registry.resolve(asked)
        except UnknownModel as exc:
            raise Failure(400, f"{exc}. GET /v1/models lists the models you can use") from exc
    if key.allowed_models and asked not in key.allowed_models and model.name not in key.allowed_models:
        raise Failure(400, f"this key may not use model {asked!r}; it may use: {', '.join(key.allowed_models)}")
    if not model.configured:
        raise Failure(503, f"model {asked!r} cannot serve: {model.api_key_env or 'its provider'} is not configured")
    reason = availability.unavailable_reason(model.name, model.provider)
    if reason:
        raise Failure(503, f"model {asked!r} is unavailable right now ({reason}); try again shortly")
    prompt_tokens = canonical.prompt_tokens_estimate()
    if prompt_tokens > model.context_window:
        raise Failure(
            400,
            f"the prompt (~{prompt_tokens} tokens) is longer than {asked}'s context window ({model.context_window})",
        )
    canonical = replace(canonical, model=model.api_model, max_tokens=canonical.max_tokens or model.max_output_tokens)
    identity = gate.Identity(user_id=key.user_id, team_id=key.team_id, key_id=str(key.id))
    try:
        opened = ledger.admit(
            model=model.name, provider=model.provider, provider_kind=model.provider_kind, api_model=model.api_model,
            prompt_tokens=prompt_tokens, max_tokens=canonical.max_tokens, identity=identity, role="gateway",
            inbound_shape=shape_name, slot="per_message",
        )  # fmt: skip
    except gate.Refused as refused:
        if refused.kind == "budget":
            raise Failure(429 if shape_name == "openai" else 402, str(refused)) from refused
        raise Failure(429, str(refused), retry_after=refused.retry_after) from refused
    return shape, asked, model, canonical, identity, opened


def _finish(
    model, identity, shape_name, opened, usage: Usage, status: str, started: float, error=None, cost=None, ended=None
):
    latency = int((ended or monotonic_ms()) - started)
    charged = ledger.settle(
        opened, usage=usage, status=status, latency_ms=latency, error=str(error or ""), reported_cost=cost
    )
    if error is None:
        availability.record_success(model.name, model.provider)
    elif isinstance(error, ProviderError):
        availability.record_failure(model.name, model.provider, error)
    bus.emit("llm.call_completed", {
        "model": model.name, "provider": model.provider, "usage": usage.to_dict(), "cost_usd": str(charged),
        "latency_ms": latency, "status": status, "error": str(error or ""), "role": "gateway",
        "user_id": identity.user_id, "team_id": identity.team_id, "key_id": identity.key_id,
        "inbound_shape": shape_name, "ledger_id": str(opened.entry_id),
    })  # fmt: skip


def _settle_safely(*args, **kwargs) -> None:
    try:
        _finish(*args, **kwargs)
    except Exception:
        logger.exception("could not settle a gateway call; the ledger reaper will bill it at its reservation")


class _Settler:
    """One thread per process that settles finished calls in order, off the request's path."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gateway-settle")

    def submit(self, *args, **kwargs) -> None:
        self._pool.submit(_settle_safely, *args, **kwargs)


_settler = _Settler()


def _complete(request, shape_name: str):
    started = monotonic_ms()
    shape, asked, model, canonical, identity, opened = _prepare(request, shape_name)
    try:
        response = adapter_for(model).complete(replace(canonical, stream=False))
    except ProviderError as exc:
        _finish(model, identity, shape_name, opened, Usage(), "error", started, exc)
        raise Failure(
            _STATUS.get(exc.kind, 502),
            f"the provider failed: {exc}",
            retry_after=exc.retry_after_s and int(exc.retry_after_s),
        ) from exc
    # The answer goes out now; its settlement follows on the settling thread. The row is already
    # in the ledger (`pending`, with its reservation), so a crash before it settles loses nothing.
    _settler.submit(model, identity, shape_name, opened, response.usage, "ok", started,
                    cost=response.reported_cost_usd, ended=monotonic_ms())  # fmt: skip
    return JsonResponse(shape.render(response, asked))


def _open_stream(request, shape_name: str):
    """Prepare and start the provider stream; returns the shape, model name and a generator of bytes."""
    started = monotonic_ms()
    shape, asked, model, canonical, identity, opened = _prepare(request, shape_name)
    events = adapter_for(model).stream(replace(canonical, stream=True))

    def relay():
        usage, cost, status, error = Usage(), None, "ok", None

        def watched():
            nonlocal usage, cost
            for event in events:
                if isinstance(event, MessageStop):
                    usage, cost = event.usage, event.reported_cost_usd
                yield event

        try:
            yield from shape.stream(watched(), asked)
        except ProviderError as exc:
            status, error = "error", exc
            yield shape.stream_error(_STATUS.get(exc.kind, 502), f"the provider failed: {exc}")
        except GeneratorExit:
            status = "cancelled"
            raise
        finally:
            _finish(model, identity, shape_name, opened, usage, status, started, error, cost)

    return shape, relay()


async def _async_chunks(generator):
    """Pull a synchronous generator (the provider's HTTP stream) from a worker thread, chunk by
    chunk, so daphne streams it instead of buffering it."""
    step = sync_to_async(lambda: next(generator, None), thread_sensitive=False)
    try:
        while (chunk := await step()) is not None:
            yield chunk
    finally:
        try:
            await sync_to_async(generator.close, thread_sensitive=False)()
        except ValueError:
            pass  # a next() still runs in its thread (the client left mid-chunk); it finishes and settles


def _shape_of(path: str) -> str:
    return "openai" if "chat/completions" in path else "anthropic"


@csrf_exempt
async def completions(request):
    shape_name = _shape_of(request.path)
    shape = SHAPES[shape_name]
    if request.method != "POST":
        return JsonResponse(shape.error(405, "use POST"), status=405)
    limit = settings.METNOS_GATEWAY_MAX_BODY_BYTES
    try:
        if int(request.headers.get("Content-Length") or 0) > limit:
            raise RequestDataTooBig
        raw = request.body
    except (RequestDataTooBig, ValueError):
        return _error(shape, Failure(413, f"request body is larger than {limit} bytes"))
    try:
        wants_stream = b'"stream"' in raw and json.loads(raw or b"{}").get("stream") is True
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        wants_stream = False
    try:
        if not wants_stream:
            return await sync_to_async(_complete, thread_sensitive=False)(request, shape_name)
        shape, generator = await sync_to_async(_open_stream, thread_sensitive=False)(request, shape_name)
    except Failure as failure:
        return _error(shape, failure)
    response = StreamingHttpResponse(_async_chunks(generator), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    return response


@csrf_exempt
def models(request):
    """Both shapes' model lists in one body: OpenAI clients read `data[].id`, Anthropic clients
    `data[].id` and `display_name`."""
    shape = SHAPES["anthropic" if request.headers.get("anthropic-version") else "openai"]
    try:
        key = keys.authenticate(_raw_key(request))
    except keys.KeyError_ as exc:
        return _error(shape, Failure(401, str(exc)))
    registry = current()
    rows = [m for m in registry.all() if m.enabled and (not key.allowed_models or m.name in key.allowed_models)]
    return JsonResponse({
        "object": "list",
        "data": [{"id": m.name, "object": "model", "type": "model", "display_name": m.name, "owned_by": m.provider,
                  "created": 0, "created_at": "2025-01-01T00:00:00Z"} for m in rows],
        "has_more": False,
    })  # fmt: skip


@csrf_exempt
def count_tokens(request):
    shape = SHAPES["anthropic"]
    if request.method != "POST":
        return _error(shape, Failure(405, "use POST"))
    try:
        keys.authenticate(_raw_key(request))
        body = json.loads(request.body or b"null")
        if not isinstance(body, dict):
            raise Failure(400, "the body must be a JSON object")
        _, canonical = shape.parse({"max_tokens": 1, **body})
    except keys.KeyError_ as exc:
        return _error(shape, Failure(401, str(exc)))
    except (json.JSONDecodeError, BadRequest) as exc:
        return _error(shape, Failure(400, str(exc)))
    except Failure as failure:
        return _error(shape, failure)
    tools = sum(len(json.dumps(t.input_schema)) + len(t.name) + len(t.description) for t in canonical.tools)
    return JsonResponse({"input_tokens": canonical.prompt_tokens_estimate(extra_chars=tools)})
