"""The websocket consumer, in-process over the real Redis channel layer and real Postgres."""

import asyncio
import json
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from agents import services
from agents.models import Message, Turn
from agents.routing import websocket_urlpatterns
from metnos_site.asgi import application
from routing.models import RoutingPattern

pytestmark = pytest.mark.django_db(transaction=True)

router = URLRouter(websocket_urlpatterns)


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


@pytest.fixture
def session(alice):
    return services.session_create(owner=alice)


def communicator(session_id, user) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(router, f"/ws/sessions/{session_id}/")
    comm.scope["user"] = user
    return comm


def run(coro_fn, *args):
    """Run a scenario on a fresh event loop; one that is stuck fails after a minute. Tasks the
    scenario leaves (a refused consumer still waiting on the channel layer) are cancelled here,
    repeatedly if one swallows a cancellation, so closing the loop cannot wait on them forever."""

    async def bounded():
        try:
            return await asyncio.wait_for(coro_fn(*args), 60)
        finally:
            await _finish_leftover_tasks()

    return async_to_sync(bounded)()


async def _finish_leftover_tasks(rounds: int = 10) -> None:
    for _ in range(rounds):
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        if not left:
            return
        for task in left:
            task.cancel()
        await asyncio.wait(left, timeout=0.5)
    for task in (t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()):
        sys.stderr.write(f"a task ignored {rounds} cancellations: {task!r}\n")
        task.print_stack(file=sys.stderr)


def test_an_anonymous_websocket_is_refused(session):
    async def scenario():
        connected, code = await communicator(session.id, AnonymousUser()).connect()
        return connected, code

    connected, code = run(scenario)
    assert not connected and code == 4401


def test_another_users_session_is_refused(session):
    mallory = get_user_model().objects.create_user(username="mallory", password="pw-mallory-123456")

    async def scenario():
        return await communicator(session.id, mallory).connect()

    connected, code = run(scenario)
    assert not connected and code == 4404


def test_a_websocket_without_an_allowed_origin_is_refused(session):
    async def scenario():
        comm = WebsocketCommunicator(
            application, f"/ws/sessions/{session.id}/", headers=[(b"origin", b"http://evil.example")]
        )
        return await comm.connect()

    connected, _ = run(scenario)
    assert not connected


def test_bad_frames_get_an_error_frame_and_the_connection_stays_usable(session, alice, settings):
    settings.METNOS_WS_MAX_FRAME_BYTES = 64 * 1024

    async def scenario():
        comm = communicator(session.id, alice)
        connected, _ = await comm.connect()
        assert connected
        replies = []
        for frame in ("{not json", json.dumps({"type": "dance"}), json.dumps([1, 2]), "x" * (64 * 1024 + 1)):
            await comm.send_to(text_data=frame)
            replies.append(await comm.receive_json_from(timeout=5))
        await comm.send_to(bytes_data=b"\x00\x01")
        replies.append(await comm.receive_json_from(timeout=5))
        await comm.send_json_to({"type": "message", "text": "   "})
        replies.append(await comm.receive_json_from(timeout=5))
        # Still usable: a good message after all that is accepted.
        await comm.send_json_to({"type": "message", "text": "hello"})
        started = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return replies, started

    replies, started = run(scenario)
    assert [r["type"] for r in replies] == ["error"] * 6
    assert "not valid JSON" in replies[0]["message"]
    assert "unknown frame type 'dance'" in replies[1]["message"]
    assert "larger than 65536 bytes" in replies[3]["message"]
    assert "binary frames" in replies[4]["message"]
    assert "empty" in replies[5]["message"]
    assert started["type"] == "turn.started"


def test_a_message_stores_the_turn_and_the_users_message(session, alice):
    async def scenario():
        comm = communicator(session.id, alice)
        await comm.connect()
        await comm.send_json_to({"type": "message", "text": "What is 2+2?"})
        frame = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return frame

    frame = run(scenario)
    turn = Turn.objects.get(id=frame["turn_id"])
    assert turn.session_id == session.id and turn.status == Turn.Status.QUEUED
    assert Message.objects.get(turn=turn, role="user").text == "What is 2+2?"


