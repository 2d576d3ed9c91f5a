"""Postgres, then Redis, goes away under a running web process and comes back. Each is reached
through a loopback forwarder (tests.proxy) that the test cuts and restores, so to daphne the
service is down while the test's own connections are untouched. While it is down requests get
503 with the reason (JSON for /api/, each shape's error for /v1/, /healthz names it); once it is
back the same process serves again, with no restart."""

import json
import time
from decimal import Decimal
from urllib.parse import urlsplit

import httpx
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from websockets.exceptions import ConnectionClosed

from billing.models import LedgerEntry
from gateway import keys
from routing.models import Provider
from tests import live
from tests.loopback import LoopbackProvider, Reply
from tests.proxy import Proxy

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-outage-123456789"
CHAT = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 20}
REPLY = {"model": "gpt-5", "choices": [{"index": 0, "message": {"role": "assistant", "content": "back"},
         "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}  # fmt: skip


def database_url(port: int) -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@127.0.0.1:{port}/{db['NAME']}"


def logged_in(base: str, username: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=30)
    http.get("/accounts/login/")
    answer = http.post(
        "/accounts/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": http.cookies["csrftoken"]},
    )
    assert answer.status_code == 302, answer.text[:300]
    return http


def until(check, timeout_s: float = 30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.3)
    raise AssertionError(f"not within {timeout_s} s")


@pytest.fixture
def upstream():
    with LoopbackProvider() as server:
        provider = Provider.objects.get(name="openai")
        provider.base_url = server.url
        provider.save()
        yield server


def test_postgres_down_gives_503_with_the_reason_then_the_same_process_recovers(upstream):
    get_user_model().objects.create_user(username="alice", password=PASSWORD)
    raw = keys.issue(name="outage", user=get_user_model().objects.get(username="alice")).raw
    with Proxy(int(connection.settings_dict["PORT"])) as proxy:
        port = live.free_port()
        web = live.start_web(port, {"DATABASE_URL": database_url(proxy.port), "OPENAI_API_KEY": "sk-x"})
        base = f"http://127.0.0.1:{port}"
        try:
            http = logged_in(base, "alice")
            assert http.get("/api/sessions").status_code == 200

            proxy.cut()
            started = time.monotonic()
            down = http.get("/api/sessions")
            assert down.status_code == 503 and "database is unavailable" in down.json()["detail"]
            assert down.headers["Retry-After"]
            assert time.monotonic() - started < 15  # the pool's wait is bounded
            health = httpx.get(f"{base}/healthz", timeout=30)
            assert health.status_code == 503 and "database" in health.text.lower()
            gateway = httpx.post(f"{base}/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {raw}"},
                                 timeout=30)  # fmt: skip
            assert gateway.status_code == 503
            assert "database is unavailable" in gateway.json()["error"]["message"]
            assert upstream.requests == []  # nothing was called that could not be billed

            proxy.restore()
            until(lambda: http.get("/api/sessions").status_code == 200)
            upstream.replies.append(Reply(json_body=REPLY))
            answer = httpx.post(f"{base}/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {raw}"},
                                timeout=30)  # fmt: skip
            assert answer.status_code == 200 and answer.json()["choices"][0]["message"]["content"] == "back"
            assert web.proc.poll() is None  # the same daphne, never restarted
        finally:
            web.stop()
    # Settled before daphne exited, the call that answered just before the stop included.
    assert list(LedgerEntry.objects.values_list("status", flat=True)) == ["ok"]


