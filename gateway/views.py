"""The REST gateway: /v1/chat/completions (OpenAI shape), /v1/messages (Anthropic shape),
/v1/models and /v1/messages/count_tokens. A request is authenticated by its gw_ key, parsed into
the canonical form, routed (its `model` is the per-message override, slot 1, through aliases),
accounted by billing (rate limits, budget reservation, ledger row) and sent through the chosen
provider's adapter; the answer goes back in the inbound shape, streamed or not. The gateway keeps
no conversation and runs no tools."""

from __future__ import annotations

import atexit
import json
import logging
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import connection, transaction
from django.http import JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from billing import gate, ledger
from core import trace
from core.clock import monotonic_ms
from core.events import bus
from core.ir import ImageBlock, MessageStop, Usage
from gateway import keys
from gateway.models import GatewayKey
from gateway.shapes import SHAPES, BadRequest
from metnos_site import outages
from routing import policy as policies
from routing.availability import availability
from routing.chain import NoRoute, RouteInputs, decide
from routing.fingerprint import TurnNeeds
from routing.providers.base import ProviderError
from routing.registry import UnknownModel, adapter_for, current

logger = logging.getLogger(__name__)
AUTO = frozenset({"auto", "metnos/auto"})  # a `chain` key's request that leaves the choice to routing
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


_pool = ThreadPoolExecutor(max_workers=settings.METNOS_GATEWAY_THREADS, thread_name_prefix="gateway")


def _in_pool(fn):
    """Run `fn` on the gateway's own threads: a call waiting on its upstream holds a thread, and
    the loop's default executor has only a handful."""
    return sync_to_async(fn, thread_sensitive=False, executor=_pool)


def _release_db() -> None:
    """Hand this thread's database connection back to the pool (or close it): a thread that waits
    on an upstream must not hold one, and a connection broken by a database restart is dropped."""
    if not connection.in_atomic_block:
        connection.close()


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
    asked, canonical = _parse(shape, body)
    prompt_tokens = canonical.prompt_tokens_estimate()
    if key.routing == GatewayKey.Routing.CHAIN:
        model, slot = _route(asked, canonical, key, prompt_tokens)
    else:
        model, slot = _pinned(asked, key, prompt_tokens), "per_message"
    canonical = replace(canonical, model=model.api_model, max_tokens=canonical.max_tokens or model.max_output_tokens)
    identity = gate.Identity(user_id=key.user_id, team_id=key.team_id, key_id=str(key.id))
    try:
        opened = ledger.admit(
            model=model.name, provider=model.provider, provider_kind=model.provider_kind, api_model=model.api_model,
            prompt_tokens=prompt_tokens, max_tokens=canonical.max_tokens, identity=identity, role="gateway",
            inbound_shape=shape_name, slot=slot,
        )  # fmt: skip
    except gate.Refused as refused:
        if refused.kind == "budget":
            raise Failure(429 if shape_name == "openai" else 402, str(refused)) from refused
        raise Failure(429, str(refused), retry_after=refused.retry_after) from refused
    if asked in AUTO:
        asked = model.name  # the answer names the model that served it
    return shape, asked, model, canonical, identity, opened


def _parse(shape, body: dict):
    """The body in canonical form, or a 400. A body whose types the shape's own checks missed
    (the fuzzer's business) is still a 400, never a 500."""
    try:
        return shape.parse(body)
    except BadRequest as exc:
        raise Failure(400, str(exc)) from exc
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise Failure(400, f"malformed request body ({exc.__class__.__name__}: {exc})") from exc


def _known(asked: str):
    registry = current()
    model = registry.get(asked) or next((m for m in registry.all() if m.api_model == asked), None)
    if model is None:
        try:
            model = registry.resolve(asked)
        except UnknownModel as exc:
            raise Failure(400, f"{exc}. GET /v1/models lists the models you can use") from exc
    return model


def _check_allowed(key, asked: str, model) -> None:
    if key.allowed_models and asked not in key.allowed_models and model.name not in key.allowed_models:
        raise Failure(400, f"this key may not use model {asked!r}; it may use: {', '.join(key.allowed_models)}")


def _pinned(asked: str, key, prompt_tokens: int):
    """A pinned key gets the model its request names, or an error that says why not."""
    if asked in AUTO:
        raise Failure(400, f"model {asked!r} needs a key whose routing is `chain`; name a model instead")
    model = _known(asked)
    _check_allowed(key, asked, model)
    if not model.configured:
        raise Failure(503, f"model {asked!r} cannot serve: {model.api_key_env or 'its provider'} is not configured")
    reason = availability.unavailable_reason(model.name, model.provider)
    if reason:
        raise Failure(503, f"model {asked!r} is unavailable right now ({reason}); try again shortly")
    if prompt_tokens > model.context_window:
        raise Failure(
            400,
            f"the prompt (~{prompt_tokens} tokens) is longer than {asked}'s context window ({model.context_window})",
        )
    return model


