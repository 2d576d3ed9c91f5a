"""Fixtures of the replica tests: a cluster of two web processes and two workers behind haproxy
(one per test module), an OpenAI-speaking loopback upstream the web processes' gateway calls, and
PgBouncer. Everything skips, saying why, where haproxy or PgBouncer is not installed
(scripts/ensure_test_tools.sh installs both from Debian)."""

from __future__ import annotations

import time
import uuid

import pytest
from django.contrib.auth import get_user_model

from routing.models import Provider
from tests.loopback import LoopbackProvider, Reply
from tests.replicas import cluster as replicas

# A web process reloads prices when they change, checking at most every 5 s (billing.pricing); the
# database is flushed and seeded again between tests, so a test whose calls priced against the
# last test's rows would write ledger rows pointing at deleted prices. Wait that long after them.
PRICE_RELOAD_S = 5.2
_last_gateway_use = {"at": 0.0}


class SteadyUpstream(LoopbackProvider):
    """An OpenAI-speaking upstream that answers every chat completion alike, after `delay_s`,
    reporting `usage`. Tests set both."""

    def __init__(self) -> None:
        super().__init__()
        self.delay_s = 0.0
        self.usage = {"prompt_tokens": 5, "completion_tokens": 2}
        outer = self

        class Replies(list):
            def pop(self, index=-1):
                choice = {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
                body = {"model": "gpt-5", "choices": [choice], "usage": dict(outer.usage)}
                return Reply(json_body=body, delay_s=outer.delay_s)

            def __bool__(self):
                return True

        self.replies = Replies()


@pytest.fixture(scope="module")
def steady_upstream():
    with SteadyUpstream() as upstream:
        yield upstream


@pytest.fixture
def upstream(steady_upstream):
    """The upstream, reset, as this test's OpenAI provider (seeded again for each test). The web
    processes see the edit within a second (routing.registry) and fresh prices within 5 s."""
    steady_upstream.requests.clear()
    steady_upstream.delay_s, steady_upstream.usage = 0.0, {"prompt_tokens": 5, "completion_tokens": 2}
    provider = Provider.objects.get(name="openai")
    provider.base_url, provider.timeout_s = steady_upstream.url, 10
    provider.save()
    time.sleep(max(1.1, PRICE_RELOAD_S - (time.monotonic() - _last_gateway_use["at"])))
    yield steady_upstream
    _last_gateway_use["at"] = time.monotonic()


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="a-long-test-password")


@pytest.fixture(scope="module")
def cluster(django_db_setup, celery_test_queue, workspaces_root):
    """Two web processes and two workers behind haproxy, straight to Postgres. Tests that kill
    one of them find it started again by the next test (`healed`)."""
    if replicas.HAPROXY is None:
        pytest.skip(replicas.NO_HAPROXY)
    from django.db import connection

    queue = f"{celery_test_queue}-replicas-{uuid.uuid4().hex[:6]}"
    env = replicas.cluster_env(celery_test_queue, workspaces_root, queue)
    yield from replicas.start_cluster("replica", dict(connection.settings_dict), env, webs=2, workers=2)


@pytest.fixture
def healed(cluster):
    cluster.heal()
    return cluster


@pytest.fixture(scope="module")
def bouncer(django_db_setup):
    """PgBouncer (transaction pooling, at most 3 connections to Postgres) before the test database."""
    if replicas.PGBOUNCER is None:
        pytest.skip(replicas.NO_PGBOUNCER)
    from django.db import connection

    started = replicas.PgBouncer(dict(connection.settings_dict), pool_size=3)
    yield started
    started.stop()
