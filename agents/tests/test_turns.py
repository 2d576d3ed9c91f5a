"""Turn execution by the Celery task body, run in-process against real services."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn, sweep_stale_turns
from core.clock import now
from core.models import TraceEvent
from routing.models import RoutingPattern
from tests.live import free_port
from tests.loopback import completion, plan

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


def test_a_turn_ends_in_error_when_the_model_server_is_down(session, settings):
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    turn = services.turn_submit(session=session, text="hello?")

    run_turn(str(turn.id))

    turn.refresh_from_db()
    assert turn.status == Turn.Status.COMPLETED
    assert turn.final_kind == "error"
    assert "unreachable" in turn.error
    reply = Message.objects.get(turn=turn, role="assistant").text
    assert "model is unreachable" in reply
    assert Message.objects.get(turn=turn, role="user").text == "hello?", "the user's message is kept"
    events = list(TraceEvent.objects.filter(turn_id=turn.id).values_list("type", flat=True))
    assert "error" in events and events[-1] == "turn.completed"
    call = TraceEvent.objects.get(turn_id=turn.id, type="llm.call_completed")
    assert call.payload["status"] == "error"


def test_an_unknown_model_ends_the_turn_with_a_clear_error(session):
    turn = services.turn_submit(session=session, text="hi", model="no-such-model")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "error"
    assert "unknown model 'no-such-model'" in turn.error


def test_a_redelivered_task_does_not_run_the_turn_twice(session, settings):
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{free_port()}"
    turn = services.turn_submit(session=session, text="once")
    run_turn(str(turn.id))
    run_turn(str(turn.id))
    assert Message.objects.filter(turn=turn, role="assistant").count() == 1
    assert TraceEvent.objects.filter(turn_id=turn.id, type="turn.started").count() == 1


def test_the_periodic_sweep_ends_turns_whose_worker_died(session, settings):
    settings.METNOS_TURN_STALE_SECONDS = 60
    settings.METNOS_TURN_HARD_TIME_LIMIT_S = 30  # a running turn is stale past both
    stuck = Turn.objects.create(session=session, status=Turn.Status.RUNNING, started_at=now() - timedelta(minutes=5))
    fresh = Turn.objects.create(session=session, status=Turn.Status.RUNNING, started_at=now())
    lost = Turn.objects.create(session=session)
    Turn.objects.filter(id=lost.id).update(created_at=now() - timedelta(minutes=5))

    assert sweep_stale_turns() == 2

    stuck.refresh_from_db()
    fresh.refresh_from_db()
    lost.refresh_from_db()
    assert (stuck.status, stuck.final_kind) == (Turn.Status.COMPLETED, "error")
    assert (lost.status, lost.final_kind) == (Turn.Status.COMPLETED, "error")
    assert fresh.status == Turn.Status.RUNNING


def test_the_sweep_is_scheduled_for_celery_beat(settings):
    assert settings.CELERY_BEAT_SCHEDULE["sweep-stale-turns"]["task"] == "agents.tasks.sweep_stale_turns"


def test_asking_the_same_thing_again_lowers_the_previous_turns_routing_score(session, settings):
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{free_port()}"
    first = services.turn_submit(session=session, text="Tell me a joke about cats")
    run_turn(str(first.id))
    assert RoutingPattern.objects.get(turn_id=first.id).retried is False
    second = services.turn_submit(session=session, text="  tell me a joke about cats ")
    run_turn(str(second.id))
    assert RoutingPattern.objects.get(turn_id=first.id).retried is True


def test_every_turn_records_its_routing_outcome_with_the_chain(session, settings):
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{free_port()}"
    turn = services.turn_submit(session=session, text="tell me a joke")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.route["winner"] == "local-fast" and len(turn.route["chain"]) == 7
    pattern = RoutingPattern.objects.get(turn_id=turn.id)
    assert (pattern.model_name, pattern.final_kind, pattern.score) == ("local-fast", "error", 0.0)


def test_a_reply_to_a_turn_that_asked_resumes_it_without_holding_a_worker(session, planner_model):
    asking = services.turn_submit(session=session, text="read the last line of a file")
    run_turn(str(asking.id))  # the task ends: nothing waits in a worker
    asking.refresh_from_db()
    assert asking.final_kind == "ask" and asking.pending["question"] == "Which file should I read?"
    assert asking.layer == "decision" and not planner_model.requests, "a missing object is asked, not planned"

    services.workspace_path(session.workspace).joinpath("a.md").write_text("one\ntwo\n")
    planner_model.replies.append(
        plan(("read_files", {"paths": ["a.md"], "tail_lines": 1}), final="${step1.entries.0.content}")
    )
    reply = services.turn_submit(session=session, text="a.md")
    assert reply.answers_id == asking.id, "the next message answers the waiting turn"
    run_turn(str(reply.id))
    reply.refresh_from_db()
    assert (reply.final_kind, reply.trace["resumed_from"]) == ("answer", str(asking.id))
    assert Message.objects.get(turn=reply, role="assistant").text == "two"

    later = services.turn_submit(session=session, text="thanks")
    assert later.answers_id is None, "an answered turn is not answered twice"
    with pytest.raises(services.InvalidInput, match="not waiting"):
        services.turn_submit(session=session, text="again", answers=asking)


def test_a_workspace_in_react_mode_runs_its_turns_in_react(session, planner_model):
    react = services.workspace_create(owner=session.owner, name="react", mode="react")
    session = services.session_create(owner=session.owner, workspace=react)
    services.workspace_path(react).joinpath("a.md").write_text("one\ntwo\n")
    planner_model.replies.extend(
        [
            completion('{"tool": "read_files", "args": {"paths": ["a.md"]}}'),
            completion('{"final": "It says one, two."}'),
        ]
    )
    turn = services.turn_submit(session=session, text="read a.md")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, turn.layer, turn.model_calls) == ("answer", "react", 2)
