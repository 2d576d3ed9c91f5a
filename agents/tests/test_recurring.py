"""Recurring tasks: scheduled from the tools, kept as django-celery-beat PeriodicTasks, fired as new
turns in the user's session, with a lifetime (`times`) and a grace window."""

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from agents import recurring, services
from agents.models import Message, RecurringTask
from agents.services.preferences import preference_set
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
        ("every monday and friday at 9", ("0", "9", "1,5")),
        ("every weekend at 10", ("0", "10", "0,6")),
        ("ogni lunedi alle 9", ("0", "9", "1")),
        ("ogni giorno alle ore 18", ("0", "18", "*")),
    ],
)
def test_schedules_in_words_or_cron(text, cron):
    c = recurring.parse_schedule(text).crontab
    assert (c["minute"], c["hour"], c["day_of_week"]) == cron


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("every evening at 7", "19"),
        ("ogni sera alle 7", "19"),
        ("every day at 7 in the evening", "19"),
        ("ogni pomeriggio alle 4", "16"),
        ("every afternoon at 3pm", "15"),
        ("every night at 11", "23"),
        ("every night at 2", "2"),
        ("every morning at 7", "7"),
        ("ogni mattina alle 7", "7"),
        ("every evening at 7am", "7"),
        ("tutte le sere alle 8", "20"),
    ],
)
def test_an_hour_said_with_an_afternoon_evening_or_night_is_after_noon(text, hour):
    assert recurring.parse_schedule(text).crontab["hour"] == hour


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("every midnight", "0"),
        ("every afternoon", "15"),
        ("every noon", "12"),
        ("every night", "21"),
        ("every evening", "18"),
        ("ogni mezzanotte", "0"),
        ("ogni mezzogiorno", "12"),
        ("ogni pomeriggio", "15"),
        ("ogni notte", "21"),
    ],
)
def test_a_part_of_the_day_is_matched_as_a_whole_word(text, hour):
    assert recurring.parse_schedule(text).crontab["hour"] == hour


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("cron: 99 * * * *", "minute"),
        ("cron: */0 * * * *", "minute"),
        ("cron: 0 24 * * *", "hour"),
        ("cron: 0 8 32 * *", "day of month"),
        ("cron: 0 8 * 13 *", "month"),
        ("cron: 0 8 * * funday", "day of week"),
        ("cron: 0 8 * * 7", "day of week"),  # python-crontab takes it, celery's parser (beat) does not
        ("cron: 0 8 * * 5-1", "day of week"),  # and the other way round
    ],
)
def test_it_refuses_a_cron_field_that_beat_could_not_run(text, field):
    with pytest.raises(ExecutorError, match=f"the {field} \\(") as caught:
        recurring.parse_schedule(text)
    assert caught.value.error_class == "invalid_args"


def test_a_cron_with_lists_ranges_steps_and_names_is_accepted():
    c = recurring.parse_schedule("cron: 0,30 8-18/2 1 jan-jun mon-fri").crontab
    assert (c["minute"], c["hour"], c["day_of_month"], c["month_of_year"], c["day_of_week"]) == (
        "0,30",
        "8-18/2",
        "1",
        "jan-jun",
        "mon-fri",
    )


def test_a_bad_cron_saves_nothing(session):
    result = tool(session, "schedule_recurring", name="bad", prompt="x", schedule="cron: 99 * * * *")
    assert result["error_class"] == "invalid_args" and "minute (0-59) field '99'" in result["error"]
    assert not RecurringTask.objects.exists() and not PeriodicTask.objects.filter(task=recurring.TASK).exists()
    assert not CrontabSchedule.objects.filter(minute="99").exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("every morning at 8", "every day at 08:00"),
        ("every monday at 9:30", "every Monday at 09:30"),
        ("every weekday at 7", "every weekday at 07:00"),
        ("every monday and friday at 9", "every Monday and Friday at 09:00"),
        ("every weekend at 10", "every Saturday and Sunday at 10:00"),
        ("every 15 minutes", "every 15 minutes"),
        ("every 2 hours", "every 2 hours"),
        ("every hour", "every hour"),
        ("cron: 5 * * * *", "at minute 5 of every hour"),
        ("cron: 0 * * * *", "every hour"),
        ("cron: */15 * * * *", "every 15 minutes"),
        ("cron: 0 */6 * * *", "every 6 hours"),
        ("cron: 0 9 1 * *", "on day 1 of every month at 09:00"),
        ("cron: 30 7 * * mon,wed,fri", "every Monday, Wednesday and Friday at 07:30"),
        # */7 restarts each hour, so "every 7 minutes" would be untrue; no simple words fit these
        ("cron: */7 * * * *", "cron */7 * * * *"),
        ("cron: 0,30 8-18 * * *", "cron 0,30 8-18 * * *"),
        ("cron: 0 8 * 1 *", "cron 0 8 * 1 *"),
    ],
)
def test_schedules_are_described_in_plain_words(text, words):
    assert recurring.parse_schedule(text).describe() == words


def test_the_description_names_a_zone_other_than_utc():
    assert recurring.parse_schedule("every day at 8", "Europe/Rome").describe() == "every day at 08:00 (Europe/Rome)"
    assert recurring.parse_schedule("every day at 8", "UTC").describe() == "every day at 08:00"
    # An interval is the same in every zone.
    assert recurring.parse_schedule("every 15 minutes", "Europe/Rome").describe() == "every 15 minutes"


def test_a_schedule_runs_in_the_time_zone_of_the_user_who_set_it(session):
    preference_set(user=session.owner, time_zone="Europe/Rome")
    made = tool(session, "schedule_recurring", name="news", prompt="summarise the news", schedule="every day at 8")
    assert made["when"] == made["schedule"] == "every day at 08:00 (Europe/Rome)"
    cron = PeriodicTask.objects.get(pk=RecurringTask.objects.get(name="news").periodic_id).crontab
    cron.refresh_from_db()
    assert (cron.hour, cron.minute, cron.timezone) == ("8", "0", ZoneInfo("Europe/Rome"))
    # Beat's next run after noon UTC on 10 January is 08:00 in Rome, 07:00 UTC, the next day.
    last, delta, _ = cron.schedule.remaining_delta(datetime(2026, 1, 10, 12, 0, tzinfo=UTC))
    assert (last + delta).astimezone(UTC) == datetime(2026, 1, 11, 7, 0, tzinfo=UTC)
    assert [e["schedule"] for e in tool(session, "list_recurring")["entries"]] == ["every day at 08:00 (Europe/Rome)"]
    shown = tool(session, "show_recurring", name="news")
    assert (shown["schedule"], shown["written"]) == ("every day at 08:00 (Europe/Rome)", "every day at 8")

    # Someone else, with no preference saved, schedules in UTC.
    bob = get_user_model().objects.create_user(username="bob", password="pw-bob-123456789")
    theirs = services.session_create(owner=bob)
    assert tool(theirs, "schedule_recurring", name="news", prompt="x", schedule="every day at 8")["when"] == (
        "every day at 08:00"
    )
    beat = PeriodicTask.objects.get(pk=RecurringTask.objects.get(owner=bob).periodic_id)
    assert beat.crontab.timezone == ZoneInfo("UTC") and beat.crontab_id != cron.pk


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
    assert made["ok"] and made["when"] == made["schedule"] == "every day at 08:00"
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
    assert tool(session, "show_recurring", name="inbox digest")["schedule"] == "every day at 08:00", "read again"
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