def _route(asked: str, canonical, key, prompt_tokens: int):
    """A `chain` key: the request's model is slot 1 of the routing chain (`auto` leaves it empty);
    when it cannot serve, routing.yaml's rules (role `gateway`, the key's workspace), the key's
    workspace default and the global default follow. Returns (model, slot)."""
    named = None
    if asked not in AUTO:
        named = _known(asked)
        _check_allowed(key, asked, named)
    try:
        policy = policies.load(settings.METNOS_ROUTING_FILE)
    except policies.PolicyError as exc:
        logger.error("ignoring routing rules: %s", exc)
        policy = policies.EMPTY
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
    inputs = RouteInputs(per_message=named.name if named else None, policy=policy, use_patterns=False)
    try:
        decision = decide(needs, inputs)
    except NoRoute as exc:
        raise Failure(503, str(exc)) from exc
    if key.allowed_models and decision.model.name not in key.allowed_models:
        raise Failure(400, f"routing chose {decision.model.name!r} ({decision.slot}), which this key may not use")
    return decision.model, decision.slot


@dataclass
class Settlement:
    """A finished call, waiting to be settled."""

    model: object
    identity: gate.Identity
    shape_name: str
    opened: ledger.Open
    usage: Usage
    status: str
    started: float
    error: Exception | None = None
    cost: Decimal | None = None
    ended: float | None = None


def _record(items: list[Settlement]) -> list[Decimal]:
    """The database half: the ledger rows, their rollups and the `llm.call_completed` traces."""
    ended = monotonic_ms()
    latencies = [int((item.ended or ended) - item.started) for item in items]
    charged = ledger.record_many([
        (item.opened, {"usage": item.usage, "status": item.status, "latency_ms": latency,
                       "error": str(item.error or ""), "reported_cost": item.cost})
        for item, latency in zip(items, latencies, strict=True)
    ])  # fmt: skip
    for item, latency, cost in zip(items, latencies, charged, strict=True):
        bus.emit("llm.call_completed", {
            "model": item.model.name, "provider": item.model.provider, "usage": item.usage.to_dict(),
            "cost_usd": str(cost), "latency_ms": latency, "status": item.status, "error": str(item.error or ""),
            "role": "gateway", "user_id": item.identity.user_id, "team_id": item.identity.team_id,
            "key_id": item.identity.key_id, "inbound_shape": item.shape_name, "ledger_id": str(item.opened.entry_id),
        })  # fmt: skip
    return charged


def _after(items: list[Settlement], charged: list[Decimal]) -> None:
    """The Redis half, once the database has the rows: budget counters and availability."""
    gate.settle_many([(item.opened.reservation, cost) for item, cost in zip(items, charged, strict=True)])
    for model in {(item.model.name, item.model.provider) for item in items if item.error is None}:
        availability.record_success(*model)
    for item in items:
        if isinstance(item.error, ProviderError):
            availability.record_failure(item.model.name, item.model.provider, item.error)


def _settle(items: list[Settlement]) -> None:
    """Settle calls in one transaction, their traces in one INSERT; one by one if that fails.
    Whatever cannot be settled stays `pending` and the ledger reaper bills it at its reservation."""
    try:
        try:
            with transaction.atomic(), trace.batch():
                charged = _record(items)
        except Exception:
            if len(items) == 1:
                raise
            logger.exception("could not settle %d gateway calls together; settling them one by one", len(items))
            for item in items:
                _settle([item])
            return
        _after(items, charged)
    except Exception:
        logger.exception("could not settle a gateway call; the ledger reaper will bill it at its reservation")
    finally:
        _release_db()


