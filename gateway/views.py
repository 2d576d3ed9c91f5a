"""The REST gateway: /v1/chat/completions (OpenAI shape), /v1/messages (Anthropic shape),
/v1/responses (OpenAI's Responses API, gateway.responses), /v1/models and
/v1/messages/count_tokens. A request is authenticated by its gw_ key, parsed into the canonical
form, routed (its `model` is the per-message override, slot 1, through aliases), metered by
billing (rate limits, budget reservation, ledger row) and sent through the chosen provider's
adapter; the answer goes back in the inbound shape, streamed or not (gateway.calls). The gateway
runs no tools, and keeps no conversation but a stored Response's."""

from __future__ import annotations

import functools
import json
import logging

from asgiref.sync import iscoroutinefunction
from django.http import JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

from core import outages
from gateway import calls, headers, inbound, model_choice
from gateway import responses as responses_api
from gateway.failures import Failure, error_response
from gateway.shapes import SHAPES, BadRequest
from gateway.threads import in_pool
from routing.registry import current

logger = logging.getLogger(__name__)


def _shape_of(path: str) -> str:
    return "openai" if "chat/completions" in path else "anthropic"


_CREATED_AT = "2025-01-01T00:00:00Z"  # the registry keeps no dates; a fixed one keeps clients' parsers happy


def _listing_shape(request) -> str:
    """/v1/models answers in Anthropic's shape to a request that carries anthropic-version (every
    Anthropic client sends it), else in OpenAI's."""
    return "anthropic" if request.headers.get("anthropic-version") else "openai"


@csrf_exempt
async def completions(request):
    shape_name = _shape_of(request.path)
    return await inbound.served(request, SHAPES[shape_name], calls.handle, shape_name)


@csrf_exempt
async def responses(request):
    return await inbound.served(request, SHAPES["responses"], calls.handle, "responses", responses_api.bind)


@csrf_exempt
def models(request):
    """Both shapes' model lists in one body: OpenAI clients read `data[].id`, Anthropic clients
    `data[].id` and `display_name`."""
    shape_name = _listing_shape(request)
    try:
        key = inbound.authenticate(request)
    except Failure as failure:
        return error_response(SHAPES[shape_name], failure, request)
    registry = current()
    rows = [m for m in registry.all() if m.enabled and (not key.allowed_models or m.name in key.allowed_models)]
    return headers.stamp(request, JsonResponse({
        "object": "list",
        "data": [{"id": m.name, "object": "model", "type": "model", "display_name": m.name, "owned_by": m.provider,
                  "created": 0, "created_at": _CREATED_AT} for m in rows],
        "has_more": False,
    }), shape_name)  # fmt: skip


@csrf_exempt
def model(request, model_id: str):
    """GET /v1/models/{id}: one model the key may use, as OpenAI's model object or, to a request
    that carries anthropic-version, Anthropic's; any other is a 404 in the shape's form."""
    shape_name = _listing_shape(request)
    try:
        key = inbound.authenticate(request)
        found = model_choice.visible(model_id, key)
    except Failure as failure:
        return error_response(SHAPES[shape_name], failure, request)
    if shape_name == "anthropic":
        body = {"type": "model", "id": found.name, "display_name": found.name, "created_at": _CREATED_AT}
    else:
        body = {"id": found.name, "object": "model", "created": 0, "owned_by": found.provider}
    return headers.stamp(request, JsonResponse(body), shape_name)


@csrf_exempt
def count_tokens(request):
    shape = SHAPES["anthropic"]
    if request.method != "POST":
        return error_response(shape, Failure(405, "use POST"), request)
    try:
        key = inbound.authenticate(request)
        body = json.loads(request.body or b"null")
        if not isinstance(body, dict):
            raise Failure(400, "the body must be a JSON object")
        asked, canonical = inbound.parse(shape, {"max_tokens": 1, **body})
        model_choice.visible(asked, key)
    except (json.JSONDecodeError, UnicodeDecodeError, BadRequest) as exc:
        return error_response(shape, Failure(400, str(exc)), request)
    except Failure as failure:
        return error_response(shape, failure, request)
    tools = sum(len(json.dumps(t.input_schema)) + len(t.name) + len(t.description) for t in canonical.tools)
    return headers.stamp(
        request, JsonResponse({"input_tokens": canonical.prompt_tokens_estimate(extra_chars=tools)}), "anthropic"
    )


@functools.lru_cache(maxsize=1024)
def _route(path: str):
    """The URLconf's /v1/ view for `path` (awaitable: a sync view runs on the gateway's threads)
    and its arguments, or None."""
    try:
        match = resolve(path)
    except Resolver404:
        return None, {}
    if not match.route.startswith("v1/"):
        return None, {}
    view = match.func
    return (view if iscoroutinefunction(view) else in_pool(view)), match.kwargs


async def dispatch(request):
    """The gateway's requests, straight to their view: sessions, CSRF, auth and messages are for
    the browser, and Django's sync middleware (WhiteNoise) would run every call through one
    thread. The views are the URLconf's /v1/ ones. Every response carries the request id, in
    the header its shape's clients read."""
    path = request.path_info
    anthropic = path.startswith("/v1/messages") or bool(request.headers.get("anthropic-version"))
    shape_name = "anthropic" if anthropic else "openai"
    shape = SHAPES[shape_name]
    view, kwargs = _route(path)
    if view is None:
        response = error_response(shape, Failure(404, f"no such endpoint: {path}; see /v1/models"), request)
    else:
        try:
            response = await view(request, **kwargs)
        except Exception as exc:
            reason = outages.noted(exc)
            if reason is None:
                logger.exception("gateway request failed: %s", path)
                failure = Failure(500, "internal error; the server log has the details")
                response = error_response(shape, failure, request)
            else:
                logger.warning("503 for %s: %s (%s: %s)", path, reason, exc.__class__.__name__, exc)
                response = error_response(shape, Failure(503, reason, retry_after=5), request)
    headers.stamp(request, response, shape_name)
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    return response
