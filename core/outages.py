"""When the database or Redis is down, a request gets 503 with the reason, not a 500 page; the
processes stay up and serve again as soon as the service is back (broken pooled connections are
dropped as they are handed out or given back). JSON for /api/, a line of text elsewhere."""

from __future__ import annotations

import logging

import redis
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger(__name__)


def reason_for(exc: BaseException) -> str | None:
    """What is down, in words, or None when `exc` is not an outage."""
    if isinstance(exc, OperationalError | InterfaceError):
        return "the database is unavailable; try again shortly"
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        return "Redis is unavailable; try again shortly"
    return None


class OutageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        reason = reason_for(exc)
        if reason is None:
            return None
        logger.warning("503 for %s: %s (%s)", request.path, reason, exc.__class__.__name__)
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": reason}, status=503)
        else:
            response = HttpResponse(reason, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = "5"
        return response