class _Settler:
    """One thread per process that settles finished calls off the request's path: whatever has
    queued up while it worked goes in its next transaction, so a busy gateway commits once per
    batch rather than once per call."""

    BATCH = 200

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Settlement | None] = queue.SimpleQueue()  # None: stop
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def stop(self, timeout_s: float = 10.0) -> None:
        """At exit: let the thread settle what is queued, the batch in hand included (whatever
        it cannot settle in time stays pending, for the reaper)."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(None)
            thread.join(timeout_s)

    def submit(self, item: Settlement) -> None:
        self._queue.put(item)
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="gateway-settle", daemon=True)
                    self._thread.start()
                    atexit.register(self.stop)

    def _run(self) -> None:
        stopping = False
        while not stopping:
            items = [self._queue.get()]
            while len(items) < self.BATCH:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stopping = None in items
            items = [item for item in items if item is not None]
            if items:
                _settle(items)


_settler = _Settler()


def _handle(request, shape_name: str):
    """The whole call, on a gateway thread: prepare (the body is parsed once, here), then answer
    in one piece or open the stream the body asked for."""
    started = monotonic_ms()
    try:
        prepared = _prepare(request, shape_name)
    finally:
        _release_db()
    if prepared[3].stream:
        return _open_stream(shape_name, started, *prepared)
    return _complete(shape_name, started, *prepared)


def _complete(shape_name: str, started: float, shape, asked, model, canonical, identity, opened):
    try:
        response = adapter_for(model).complete(canonical)
    except ProviderError as exc:
        _settle([Settlement(model, identity, shape_name, opened, Usage(), "error", started, exc)])
        raise Failure(
            _STATUS.get(exc.kind, 502),
            f"the provider failed: {exc}",
            retry_after=exc.retry_after_s and int(exc.retry_after_s),
        ) from exc
    # The answer goes out now; its settlement follows on the settling thread. The row is already
    # in the ledger (`pending`, with its reservation), so a crash before it settles loses nothing.
    _settler.submit(Settlement(model, identity, shape_name, opened, response.usage, "ok", started,
                               cost=response.reported_cost_usd, ended=monotonic_ms()))  # fmt: skip
    return JsonResponse(shape.render(response, asked))


def _open_stream(shape_name: str, started: float, shape, asked, model, canonical, identity, opened):
    """Start the provider stream; the response relays it chunk by chunk and settles at its end."""
    events = adapter_for(model).stream(canonical)

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
            _settle([Settlement(model, identity, shape_name, opened, usage, status, started, error, cost)])

    response = StreamingHttpResponse(_async_chunks(relay()), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    return response


async def _async_chunks(generator):
    """Pull a synchronous generator (the provider's HTTP stream) from a worker thread, chunk by
    chunk, so daphne streams it instead of buffering it."""
    step = _in_pool(lambda: next(generator, None))
    try:
        while (chunk := await step()) is not None:
            yield chunk
    finally:
        try:
            await _in_pool(generator.close)()
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
        request.body  # noqa: B018  (read now: a body over DATA_UPLOAD_MAX_MEMORY_SIZE raises here)
    except (RequestDataTooBig, ValueError):
        return _error(shape, Failure(413, f"request body is larger than {limit} bytes"))
    try:
        return await _in_pool(_handle)(request, shape_name)
    except Failure as failure:
        return _error(shape, failure)


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
        _, canonical = _parse(shape, {"max_tokens": 1, **body})
    except keys.KeyError_ as exc:
        return _error(shape, Failure(401, str(exc)))
    except (json.JSONDecodeError, UnicodeDecodeError, BadRequest) as exc:
        return _error(shape, Failure(400, str(exc)))
    except Failure as failure:
        return _error(shape, failure)
    tools = sum(len(json.dumps(t.input_schema)) + len(t.name) + len(t.description) for t in canonical.tools)
    return JsonResponse({"input_tokens": canonical.prompt_tokens_estimate(extra_chars=tools)})


_ROUTES = {
    "/v1/chat/completions": completions,
    "/v1/messages": completions,
    "/v1/messages/count_tokens": _in_pool(count_tokens),
    "/v1/models": _in_pool(models),
}


async def dispatch(request):
    """The gateway's requests, straight to their view: sessions, CSRF, auth and messages are for
    the browser, and Django's sync middleware (WhiteNoise) would run every call through one
    thread. The URLconf maps the same views, for reverse() and the test client."""
    view = _ROUTES.get(request.path_info)
    shape = SHAPES["anthropic" if request.path_info.startswith("/v1/messages") else "openai"]
    if view is None:
        response = _error(shape, Failure(404, f"no such endpoint: {request.path_info}; see /v1/models"))
    else:
        try:
            response = await view(request)
        except Exception as exc:
            reason = outages.reason_for(exc)
            if reason is None:
                logger.exception("gateway request failed: %s", request.path_info)
                response = _error(shape, Failure(500, "internal error; the server log has the details"))
            else:
                logger.warning("503 for %s: %s (%s)", request.path_info, reason, exc.__class__.__name__)
                response = _error(shape, Failure(503, reason, retry_after=5))
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    return response
