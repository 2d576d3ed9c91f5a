"""Two web processes and two Celery workers behind haproxy (the configuration `make run` writes for
METNOS_WEB_WORKERS=2), on one Postgres and one Redis: every promise one process keeps holds
across them. Limits and budgets live in Redis, key revocations reach every process's cache, a
websocket on one process streams a turn another process enqueued, and killing a web process or a
worker loses nothing the ledger or the conversation owes."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from datetime import timedelta

import pytest

from agents import services
from agents.models import Message, Turn
from billing import ledger
from billing.models import LedgerEntry
from core.clock import now
from gateway import keys
from tests.e2e.client import ChatClient, run_turn
from tests.loopback import plan
from tests.minutes import early_in_a_minute
from tests.replicas import checks
from tests.replicas.cluster import PeakConnections, connect_args, wait_for

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-long-test-password"
RECEIVED = re.compile(r"Task agents\.tasks\.run_turn\[[0-9a-f-]+\] received")
POOL_MAX = 4  # METNOS_DB_POOL_MAX of every process in the cluster (conftest.cluster_env)


def test_an_rpm_limit_of_60_holds_across_both_web_processes(healed, upstream, alice):
    limited = keys.issue(name="sixty", user=alice, rpm=60)
    early_in_a_minute(needed_s=20)
    before, started = healed.served(), now()
    with PeakConnections(connect_args(healed.db), prefix="replica-web") as connections:
        answers = checks.burst([healed.url], limited.raw, calls=120, parallel=8)
    ended = now()
    served = [after - was for after, was in zip(healed.served(), before, strict=True)]

    assert started.replace(second=0, microsecond=0) == ended.replace(second=0, microsecond=0), "one window"
    assert checks.statuses(answers) == {200: 60, 429: 60}, checks.statuses(answers)
    assert all(a.body["error"]["code"] == "rate_limit_exceeded" for a in answers if a.status == 429)
    assert all(count >= 40 for count in served), f"haproxy did not spread the calls: {served}"
    # Each process's psycopg pool bounds its connections: at most pool size x processes.
    assert 0 < connections.peak <= POOL_MAX * len(healed.webs), connections.peak


def test_a_budget_for_five_calls_holds_with_fifty_spread_over_both(healed, upstream, alice):
    checks.budget_for_five_calls_holds(healed, upstream, alice)


def test_a_revoked_key_is_refused_by_both_processes_on_the_next_request(healed, upstream, alice):
    checks.revoked_key_is_refused_by_every_process(healed, upstream, alice)


def login(base: str) -> ChatClient:
    client = ChatClient(base, base.replace("http://", "ws://"))
    client.login("alice", PASSWORD)
    return client


def frames_until_completed(ws, timeout_s: float = 60.0) -> list[dict]:
    frames, deadline = [], time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        frame = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        frames.append(frame)
        if frame["type"] in ("turn.completed", "error"):
            return frames
    raise TimeoutError(f"no turn.completed; got {frames}")


def turns_received(worker) -> int:
    """Turns the worker has taken off the queue (Celery logs each task it receives)."""
    return len(RECEIVED.findall(worker.log_path.read_text(errors="replace")))


def test_a_websocket_on_one_process_streams_a_turn_the_other_enqueued(healed, alice):
    """B's websocket takes the message and enqueues the turn; a worker runs it; its frames reach
    A's websocket through the Redis channel layer; B's history API shows the same turn."""
    on_a, on_b = login(healed.web_url(0)), login(healed.web_url(1))
    session_id = on_a.create_session()
    ran_before = [turns_received(w) for w in healed.workers]
    with on_a.websocket(session_id) as watcher, on_b.websocket(session_id) as sender:
        sent = [frame for _, frame in run_turn(sender, "hello")]
        seen = frames_until_completed(watcher)

    assert sent[0]["type"] == "turn.started" and sent[-1]["type"] == "turn.completed", sent
    turn_id, text = sent[-1]["turn_id"], sent[-1]["text"]
    assert [f["type"] for f in seen if f.get("turn_id") == turn_id] == [f["type"] for f in sent]
    assert seen[-1]["text"] == text and text
    ran = [turns_received(w) - was for w, was in zip(healed.workers, ran_before, strict=True)]
    assert sorted(ran) == [0, 1], f"one worker ran the turn: {ran}"
    history = on_b.api("GET", f"/sessions/{session_id}/turns").json()  # a reload, on B
    assert [(m["role"], m["text"]) for m in history[0]["messages"]] == [("user", "hello"), ("assistant", text)]
    assert Turn.objects.get(pk=turn_id).status == Turn.Status.COMPLETED


def test_a_worker_killed_mid_turn_ends_that_turn_and_the_other_serves_the_next(healed, alice, planner_model):
    client = login(healed.url)
    session = services.session_create(owner=alice)
    services.session_set_yolo(session=session, on=True)  # the step runs without an approval
    session_id = str(session.id)
    planner_model.replies.append(plan(("run_shell", {"command": "sleep 30; echo late > late.txt", "timeout_s": 60})))
    time.sleep(1.1)  # the workers see the `scripted` model row (routing.registry checks every second)
    ran_before = [turns_received(w) for w in healed.workers]

    with client.websocket(session_id) as ws:
        ws.send(json.dumps({"type": "message", "text": "run sleep 30 and then write late.txt"}))
        running = wait_for(lambda: Turn.objects.filter(session_id=session_id, status=Turn.Status.RUNNING).first())
        assert running, "the turn never started"
        assert wait_for(lambda: planner_model.requests, timeout_s=30), "the plan was never proposed"
        time.sleep(2)  # its shell step is running
        busy = [i for i, w in enumerate(healed.workers) if turns_received(w) > ran_before[i]]
        assert len(busy) == 1, busy
        healed.kill_worker(busy[0])

        assert Turn.objects.get(pk=running.pk).status == Turn.Status.RUNNING, "the dead worker left it running"
        assert services.turns_fail_stale(older_than=timedelta(seconds=0)) == 1  # what beat's sweep does
        running.refresh_from_db()
        assert (running.status, running.final_kind) == ("completed", "error")
        assert "stopped before it finished" in Message.objects.get(turn=running, role="assistant").text

    other = 1 - busy[0]
    served_before = turns_received(healed.workers[other])
    with client.websocket(session_id) as ws:  # a fresh one: the old one still has the ended turn's frames
        frames = [frame for _, frame in run_turn(ws, "hello")]
    assert frames[-1]["type"] == "turn.completed" and frames[-1]["final_kind"] == "answer", frames
    assert turns_received(healed.workers[other]) == served_before + 1


def test_killing_a_web_process_mid_burst_loses_no_ledger_row_and_haproxy_routes_around_it(healed, upstream, alice):
    issued = keys.issue(name="steady", user=alice)
    upstream.delay_s = 0.2  # calls are in flight on the process when it dies
    killed_at: list[float] = []
    lock = threading.Lock()

    def kill_once(done: int) -> None:
        with lock:
            if done >= 40 and not killed_at:
                killed_at.append(time.monotonic())
                healed.kill_web(0)

    answers = checks.burst([healed.url], issued.raw, calls=200, parallel=12, on_progress=kill_once)
    ok = [a for a in answers if a.status == 200]
    failed = [a for a in answers if a.status != 200]

    assert killed_at and len(answers) == 200
    assert len(failed) <= 12, f"at most the calls in flight on the dead process fail: {checks.statuses(answers)}"
    # A call in flight on the killed process gets haproxy's 502/503/504, or, when the process died
    # after its headers went out, a response cut short (0: the client saw the connection end).
    assert all(a.status in (0, 502, 503, 504) for a in failed), [(a.status, a.body) for a in failed]
    assert all(a.status == 200 for a in answers if a.at > killed_at[0] + 2), "haproxy routes to the live process"
    assert healed.stats()["web1"]["status"].startswith("DOWN")

    rows = LedgerEntry.objects.filter(key_id=str(issued.key.pk))
    answered = {uuid.UUID(a.request_id.removeprefix("req_")) for a in ok}
    # Every answered call has its row: settled, or pending where the process died before settling.
    assert wait_for(lambda: rows.filter(id__in=answered).count() == len(answered), timeout_s=10)
    assert rows.count() >= len(upstream.requests) >= len(ok), "every call that reached the provider has a row"
    wait_for(lambda: rows.filter(status="ok").count() >= len(ok) - 12, timeout_s=10)
    time.sleep(1)  # the live process's settling thread is done
    assert set(rows.values_list("status", flat=True)) <= {"ok", "pending"}
    ledger.reap(older_than=timedelta(0))  # beat's reaper: the dead process's pending rows are billed
    assert set(rows.values_list("status", flat=True)) <= {"ok", "interrupted"}
    assert rows.filter(id__in=answered, status__in=["ok", "interrupted"]).count() == len(answered)
