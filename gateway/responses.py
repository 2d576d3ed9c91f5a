"""POST /v1/responses: the one piece of conversation the gateway keeps. A stored Response (the
default; `store: false` opts out) is its conversation, input and output, in canonical form, in
Redis under the key that made it, for METNOS_RESPONSES_TTL_S; a call with `previous_response_id`
continues it. Another key cannot see it: the id is looked up under the caller's own key.
Everything else (admission, metering, the provider call, streaming) is gateway.calls'."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import redis
from django.conf import settings

from billing import gate
from core.ir import ChatRequest, Message
from gateway import failures
from gateway.failures import Failure
from gateway.models import GatewayKey
from gateway.shapes import SHAPES
from gateway.shapes.responses import ResponseCall

logger = logging.getLogger(__name__)


def _key(gateway_key: GatewayKey, response_id: str) -> str:
    return f"gw:responses:{gateway_key.id}:{response_id}"


def load(gateway_key: GatewayKey, response_id: str) -> tuple[Message, ...]:
    try:
        raw = gate.client().get(_key(gateway_key, response_id))
    except redis.RedisError as exc:
        raise Failure(503, "stored responses are unavailable (Redis cannot be reached)", retry_after=5) from exc
    if raw is None:
        raise Failure(400, f"Previous response with id '{response_id}' not found.", param="previous_response_id",
                      reason=failures.PREVIOUS_RESPONSE_NOT_FOUND)  # fmt: skip
    return tuple(Message.from_dict(m) for m in json.loads(raw))


def save(gateway_key: GatewayKey, response_id: str, messages: tuple[Message, ...]) -> None:
    """Best effort: the answer has been given; a Redis failure loses only the continuation."""
    try:
        gate.client().set(_key(gateway_key, response_id), json.dumps([m.to_dict() for m in messages]),
                          ex=settings.METNOS_RESPONSES_TTL_S)  # fmt: skip
    except redis.RedisError as exc:
        logger.warning("could not store response %s for previous_response_id: %s", response_id, exc)


def bind(gateway_key: GatewayKey, canonical: ChatRequest):
    """The conversation a call continues, put before its input, and the renderer that stores the
    call's own conversation once its answer is known (gateway.calls' `bind`)."""
    call: ResponseCall = canonical.metadata["responses"]
    if call.previous_response_id:
        canonical = replace(canonical, messages=load(gateway_key, call.previous_response_id) + canonical.messages)
    messages = canonical.messages
    remember = (lambda output: save(gateway_key, call.id, (*messages, output))) if call.store else None
    return canonical, SHAPES["responses"].bound(call, remember)
