"""What a gateway request brings: its key (authenticated), its JSON body, and that body in the
canonical form, each refused with the status a client expects (401, 400)."""

from __future__ import annotations

import json

from core.ir import ChatRequest
from gateway import keys
from gateway.failures import Failure
from gateway.models import GatewayKey
from gateway.shapes import BadRequest


def raw_key(request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def authenticate(request) -> GatewayKey:
    try:
        return keys.authenticate(raw_key(request))
    except keys.KeyRejected as exc:
        raise Failure(401, str(exc)) from exc


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
