"""Recurring tasks: scheduled from the tools, kept as django-celery-beat PeriodicTasks, fired as new
turns in the user's session, with a lifetime (`times`) and a grace window."""

import json

import pytest
from django.contrib.auth import get_user_model
from django_celery_beat.models import PeriodicTask

from agents import recurring, services
from agents.models import Message, RecurringTask
from agents.tasks import run_recurring, run_turn
from planner.catalog import catalog
from planner.executors.base import ExecContext, ExecutorError
from planner.invoke import invoke
from tests.loopback import plan

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice, title="inbox")


def tool(session, executor, **args):
    ctx = ExecContext(workspace=services.workspace_path(session.workspace), recurring=recurring.Recurring(session))
    result, _ = invoke(catalog().get(executor), args, ctx)
    return result


@pytest.mark.parametrize(
    ("text", "cron"),
    [
        ("every day at 08:00", ("0", "8", "*")),
        ("every morning", ("0", "8", "*")),
        ("every morning at 8", ("0", "8", "*")),
        ("every monday at 9:30", ("30", "9", "1")),
        ("every weekday at 7pm", ("0", "19", "1-5")),
        ("ogni giorno alle 18", ("0", "18", "*")),
        ("cron: */5 * * * 1-5", ("*/5", "*", "1-5")),
    ],
)
def test_schedules_in_words_or_cron(text, cron):
    c = recurring.parse_schedule(text).crontab
    assert (c["minute"], c["hour"], c["day_of_week"]) == cron


def test_an_unreadable_schedule_says_how_to_write_one():
    assert recurring.parse_schedule("every 15 minutes").every_minutes == 15
    assert recurring.parse_schedule("every 2 hours").every_minutes == 120
    for bad in ("sometimes", "every day at 25:00", "cron: * *", "every 0 minutes"):
        with pytest.raises(ExecutorError, match="write it like: every N minutes") as caught:
            recurring.parse_schedule(bad)
        assert caught.value.error_class == "invalid_args"


def test_the_tools_schedule_list_show_toggle_run_and_cancel(session):
    made = tool(session, "schedule_recurring", name="inbox digest", prompt="summarise the new files in inbox/",
                schedule="every morning at 8", times=2)  # fmt: skip
    assert made["ok"] and made["when"] == "cron 0 8 * * *"
    task = RecurringTask.objects.get(name="inbox digest")
    beat = PeriodicTask.objects.get(pk=task.periodic_id)
    assert (beat.task, json.loads(beat.args), beat.expire_seconds) == (
        "agents.tasks.run_recurring",
        [str(task.pk)],
        1800,
    )
    assert (beat.crontab.minute, beat.crontab.hour, beat.enabled) == ("0", "8", True)
    assert tool(session, "schedule_recurring", name="inbox digest", prompt="x", schedule="every hour")[
        "error_class"
    ] == ("invalid_args")
    assert tool(session, "schedule_recurring", name="bad", prompt="x", schedule="now and then")["error_class"] == (
        "invalid_args"
    )
    assert [e["name"] for e in tool(session, "list_recurring")["entries"]] == ["inbox digest"]
    assert tool(session, "show_recurring", name="inbox digest")["prompt"] == "summarise the new files in inbox/"

    paused = tool(session, "toggle_recurring", name="inbox digest", enabled=False)
    assert paused["enabled"] is False and not PeriodicTask.objects.get(pk=task.periodic_id).enabled
    assert run_recurring(str(task.pk)) == "skipped", "beat's message for a paused task does nothing"
    tool(session, "toggle_recurring", name="inbox digest", enabled=True)

    # A run: the prompt becomes a new turn in the session it was scheduled from.
    assert run_recurring(str(task.pk)) == "started"
    turn = session.turns.order_by("-created_at").first()
    assert Message.objects.get(turn=turn, role="user").text == "summarise the new files in inbox/"
    now = tool(session, "run_now_recurring", name="inbox digest")
    assert now["status"] == "started" and now["turn_id"]
    # `times=2`: that was the last run, so the task ended and beat no longer holds it.
    task.refresh_from_db()
    assert (task.runs_done, task.status, task.enabled) == (2, "done", False)
    assert not PeriodicTask.objects.filter(name__startswith=f"recurring {task.pk}").exists()
    history = tool(session, "history_recurring", name="inbox digest")
    assert [e["status"] for e in history["entries"]] == ["started", "started", "skipped"]

    tool(session, "schedule_recurring", name="ping", prompt="what time is it?", schedule="every 15 minutes")
    assert tool(session, "cancel_recurring", name="ping")["status"] == "cancelled"
    assert tool(session, "show_recurring", name="ping")["error_class"] == "not_found"


def test_recurring_tasks_are_per_user(session):
    tool(session, "schedule_recurring", name="mine", prompt="hello", schedule="every hour")
    bob = get_user_model().objects.create_user(username="bob", password="pw-bob-123456789")
    theirs = services.session_create(owner=bob)
    assert tool(theirs, "list_recurring")["count"] == 0
    for executor in ("show_recurring", "cancel_recurring", "run_now_recurring", "history_recurring"):
        assert tool(theirs, executor, name="mine")["error_class"] == "not_found"
    assert RecurringTask.objects.get(name="mine").status == "active"


def test_a_turn_can_schedule_from_the_conversation(session, planner_model):
    planner_model.replies.append(plan(("schedule_recurring", {"name": "inbox", "prompt": "summarise inbox/",
                                                              "schedule": "every day at 8"})))  # fmt: skip
    turn = services.turn_submit(session=session, text="every morning at 8, summarise new files in inbox/")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "answer", turn.trace
    assert RecurringTask.objects.get(name="inbox").session_id == session.id
