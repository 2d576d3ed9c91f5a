"""Health endpoints, each 200 when its checks pass and 503 naming what failed.

GET /healthz: every moving part (database, Redis, a Celery worker, the model server), for people.
GET /healthz/ready: only what this web process needs to serve a request (database, Redis), for load
balancers and Kubernetes' readiness probe: a missing worker or model server must not take every
web replica out of rotation, since the pages still load and say what is down.
GET /healthz/live: that the process answers at all, touching nothing else, for the liveness probe:
an outage of Postgres or Redis must not make Kubernetes restart healthy web processes."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from metnos_site.celery import app as celery_app


class CheckFailed(Exception):
    pass


def check_database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            if cursor.fetchone() is None:
                raise CheckFailed("the pgvector extension is not installed in the database")
    except DatabaseError as exc:
        raise CheckFailed(f"{exc.__class__.__name__}: {str(exc).strip()[:200]}") from None


def check_redis() -> None:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise CheckFailed(f"{exc.__class__.__name__}: {exc}") from None
    finally:
        client.close()


def check_worker() -> None:
    try:
        replies = celery_app.control.ping(timeout=1.0, limit=1)
    except Exception as exc:  # kombu raises transport-specific errors
        raise CheckFailed(f"broker unreachable: {exc.__class__.__name__}") from None
    if not replies:
        raise CheckFailed("no Celery worker answered a ping within 1 s")


def check_model() -> None:
    """The local model server: the platform's offline default, so it must be up."""
    url = settings.METNOS_LOCAL_MODEL_URL.rstrip("/")
    try:
        response = httpx.get(f"{url}/v1/models", timeout=2.0)
    except httpx.HTTPError as exc:
        raise CheckFailed(f"model server {url} unreachable: {exc.__class__.__name__}") from None
    if response.status_code != 200:
        raise CheckFailed(f"model server {url} answered HTTP {response.status_code}")


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "redis": check_redis,
    "worker": check_worker,
    "model": check_model,
}


READY_CHECKS: dict[str, Callable[[], None]] = {"database": check_database, "redis": check_redis}


def _report(checks: dict[str, Callable[[], None]]) -> JsonResponse:
    results: dict[str, str] = {}
    for name, check in checks.items():
        try:
            check()
            results[name] = "ok"
        except CheckFailed as exc:
            results[name] = f"fail: {exc}"
    failing = [name for name, result in results.items() if result != "ok"]
    body = {"status": "ok" if not failing else "fail", "checks": results}
    if failing:
        body["failing"] = failing
    return JsonResponse(body, status=200 if not failing else 503)


@require_GET
def healthz(request):
    return _report(CHECKS)


@require_GET
def ready(request):
    return _report(READY_CHECKS)


@require_GET
def live(request):
    return JsonResponse({"status": "ok"})
