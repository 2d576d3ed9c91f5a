"""Time limits on a turn, on a real Celery worker whose model is a loopback server that sleeps: at
the soft limit the turn ends `error` and says why at once (not at the next stale-turn sweep); at
the hard limit the worker kills the process running it and the turn still ends `error` within
seconds, never left `running`; and either way the worker takes the next turn."""

import time

import pytest
from celery import current_app
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.services.turns import RUN_TURN_TASK
from routing.models import ChatModel, Provider
from tests.loopback import EndlessOpenAI, plan

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]
KEY_ENV = "LOOPBACK_MODELS_KEY"


@pytest.fixture
def models(monkeypatch):
    """Two models on loopback servers speaking OpenAI's wire format: `slow` answers after a minute,
    `fast` at once."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with EndlessOpenAI(delay_s=60, text="too late") as slow, EndlessOpenAI(delay_s=0.01, text="quick") as fast:
        for name, upstream in (("slow", slow), ("fast", fast)):
            provider = Provider.objects.create(
                name=f"loopback-{name}", kind="openai", base_url=upstream.url, api_key_env=KEY_ENV, timeout_s=120
            )
            ChatModel.objects.create(
                name=name, provider=provider, api_model=name, context_window=32000, max_output_tokens=1000
            )
        yield slow, fast


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


def submit(session, queue: str, model: str, text: str = "Explain the water cycle, step by step.") -> Turn:
    turn = services.turn_submit(session=session, text=text, model=model, enqueue=False)
    send(turn, queue)
    return turn


def send(turn: Turn, queue: str) -> None:
    """The job services.enqueue_turn sends, onto the worker's queue: with no time limits of its
    own, so the worker's apply, not this process's."""
    current_app.send_task(RUN_TURN_TASK, args=[str(turn.id)], queue=queue, time_limit=None, soft_time_limit=None)


def ended(turn: Turn, worker, timeout_s: float) -> Turn:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        turn.refresh_from_db()
        if turn.status == Turn.Status.COMPLETED:
            return turn
        time.sleep(0.2)
    raise AssertionError(f"turn {turn.id} still {turn.status} after {timeout_s} s:\n{worker.log_tail()}")


def assistant_text(turn: Turn) -> str:
    return Message.objects.get(turn=turn, role="assistant").text


def test_a_turn_past_its_soft_limit_ends_in_error_at_once_and_the_worker_takes_the_next(models, session, start_worker):
    worker, queue = start_worker(
        METNOS_TURN_SOFT_TIME_LIMIT_S="3", METNOS_TURN_HARD_TIME_LIMIT_S="30", **{KEY_ENV: "sk-test"}
    )
    slow_turn = submit(session, queue, "slow")
    slow_turn = ended(slow_turn, worker, timeout_s=25)

    assert (slow_turn.final_kind, slow_turn.error) == (
        "error",
        "time limit: the turn ran longer than 3 s and was stopped",
    )
    assert (slow_turn.completed_at - slow_turn.started_at).total_seconds() < 10, "at the soft limit, not the hard"
    assert assistant_text(slow_turn) == "The turn ran longer than 3 s and was stopped. Your message is saved."
    assert Message.objects.get(turn=slow_turn, role="user").text == "Explain the water cycle, step by step."

    next_turn = ended(submit(session, queue, "fast", "And the nitrogen cycle?"), worker, timeout_s=30)
    assert (next_turn.final_kind, assistant_text(next_turn)) == ("answer", "quick")


def test_a_turn_past_its_hard_limit_is_killed_and_still_ends_in_error_within_seconds(models, session, start_worker):
    """No soft limit: nothing in the turn's process can end it. The worker kills that process at
    the hard limit, and the turn is ended by another task, not left `running` for the sweep."""
    worker, queue = start_worker(
        METNOS_TURN_SOFT_TIME_LIMIT_S="0", METNOS_TURN_HARD_TIME_LIMIT_S="3", **{KEY_ENV: "sk-test"}
    )
    killed = ended(submit(session, queue, "slow"), worker, timeout_s=45)

    assert (killed.final_kind, killed.error) == ("error", "time limit: the turn ran longer than 3 s and was stopped")
    assert "Hard time limit (3s) exceeded" in worker.log_tail(20_000)
    assert assistant_text(killed) == "The turn ran longer than 3 s and was stopped. Your message is saved."

    next_turn = ended(submit(session, queue, "fast", "And the nitrogen cycle?"), worker, timeout_s=45)
    assert (next_turn.final_kind, assistant_text(next_turn)) == ("answer", "quick")
    # A second delivery of the killed turn's job (there is none: it was acknowledged) would not run it.
    assert Turn.objects.get(pk=killed.pk).final_kind == "error"


def test_a_soft_limit_that_a_step_swallows_still_ends_the_turn_as_stopped(planner_model, models, start_worker):
    """The limit's exception lands inside a shell step, whose executor reports any exception as a
    failed step and lets the plan go on: the turn still ends as stopped at its limit."""
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    session = services.session_create(owner=alice)
    services.session_set_yolo(session=session, on=True)  # the step runs without an approval
    planner_model.replies.append(plan(("run_shell", {"command": "sleep 20; echo late > late.txt", "timeout_s": 60})))
    _, fast = models
    worker, queue = start_worker(
        METNOS_TURN_SOFT_TIME_LIMIT_S="4", METNOS_TURN_HARD_TIME_LIMIT_S="40", METNOS_LOCAL_MODEL_URL=fast.url,
        METNOS_PROPOSER_MODEL="scripted", METNOS_FILLER_MODEL="scripted", SCRIPTED_KEY="sk-test",
    )  # fmt: skip
    turn = services.turn_submit(session=session, text="run sleep 20 and then write late.txt", enqueue=False)
    send(turn, queue)
    turn = ended(turn, worker, timeout_s=30)

    assert "executor run_shell crashed" in worker.log_tail(20_000), "the step swallowed the limit's exception"
    assert (turn.final_kind, turn.error) == ("error", "time limit: the turn ran longer than 4 s and was stopped")
    assert (turn.completed_at - turn.started_at).total_seconds() < 10


def test_a_pool_child_has_time_to_load_the_embedding_model_before_it_must_say_it_is_up():
    """A child forked to replace one killed at its hard limit loads MiniLM before it reports up
    (worker_process_init); billiard's 4 s default killed such children on a busy machine, over and
    over, while the turn waited to be ended."""
    from metnos_site.celery import app

    assert app.conf.worker_proc_alive_timeout >= 30
