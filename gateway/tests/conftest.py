"""The gateway's test fixtures: a live daphne, loopback upstreams for OpenAI and Anthropic, a key."""

import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from gateway import keys
from routing.availability import Availability
from routing.models import Provider
from tests import live
from tests.loopback import LoopbackProvider


def settled(rows, count: int, timeout_s: float = 5.0) -> list:
    """The rows once `count` of them have settled: a stream's row settles as its last chunk goes
    out, which can be just after the client has read it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = [r for r in rows.all() if r.status != "pending"]
        if len(done) >= count:
            return done
        time.sleep(0.05)
    return list(rows.all())


@pytest.fixture
def upstreams():
    with LoopbackProvider() as oa, LoopbackProvider() as an:
        for name, server in (("openai", oa), ("anthropic", an)):
            provider = Provider.objects.get(name=name)
            provider.base_url = server.url
            provider.timeout_s = 5
            provider.save()
        yield oa, an


@pytest.fixture
def gateway_availability(celery_test_queue):
    """What the live gateway knows of providers' health (its own Redis prefix), clean per test."""
    state = Availability(prefix=f"{celery_test_queue}:gw-avail")
    state.reset()
    return state


@pytest.fixture
def gateway_env() -> dict:
    """More environment for the live gateway; a test module overrides it."""
    return {}


@pytest.fixture
def gateway(upstreams, gateway_availability, model_server, gateway_env):
    db = connection.settings_dict
    env = {
        "METNOS_LOCAL_MODEL_URL": model_server,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "OPENAI_API_KEY": "sk-upstream",
        "ANTHROPIC_API_KEY": "sk-ant-upstream",
        "METNOS_AVAILABILITY_PREFIX": gateway_availability.prefix,
        "METNOS_ROUTING_FILE": "",
        **gateway_env,
    }
    port = live.free_port()
    web = live.start_web(port, env)
    yield f"http://127.0.0.1:{port}"
    web.stop()


@pytest.fixture
def key():
    user = get_user_model().objects.create_user(username="dev", password="pw-dev-123456789")
    return keys.issue(name="laptop", user=user)
