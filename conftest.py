"""Shared fixtures. Everything here is real: Postgres, Redis, Celery, daphne, llama.cpp."""

from __future__ import annotations

import os
import sys
import threading
import uuid
from dataclasses import dataclass

import pytest
import redis

from tests import live

# A statement that waits on a lock for two minutes fails with Postgres's own error, naming the
# wait, instead of hanging the run. Set before any connection; daphne, Celery and beat started
# by the tests inherit it.
os.environ.setdefault("PGOPTIONS", "-c lock_timeout=120s")

WATCHDOG_S = 200


def _report_database_waits(test_id: str) -> None:
    """Print what every connection to the test database is doing, and who blocks whom."""
    import psycopg
    from django.db import connection

    db = connection.settings_dict
    try:
        with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres") as conn:
            rows = conn.execute(
                "SELECT pid, application_name, state, wait_event_type, wait_event, pg_blocking_pids(pid),"
                " now() - xact_start, left(query, 200) FROM pg_stat_activity WHERE datname = %s",
                [db["NAME"]],
            ).fetchall()
    except Exception as exc:  # the report is a diagnostic; it must not add a failure of its own
        rows = [f"could not read pg_stat_activity: {exc}"]
    lines = "\n".join(f"  {row}" for row in rows)
    sys.stderr.write(f"\n[watchdog] {test_id} still running after {WATCHDOG_S} s; database sessions:\n{lines}\n")


@pytest.fixture(autouse=True)
def watchdog(request):
    """A test still running after WATCHDOG_S seconds prints the database's sessions and locks
    (pytest-timeout fails it later; faulthandler prints the Python stacks)."""
    timer = threading.Timer(WATCHDOG_S, _report_database_waits, [request.node.nodeid])
    timer.daemon = True
    timer.start()
    yield
    timer.cancel()


@pytest.fixture(scope="session", autouse=True)
def celery_test_queue():
    """Tasks enqueued by tests go to a queue of their own, so a `make run` worker on this
    machine never picks them up; the queue is removed afterwards."""
    from django.conf import settings

    from metnos_site.celery import app

    queue = f"metnos-test-{uuid.uuid4().hex[:8]}"
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    yield queue
    app.conf.task_default_queue = previous
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete(queue)
    client.close()


@pytest.fixture(scope="session")
def availability_prefix(celery_test_queue):
    return f"{celery_test_queue}:avail"


@pytest.fixture(scope="session")
def workspaces_root(tmp_path_factory):
    return tmp_path_factory.mktemp("workspaces")


@pytest.fixture(autouse=True)
def routing_state(request, settings, availability_prefix, workspaces_root):
    """Each test starts with the default models and a clean availability state. Transactional
    tests flush the database, seeded rows included, so the defaults are seeded again."""
    settings.METNOS_AVAILABILITY_PREFIX = availability_prefix
    settings.METNOS_BILLING_PREFIX = f"{availability_prefix}:billing:{uuid.uuid4().hex[:8]}"
    settings.METNOS_ROUTING_FILE = ""
    settings.METNOS_WORKSPACES_ROOT = str(workspaces_root)  # tests never write into var/
    if request.node.get_closest_marker("django_db") is not None:
        from routing.defaults import seed
        from routing.models import ChatModel, Provider
        from routing.registry import invalidate_local

        request.getfixturevalue("_django_db_helper")
        seed(Provider, ChatModel)
        invalidate_local()
        from billing import defaults, pricing
        from billing.models import ModelPrice, PriceVersion

        defaults.seed(PriceVersion, ModelPrice)
        pricing.invalidate()
    yield
    from routing.availability import availability

    availability.reset()


@pytest.fixture(scope="session")
def model_server():
    """The llama.cpp server with the shipped GGUF, on a free port. Yields its base URL."""
    port = live.free_port()
    server = live.start_model_server(port)
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def local_model(settings, model_server):
    settings.METNOS_LOCAL_MODEL_URL = model_server
    return model_server


@dataclass
class Stack:
    http: str
    ws: str
    queue: str
    web: live.LiveProcess
    worker: live.LiveProcess
    env: dict