def test_cancel_of_an_unknown_turn_is_an_error(session, alice):
    async def scenario():
        comm = communicator(session.id, alice)
        await comm.connect()
        await comm.send_json_to({"type": "cancel", "turn_id": "nope"})
        frame = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return frame

    assert run(scenario) == {"type": "error", "message": "no such turn in this session"}


def test_feedback_on_a_turn_is_stored_and_rescores_its_routing_outcome(session, alice):
    turn = Turn.objects.create(session=session, status=Turn.Status.COMPLETED, final_kind="answer")
    RoutingPattern.objects.create(
        fingerprint=[0.0] * 23 + [1.0], model_name="local-fast", score=1.0, final_kind="answer", turn_id=turn.id
    )

    async def scenario():
        comm = communicator(session.id, alice)
        await comm.connect()
        await comm.send_json_to({"type": "feedback", "turn_id": str(turn.id), "value": "meh"})
        bad = await comm.receive_json_from(timeout=5)
        await comm.send_json_to({"type": "feedback", "turn_id": str(turn.id), "value": "down"})
        await comm.send_json_to({"type": "cancel", "turn_id": str(turn.id)})  # a reply shows the feedback was handled
        after = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return bad, after

    bad, after = run(scenario)
    assert "feedback must be one of up, down, wrong_plan" in bad["message"]
    assert after["message"] == "turn already completed"
    turn.refresh_from_db()
    assert turn.feedback == "down"
    assert RoutingPattern.objects.get(turn_id=turn.id).score == 0.2


def test_an_answer_to_a_turn_that_is_not_waiting_is_an_error(session, alice):
    turn = Turn.objects.create(session=session, status=Turn.Status.COMPLETED, final_kind="answer")

    async def scenario():
        comm = communicator(session.id, alice)
        await comm.connect()
        await comm.send_json_to({"type": "answer", "turn_id": str(turn.id), "text": "notes/a.md"})
        frame = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return frame

    frame = run(scenario)
    assert frame["type"] == "error" and "not waiting" in frame["message"]
    assert not Turn.objects.filter(answers=turn).exists()


def test_slash_cost_answers_with_the_sessions_spend_per_turn_and_no_turn(session, alice):
    from billing.models import LedgerEntry
    from core.clock import now

    turn = Turn.objects.create(session=session)
    LedgerEntry.objects.create(
        created_at=now(), status="ok", model="sonnet", provider="anthropic", provider_kind="anthropic",
        api_model="claude-sonnet-4-5", cost_usd="0.01230000", role="planner", session_id=session.id, turn_id=turn.id,
    )  # fmt: skip

    async def scenario():
        comm = communicator(session.id, alice)
        await comm.connect()
        await comm.send_json_to({"type": "message", "text": "/cost"})
        frame = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return frame

    frame = run(scenario)
    assert frame["type"] == "command.result" and "$0.01230000" in frame["text"] and "turn 1: sonnet" in frame["text"]
    assert Turn.objects.filter(session=session).count() == 1, "a command is not a turn"


def test_model_commands_pin_and_unpin_a_model_and_unknown_commands_suggest(session, alice):
    async def scenario(texts):
        comm = communicator(session.id, alice)
        await comm.connect()
        replies = []
        for text in texts:
            await comm.send_json_to({"type": "message", "text": text})
            replies.append((await comm.receive_json_from(timeout=5))["text"])
        await comm.disconnect()
        return replies

    pinned, shown, unknown_model, typo, listing, help_text = run(
        scenario, ["/model sonnet", "/model", "/model gpt-9", "/modle x", "/models", "/help"]
    )
    assert pinned.startswith("Pinned claude-sonnet") and "ANTHROPIC_API_KEY" in pinned
    session.refresh_from_db()
    assert session.sticky_model.startswith("claude-sonnet") and session.sticky_model in shown
    assert "unknown model 'gpt-9'" in unknown_model and session.sticky_model.startswith("claude-sonnet")
    assert "Did you mean /model" in typo and "local-fast" in listing and "/cost" in help_text
    assert run(scenario, ["/model -"])[0].startswith("Unpinned")
    session.refresh_from_db()
    assert session.sticky_model == "" and Turn.objects.filter(session=session).count() == 0
