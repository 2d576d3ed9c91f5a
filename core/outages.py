"""When the database or Redis is down, a request gets 503 with the reason, not a 500 page; the
processes stay up and serve again as soon as the service is back. JSON for /api/, a line of text
elsewhere.

Pooled database connections are checked on error, not each time one is handed out (a round trip
per request): the first database failure starts a check of the pool's idle connections in the
background, which drops those the outage broke, and a broken connection in use is dropped when it
is given back."""

from __future__ import annotations

import logging
import threading

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


_checking = threading.Lock()


def noted(exc: BaseException) -> str | None:
    """reason_for(exc); a database failure also starts a check of the pool's idle connections."""
    reason = reason_for(exc)
    if isinstance(exc, OperationalError | InterfaceError) and _checking.acquire(blocking=False):
        threading.Thread(target=_check_pool, name="db-pool-check", daemon=True).start()
    return reason


def _check_pool() -> None:
    """Off the request's path: a check of a connection to a database that is gone can wait for
    the network's timeout."""
    from django.db import connection

    try:
        pool = connection.pool
        if pool is not None:
            pool.check()
    except Exception as exc:  # the database may still be down: the next failure checks again
        logger.info("could not check the database pool: %s", exc)
    finally:
        _checking.release()


class OutageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        reason = noted(exc)
        if reason is None:
            return None
        logger.warning("503 for %s: %s (%s: %s)", request.path, reason, exc.__class__.__name__, exc)
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": reason}, status=503)
        else:
            response = HttpResponse(reason, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = "5"
        return response
