"""What a gateway request brings: its key (authenticated), its JSON body, and that body in the
canonical form, each refused with the status a client expects (401, 400)."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig

from core.ir import ChatRequest
from gateway import failures, keys
from gateway.failures import Failure, error_response
from gateway.models import GatewayKey
from gateway.shapes import BadRequest
from gateway.threads import in_pool


def raw_key(request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def authenticate(request) -> GatewayKey:
    raw = raw_key(request)
    try:
        return keys.authenticate(raw)
    except keys.KeyRejected as exc:
        raise Failure(401, str(exc), reason=failures.INVALID_KEY if raw else failures.MISSING_KEY) from exc


def json_body(request) -> dict:
    try:
        body = json.loads(request.body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Failure(400, f"the body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise Failure(400, "the body must be a JSON object")
    return body


def parse(shape, body: dict) -> tuple[str, ChatRequest]:
    """The body in canonical form, or a 400. A body whose types the shape's own checks missed
    (the fuzzer's business) is still a 400, never a 500."""
    try:
        return shape.parse(body)
    except BadRequest as exc:
        raise Failure(400, str(exc)) from exc
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise Failure(400, f"malformed request body ({exc.__class__.__name__}: {exc})") from exc


async def served(request, shape, handle, *args):
    """A POST endpoint's common front: the method, the body's size (refused before it is read
    whole), then `handle(request, *args)` on a gateway thread; a Failure becomes the shape's error."""
    if request.method != "POST":
        return error_response(shape, Failure(405, "use POST"), request)
    limit = settings.METNOS_GATEWAY_MAX_BODY_BYTES
    try:
        if int(request.headers.get("Content-Length") or 0) > limit:
            raise RequestDataTooBig
        request.body  # noqa: B018  (read now: a body over DATA_UPLOAD_MAX_MEMORY_SIZE raises here)
    except (RequestDataTooBig, ValueError):
        return error_response(shape, Failure(413, f"request body is larger than {limit} bytes"), request)
    try:
        return await in_pool(handle)(request, *args)
    except Failure as failure:
        return error_response(shape, failure, request)
