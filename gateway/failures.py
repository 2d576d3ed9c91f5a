"""A gateway request that cannot be served: its HTTP status, message and reason, and the error
response in the inbound shape's own form. Each shape answers a reason with the status, error type
and code its real API uses, so each official SDK raises its own exception class for it."""

from __future__ import annotations

import math

from django.http import JsonResponse

from gateway import headers
from routing.providers.base import ProviderError

# Why a request failed, where a status alone does not say enough for a shape to answer it.
MISSING_KEY = "missing_api_key"
INVALID_KEY = "invalid_api_key"  # unknown, malformed, revoked or expired
MODEL_NOT_FOUND = "model_not_found"  # unknown, or one the key may not use
CONTEXT_LENGTH = "context_length_exceeded"
RATE_LIMIT_REQUESTS = "rate_limit_requests"
RATE_LIMIT_TOKENS = "rate_limit_tokens"
QUOTA = "insufficient_quota"  # a budget is spent: waiting a minute will not help
OVERLOADED = "overloaded"  # the provider rate-limits us or is overloaded, or the model cools down
TIMEOUT = "timeout"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"  # expired, never stored, or another key's

# Retrying these cannot succeed before a person acts, and the SDKs would retry a 429 by default.
_NO_RETRY = frozenset({QUOTA})

# A provider's failure, by kind, as the status the gateway answers with (the OpenAI shape's; a
# shape may answer the reason with its own status).
_PROVIDER_STATUS = {"auth": 502, "rate_limit": 503, "bad_request": 400, "context_length": 400, "server": 502,
                    "network": 503, "timeout": 504, "protocol": 502}  # fmt: skip
_PROVIDER_REASON = {"rate_limit": OVERLOADED, "context_length": CONTEXT_LENGTH, "timeout": TIMEOUT}
_OVERLOADED_STATUSES = (503, 529)  # a provider's own "overloaded", passed on as one


class Failure(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        retry_after: int | None = None,
        *,
        reason: str | None = None,
        param: str | None = None,
        extra_headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after
        self.reason, self.param = reason, param
        self.headers = extra_headers or {}


def provider_failure(exc: ProviderError) -> Failure:
    status, reason = _PROVIDER_STATUS.get(exc.kind, 502), _PROVIDER_REASON.get(exc.kind)
    if exc.kind == "server" and exc.status in _OVERLOADED_STATUSES:
        status, reason = 503, OVERLOADED
    retry_after = math.ceil(exc.retry_after_s) if exc.retry_after_s else None
    return Failure(status, f"the provider failed: {exc}", retry_after, reason=reason)


def error_response(shape, failure: Failure, request=None) -> JsonResponse:
    """The failure in the shape's form. With the request, the body carries its id (the
    Anthropic shape's `request_id`) and the response its headers; without it, the gateway's
    dispatcher adds the headers."""
    request_id = headers.request_id(request) if request is not None else None
    status, body = shape.error(failure, request_id)
    response = JsonResponse(body, status=status)
    if failure.retry_after:
        response["Retry-After"] = str(failure.retry_after)
    if failure.reason in _NO_RETRY:
        response["x-should-retry"] = "false"  # both SDKs obey it before their status rules
    for name, value in failure.headers.items():
        response[name] = value
    if request is not None:
        headers.stamp(request, response, shape.name)
    return response