@pytest.fixture(scope="session")
def live_stack(django_db_setup, django_db_blocker, model_server, celery_test_queue, workspaces_root):
    """daphne + a Celery worker on the test database, talking to the live model server.
    Tests using it need `@pytest.mark.django_db(transaction=True)` so their rows are visible."""
    from django.conf import settings
    from django.db import connection

    from metnos_site.env import database_url

    # Its own queue: turns that in-process tests enqueue are not picked up by this worker.
    queue = f"{celery_test_queue}-live"
    env = {
        # The test database, with the password and options (sslmode) DATABASE_URL gave, if any.
        "DATABASE_URL": database_url(connection.settings_dict),
        "METNOS_LOCAL_MODEL_URL": model_server,
        "METNOS_CELERY_QUEUE": queue,
        "METNOS_AVAILABILITY_PREFIX": f"{celery_test_queue}:avail",
        "METNOS_ROUTING_FILE": "",
        "METNOS_WORKSPACES_ROOT": str(workspaces_root),
    }
    port = live.free_port()
    web = live.start_web(port, env)
    worker = live.start_worker(env, queue)
    yield Stack(
        http=f"http://127.0.0.1:{port}", ws=f"ws://127.0.0.1:{port}", queue=queue, web=web, worker=worker, env=env
    )
    worker.stop()
    web.stop()
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete(queue)
    client.close()


@pytest.fixture
def start_worker(celery_test_queue, workspaces_root, settings):
    """Celery workers of the test's own, on the test database, each on a queue of its own:
    `start_worker(concurrency=1, **env)` returns (worker, queue); `env` adds to the worker's
    environment (limits, provider keys). Stopped, and their queues removed, after the test. Tests
    using it need `@pytest.mark.django_db(transaction=True)` so the worker sees their rows."""
    from django.db import connection

    from metnos_site.env import database_url

    started: list[tuple[live.LiveProcess, str]] = []

    def start(concurrency: int = 1, **env: str) -> tuple[live.LiveProcess, str]:
        queue = f"{celery_test_queue}-{uuid.uuid4().hex[:8]}"
        base = {
            "DATABASE_URL": database_url(connection.settings_dict),
            "METNOS_CELERY_QUEUE": queue,
            "METNOS_AVAILABILITY_PREFIX": settings.METNOS_AVAILABILITY_PREFIX,
            "METNOS_ROUTING_FILE": "",
            "METNOS_WORKSPACES_ROOT": str(workspaces_root),
        }
        argv = [str(live.BIN / "celery"), "-A", "metnos_site", "worker", "--loglevel", "INFO",
                "--concurrency", str(concurrency), "--queues", queue, "--without-gossip", "--without-mingle",
                "-n", f"{queue}@%h"]  # fmt: skip
        worker = live.LiveProcess(f"worker-{queue}", argv, {**base, **env})
        started.append((worker, queue))
        worker.wait_log("ready.")
        return worker, queue

    yield start
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    for worker, queue in started:
        worker.stop()
        client.delete(queue)
    client.close()


@pytest.fixture
def planner_model(settings, monkeypatch, db):
    """A 'scripted' model on a loopback OpenAI-compatible server, used by the proposer and the
    fillers: tests append the replies (tests.loopback.plan) each branch needs."""
    from routing.models import ChatModel, Provider
    from tests.loopback import LoopbackProvider

    monkeypatch.setenv("SCRIPTED_KEY", "sk-test")
    with LoopbackProvider() as upstream:
        provider = Provider.objects.create(
            name="scripted", kind="openai", base_url=upstream.url, api_key_env="SCRIPTED_KEY"
        )
        ChatModel.objects.create(
            name="scripted",
            provider=provider,
            api_model="scripted",
            supports_structured_output=True,
            supports_tools=False,  # ReAct asks it for JSON actions; a test turns native tools on
            context_window=32000,
            max_output_tokens=1000,
        )
        settings.METNOS_PROPOSER_MODEL = "scripted"
        settings.METNOS_FILLER_MODEL = "scripted"
        # The scripted model stands for the default local proposer: no shadow (planner.memory.
        # shadow), unless a test asks for it.
        settings.METNOS_MEMORY_SHADOW = "off"
        yield upstream