def test_redis_down_gives_503_with_the_reason_then_the_same_process_recovers(upstream):
    alice = get_user_model().objects.create_user(username="alice", password=PASSWORD)
    # A rate limit and a budget: both are counted in Redis, so without Redis no call is let through.
    raw = keys.issue(name="outage", user=alice, rpm=100, budget_usd=Decimal("5")).raw
    redis_url = urlsplit(settings.REDIS_URL)
    with Proxy(redis_url.port or 6379) as proxy:
        port = live.free_port()
        env = {
            "DATABASE_URL": database_url(int(connection.settings_dict["PORT"])),
            "REDIS_URL": f"redis://127.0.0.1:{proxy.port}{redis_url.path or '/0'}",
            "OPENAI_API_KEY": "sk-x",
        }
        web = live.start_web(port, env)
        base = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {raw}"}
        try:
            upstream.replies.append(Reply(json_body=REPLY))
            assert httpx.post(f"{base}/v1/chat/completions", json=CHAT, headers=headers, timeout=30).status_code == 200

            proxy.cut()
            down = httpx.post(f"{base}/v1/chat/completions", json=CHAT, headers=headers, timeout=30)
            assert down.status_code == 503 and "Redis is unavailable" in down.json()["error"]["message"]
            health = httpx.get(f"{base}/healthz", timeout=30)
            assert health.status_code == 503 and "redis" in health.text.lower()
            assert len(upstream.requests) == 1

            proxy.restore()
            upstream.replies.append(Reply(json_body=REPLY))
            until(lambda: httpx.post(f"{base}/v1/chat/completions", json=CHAT, headers=headers, timeout=30).status_code
                  == 200)  # fmt: skip
            assert web.proc.poll() is None
        finally:
            web.stop()


def test_redis_down_under_the_chat_loses_no_turn(workspaces_root):
    """The web's broker connection, then its channel layer, goes away. A message sent while the
    broker is down is saved and the user is told; once it is back the beat sweep queues it again
    and the answer reaches the open websocket. With the channel layer down a new websocket is
    told why and closed (the page reconnects); every turn is in the database throughout."""
    from agents.models import Turn
    from agents.tasks import sweep_stale_turns
    from tests.e2e.client import ChatClient, run_turn

    alice = get_user_model().objects.create_user(username="alice", password=PASSWORD)
    redis_url = urlsplit(settings.REDIS_URL)
    queue = f"outage-{alice.pk}-{int(time.time())}"
    direct = {
        "DATABASE_URL": database_url(int(connection.settings_dict["PORT"])),
        "METNOS_CELERY_QUEUE": queue,
        "METNOS_WORKSPACES_ROOT": str(workspaces_root),
    }
    with Proxy(redis_url.port or 6379) as broker, Proxy(redis_url.port or 6379) as layer:
        via = lambda proxy: f"redis://127.0.0.1:{proxy.port}{redis_url.path or '/0'}"  # noqa: E731
        port = live.free_port()
        web = live.start_web(port, {**direct, "REDIS_URL": via(layer), "CELERY_BROKER_URL": via(broker)})
        worker = live.start_worker(direct, queue)
        client = ChatClient(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}")
        try:
            client.login("alice", PASSWORD)
            session = client.create_session()
            with client.websocket(session) as ws:
                assert run_turn(ws, "hello")[-1][1]["final_kind"] == "answer"

                broker.cut()
                ws.send(json.dumps({"type": "message", "text": "thanks!"}))
                frames = []  # turn.started (through the channel layer) and the notice, in either order
                while {f["type"] for f in frames} != {"turn.started", "error"}:
                    frames.append(json.loads(ws.recv(timeout=30)))
                notice = next(f for f in frames if f["type"] == "error")
                assert "job queue is unreachable" in notice["message"]
                saved = Turn.objects.get(id=notice["turn_id"])
                assert saved.status == "queued" and saved.enqueue_failed

                broker.restore()
                sweep_stale_turns.apply_async(queue=queue)  # what beat sends every minute
                done = json.loads(ws.recv(timeout=60))
                while done["type"] != "turn.completed":
                    done = json.loads(ws.recv(timeout=60))
                assert done["turn_id"] == str(saved.id) and done["final_kind"] == "answer"
                saved.refresh_from_db()
                assert saved.status == "completed" and not saved.enqueue_failed

            layer.cut()
            with client.websocket(session) as ws:
                assert "live updates are unavailable" in json.loads(ws.recv(timeout=30))["message"]
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=30)
                # 1013 (try again later) as sent; 1011 when the layer's receive loop fails first
                assert closed.value.rcvd.code in (1011, 1013)
            layer.restore()
            until(lambda: client.api("GET", f"/sessions/{session}/turns").status_code == 200)
            turns = client.api("GET", f"/sessions/{session}/turns").json()
            assert [t["final_kind"] for t in turns] == ["answer", "answer"]
            assert web.proc.poll() is None and worker.proc.poll() is None
        finally:
            worker.stop()
            web.stop()
