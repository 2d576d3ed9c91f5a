"""A gateway request that cannot be served: its HTTP status and message, and the error body in
the inbound shape's own form."""

from __future__ import annotations

from django.http import JsonResponse

from routing.providers.base import ProviderError

# A provider's failure, by kind, as the status the gateway answers with.
_PROVIDER_STATUS = {"auth": 502, "rate_limit": 503, "bad_request": 400, "context_length": 400, "server": 502,
                    "network": 503, "timeout": 504, "protocol": 502}  # fmt: skip


class Failure(Exception):
    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def provider_status(exc: ProviderError) -> int:
    return _PROVIDER_STATUS.get(exc.kind, 502)


def provider_failure(exc: ProviderError) -> Failure:
    return Failure(
        provider_status(exc), f"the provider failed: {exc}", retry_after=exc.retry_after_s and int(exc.retry_after_s)
    )


def error_response(shape, failure: Failure) -> JsonResponse:
    response = JsonResponse(shape.error(failure.status, failure.message), status=failure.status)
    if failure.retry_after:
        response["Retry-After"] = str(failure.retry_after)
    return response
