"""At most METNOS_MAX_RUNNING_TURNS_PER_USER turns of one user run at once. The next one is not
dropped: it stays queued, its session gets a `turn.queued` frame saying why, and it starts as soon
as one of them ends. Two workers claiming at the same moment cannot both pass the limit (the claim
takes the owner's advisory lock before it counts)."""

import asyncio
import base64
import json
import threading
import time
from datetime import timedelta

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import connection

from agents import services
from agents.models import Turn
from agents.push import session_group
from agents.services import turns
from agents.services.turns import RUN_TURN_TASK
from core.clock import now
from routing.models import ChatModel, Provider
from tests.loopback import EndlessOpenAI
from tests.security.test_turn_limits import send

pytestmark = pytest.mark.django_db(transaction=True)
KEY_ENV = "LOOPBACK_MODELS_KEY"


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


def running(user) -> int:
    return Turn.objects.filter(session__owner=user, status=Turn.Status.RUNNING).count()


class Frames:
    """The frames the worker pushes to some sessions, read from the channel layer as the chat's
    websocket consumer reads them."""

    def __init__(self, sessions):
        self.layer = get_channel_layer()
        self.channel = async_to_sync(self.layer.new_channel)()
        for session in sessions:
            async_to_sync(self.layer.group_add)(session_group(session.id), self.channel)

    def next_of_type(self, kind: str, timeout_s: float = 10.0) -> dict:
        async def receive():
            while True:
                message = await self.layer.receive(self.channel)
                if message["frame"]["type"] == kind:
                    return message["frame"]

        async def within():
            return await asyncio.wait_for(receive(), timeout_s)

        return async_to_sync(within)()


@pytest.mark.live
def test_a_users_fourth_concurrent_turn_queues_and_then_runs(alice, start_worker, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with EndlessOpenAI(delay_s=4, text="done") as upstream:
        provider = Provider.objects.create(
            name="loopback-slow", kind="openai", base_url=upstream.url, api_key_env=KEY_ENV, timeout_s=60
        )
        ChatModel.objects.create(name="slow", provider=provider, api_model="slow", context_window=32000,
                                 max_output_tokens=1000)  # fmt: skip
        worker, queue = start_worker(concurrency=4, METNOS_MAX_RUNNING_TURNS_PER_USER="3", **{KEY_ENV: "sk-test"})
        sessions = [services.session_create(owner=alice) for _ in range(4)]
        frames = Frames(sessions)
        submitted = []
        for n, session in enumerate(sessions):
            turn = services.turn_submit(session=session, text=f"Tell me fact number {n} about rivers.", model="slow",
                                        enqueue=False)  # fmt: skip
            send(turn, queue)
            submitted.append(turn)

        most, held, deadline = 0, None, time.monotonic() + 90
        while time.monotonic() < deadline:
            most = max(most, running(alice))
            waiting = Turn.objects.filter(pk__in=[t.pk for t in submitted], status="queued", enqueue_failed=True)
            held = held or waiting.first()
            if Turn.objects.filter(pk__in=[t.pk for t in submitted], status="completed").count() == 4:
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the turns did not all end:\n{worker.log_tail()}")

    assert most == 3, "never more than the limit at once"
    assert held is not None, "the fourth waited, queued"
    told = frames.next_of_type("turn.queued")
    assert told == {"type": "turn.queued", "turn_id": str(held.id), "position": 1, "running": 3, "limit": 3}
    ended = {t.pk: t for t in Turn.objects.filter(pk__in=[t.pk for t in submitted])}
    assert {t.final_kind for t in ended.values()} == {"answer"}, [t.error for t in ended.values()]
    first_slot_freed = min(t.completed_at for pk, t in ended.items() if pk != held.pk)
    assert ended[held.pk].started_at >= first_slot_freed, "it started once a slot was free, not before"


def claim(turn: Turn, start: threading.Barrier, claimed: list) -> None:
    """In a thread of its own, so on a database connection of its own."""
    try:
        start.wait()
        claimed.append(turns.turn_claim(turn_id=turn.id, per_user_limit=1))
    finally:
        connection.close()


def test_two_claims_at_once_cannot_both_pass_the_limit(alice):
    """Each round: two queued turns, two threads (two database connections) claiming them at the
    same instant under a limit of one. Exactly one runs; the other is held."""
    for _ in range(5):
        pair = [services.turn_submit(session=services.session_create(owner=alice), text="hi", enqueue=False)
                for _ in range(2)]  # fmt: skip
        start, claimed = threading.Barrier(2), []
        threads = [threading.Thread(target=claim, args=(turn, start, claimed)) for turn in pair]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(turn is None for turn in claimed) == [False, True]
        assert running(alice) == 1
        assert Turn.objects.filter(pk__in=[t.pk for t in pair], status="queued", enqueue_failed=True).count() == 1
        Turn.objects.filter(session__owner=alice).update(status=Turn.Status.COMPLETED)


def test_a_waiting_turn_is_queued_again_when_a_slot_frees_and_is_not_swept_as_stale(alice, settings, celery_test_queue):
    settings.METNOS_MAX_RUNNING_TURNS_PER_USER = 3
    session = services.session_create(owner=alice)
    busy = [Turn.objects.create(session=session, status=Turn.Status.RUNNING, started_at=now()) for _ in range(3)]
    waiting = services.turn_submit(session=session, text="one more", enqueue=False)
    Turn.objects.filter(pk=waiting.pk).update(created_at=now() - timedelta(hours=1))
    assert turns.turn_claim(turn_id=waiting.id, per_user_limit=3) is None
    bob = get_user_model().objects.create_user(username="bob", password="pw-bob-123456")
    bobs = services.turn_submit(session=services.session_create(owner=bob), text="hi", enqueue=False)
    assert turns.turn_claim(turn_id=bobs.id, per_user_limit=3) is not None, "the limit is per user"

    # Older than any stale threshold, but its owner's turns run: it waits for their slot.
    assert turns.turns_fail_stale(older_than=timedelta(0), running_older_than=timedelta(hours=2)) == 0
    assert Turn.objects.get(pk=waiting.pk).status == Turn.Status.QUEUED

    assert turns.turn_stop(turn_id=busy[0].id, error="stopped", text="stopped")  # a slot frees
    assert jobs_for(waiting, settings, celery_test_queue) == 1, "queued again for a worker"
    waiting.refresh_from_db()
    assert waiting.status == Turn.Status.QUEUED and not waiting.enqueue_failed
    assert turns.turn_claim(turn_id=waiting.id, per_user_limit=3) is not None


def jobs_for(turn: Turn, settings, queue: str) -> int:
    """How many run_turn jobs for `turn` wait on the test queue (taken off it: no worker runs them)."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    found = 0
    try:
        for raw in client.lrange(queue, 0, -1):
            message = json.loads(raw)
            body = message["body"]
            if message["properties"].get("body_encoding") == "base64":
                body = base64.b64decode(body)
            if json.loads(body)[0] == [str(turn.id)] and message["headers"]["task"] == RUN_TURN_TASK:
                found += 1
                client.lrem(queue, 1, raw)
    finally:
        client.close()
    return found
