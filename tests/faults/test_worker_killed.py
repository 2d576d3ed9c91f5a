"""A Celery worker killed (SIGKILL) while a plan step runs: the turn never stays "running". The
periodic sweep ends it as an error with a visible message, the user's message is kept, and a
redelivered task does not run the turn again (turn_claim is a conditional update)."""

import os
import signal
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn
from tests import live
from tests.loopback import plan

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def wait_for(check, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_a_worker_killed_mid_step_leaves_an_errored_turn_not_a_running_one(
    planner_model, celery_test_queue, workspaces_root, model_server
):
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    session = services.session_create(owner=alice)
    services.session_set_yolo(session=session, on=True)  # the step runs without an approval
    planner_model.replies.append(plan(("run_shell", {"command": "sleep 30; echo late > late.txt", "timeout_s": 60})))

    db = connection.settings_dict
    queue = f"{celery_test_queue}-faults"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    env = {
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "METNOS_LOCAL_MODEL_URL": model_server,
        "METNOS_CELERY_QUEUE": queue,
        "METNOS_AVAILABILITY_PREFIX": settings.METNOS_AVAILABILITY_PREFIX,
        "METNOS_ROUTING_FILE": "",
        "METNOS_WORKSPACES_ROOT": str(workspaces_root),
        "METNOS_PROPOSER_MODEL": "scripted",
        "METNOS_FILLER_MODEL": "scripted",
        "SCRIPTED_KEY": "sk-test",
    }
    worker = live.start_worker(env, queue)
    try:
        turn = services.turn_submit(session=session, text="run sleep 30 and then write late.txt", enqueue=False)
        run_turn.apply_async(args=[str(turn.id)], queue=queue)
        assert wait_for(lambda: Turn.objects.get(pk=turn.pk).status == Turn.Status.RUNNING), worker.log_tail()
        time.sleep(2)  # the plan is proposed and its shell step is running
        os.killpg(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait(10)
    finally:
        worker.stop()
        client.delete(queue)
        client.close()

    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RUNNING, "the dead worker left it running"
    assert services.turns_fail_stale(older_than=timedelta(seconds=0)) == 1  # what beat's sweep does
    turn.refresh_from_db()
    assert (turn.status, turn.final_kind) == ("completed", "error")
    assert "stopped before it finished" in Message.objects.get(turn=turn, role="assistant").text
    assert Message.objects.get(turn=turn, role="user").text == "run sleep 30 and then write late.txt"
    # A redelivery of the task (acks_late) finds the turn already ended and does not run it again.
    run_turn(str(turn.id))
    assert Turn.objects.get(pk=turn.pk).final_kind == "error" and len(planner_model.requests) == 1
