"""The llama.cpp server killed (SIGKILL) while it streams an answer: the turn ends `error` with
"model unreachable" and keeps what was streamed out of its answer; the failure is in the
availability state. The next turn finds nothing listening, which marks the provider down at
once, and is answered by the next slot of the routing chain, in the same turn; the turn after
routes there straight away."""

import os
import signal
import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn
from billing.models import LedgerEntry
from routing.availability import availability
from tests import live
from tests.loopback import Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]
POLICY = """
global_default: scripted
rules:
  - name: stories-on-the-local-model
    when: {text_matches: "story"}
    model: local-fast
"""


def streamed(text: str) -> Reply:
    chunks = [f'{{"choices": [{{"index": 0, "delta": {{"content": "{word} "}}}}]}}' for word in text.split()]
    chunks += ['{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}',
               '{"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 5}}', "[DONE]"]  # fmt: skip
    return Reply(sse_events=chunks)


def test_a_model_server_killed_mid_stream_ends_the_turn_and_the_next_turn_fails_over(settings, tmp_path, planner_model):
    policy = tmp_path / "routing.yaml"
    policy.write_text(POLICY)
    settings.METNOS_ROUTING_FILE = str(policy)
    port = live.free_port()
    server = live.start_model_server(port)
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{port}"
    owner = get_user_model().objects.create_user(username="storyteller", password="pw-story-123456")
    session = services.session_create(owner=owner)
    try:
        turn = services.turn_submit(session=session, text="Write a very long story about a dragon.", enqueue=False)

        def work():
            try:
                run_turn(str(turn.id))
            finally:
                connection.close()

        runner = threading.Thread(target=work)
        runner.start()
        # Kill once the model is generating: its ledger row is open and it has had time to stream.
        deadline = time.monotonic() + 60
        while not LedgerEntry.objects.filter(turn_id=turn.id).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.4)
        os.killpg(server.proc.pid, signal.SIGKILL)
        runner.join(60)
    finally:
        server.stop()
    turn.refresh_from_db()
    assert (turn.status, turn.final_kind) == ("completed", "error")
    answer = Message.objects.get(turn=turn, role="assistant").text
    assert "unreachable" in answer.lower()
    call = LedgerEntry.objects.get(turn_id=turn.id)
    assert call.status == "error" and "unreachable" in call.error and call.model == "local-fast"

    planner_model.replies.append(streamed("A dragon slept."))
    second = services.turn_submit(session=session, text="Another story, please.", enqueue=False)
    run_turn(str(second.id))
    second.refresh_from_db()
    assert second.final_kind == "answer"
    assert Message.objects.get(turn=second, role="assistant").text.strip() == "A dragon slept."
    assert second.trace["failover"]["from"] == "local-fast" and second.trace["failover"]["to"] == "scripted"
    assert "connection refused" in (availability.unavailable_reason("local-fast", "local") or "")

    planner_model.replies.append(streamed("And woke up."))
    third = services.turn_submit(session=session, text="One more story.", enqueue=False)
    run_turn(str(third.id))
    third.refresh_from_db()
    assert third.final_kind == "answer" and "failover" not in third.trace
    assert LedgerEntry.objects.filter(turn_id=third.id).get().model == "scripted"  # local was not tried
    assert Turn.objects.filter(session=session).count() == 3
