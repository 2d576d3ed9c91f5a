"""The REST gateway: /v1/chat/completions (OpenAI shape), /v1/messages (Anthropic shape),
/v1/models and /v1/messages/count_tokens. A request is authenticated by its gw_ key, parsed into
the canonical form, routed (its `model` is the per-message override, slot 1, through aliases),
metered by billing (rate limits, budget reservation, ledger row) and sent through the chosen
provider's adapter; the answer goes back in the inbound shape, streamed or not (gateway.calls).
The gateway keeps no conversation and runs no tools."""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from core import outages
from gateway import calls, inbound
from gateway.failures import Failure, error_response
from gateway.shapes import SHAPES, BadRequest
from gateway.threads import in_pool
from routing.registry import current

logger = logging.getLogger(__name__)


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
        return error_response(shape, Failure(413, f"request body is larger than {limit} bytes"))
    try:
        return await in_pool(calls.handle)(request, shape_name)
    except Failure as failure:
        return error_response(shape, failure)


@csrf_exempt
def models(request):
    """Both shapes' model lists in one body: OpenAI clients read `data[].id`, Anthropic clients
    `data[].id` and `display_name`."""
    shape = SHAPES["anthropic" if request.headers.get("anthropic-version") else "openai"]
    try:
        key = inbound.authenticate(request)
    except Failure as failure:
        return error_response(shape, failure)
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
        return error_response(shape, Failure(405, "use POST"))
    try:
        inbound.authenticate(request)
        body = json.loads(request.body or b"null")
        if not isinstance(body, dict):
            raise Failure(400, "the body must be a JSON object")
        _, canonical = inbound.parse(shape, {"max_tokens": 1, **body})
    except (json.JSONDecodeError, UnicodeDecodeError, BadRequest) as exc:
        return error_response(shape, Failure(400, str(exc)))
    except Failure as failure:
        return error_response(shape, failure)
    tools = sum(len(json.dumps(t.input_schema)) + len(t.name) + len(t.description) for t in canonical.tools)
    return JsonResponse({"input_tokens": canonical.prompt_tokens_estimate(extra_chars=tools)})


_ROUTES = {
    "/v1/chat/completions": completions,
    "/v1/messages": completions,
    "/v1/messages/count_tokens": in_pool(count_tokens),
    "/v1/models": in_pool(models),
}


async def dispatch(request):
    """The gateway's requests, straight to their view: sessions, CSRF, auth and messages are for
    the browser, and Django's sync middleware (WhiteNoise) would run every call through one
    thread. The URLconf maps the same views, for reverse() and the test client."""
    view = _ROUTES.get(request.path_info)
    shape = SHAPES["anthropic" if request.path_info.startswith("/v1/messages") else "openai"]
    if view is None:
        response = error_response(shape, Failure(404, f"no such endpoint: {request.path_info}; see /v1/models"))
    else:
        try:
            response = await view(request)
        except Exception as exc:
            reason = outages.reason_for(exc)
            if reason is None:
                logger.exception("gateway request failed: %s", request.path_info)
                response = error_response(shape, Failure(500, "internal error; the server log has the details"))
            else:
                logger.warning("503 for %s: %s (%s)", request.path_info, reason, exc.__class__.__name__)
                response = error_response(shape, Failure(503, reason, retry_after=5))
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    return response
