"""Recurring tasks, set up from the conversation ("every morning at 8, summarise new files in
inbox/"). Each is a `RecurringTask` row plus a django-celery-beat PeriodicTask (so beat runs it,
and the admin shows it); each run submits the task's prompt as a new turn in the session it was
scheduled from, so its answer lands there like any other.

After the runtime seed: `times` is the task's lifetime (1 = once, N = at most N runs, empty =
forever) and it cancels itself after its last run; `grace_window_minutes` is how late a run may
still start (a run that waited longer, say while the worker was down, is skipped, not made up);
a task created after a moment never fires for it retroactively. The seven tools
(schedule/cancel/list/show/toggle/history/run_now_recurring) reach this module as `ctx.recurring`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

from agents.models import ChatSession, RecurringRun, RecurringTask
from agents.services import turns
from core.clock import now
from planner.executors.base import ExecutorError

TASK = "agents.tasks.run_recurring"
DAYS = {"monday": "1", "tuesday": "2", "wednesday": "3", "thursday": "4", "friday": "5", "saturday": "6",
        "sunday": "0", "lunedì": "1", "martedì": "2", "mercoledì": "3", "giovedì": "4", "venerdì": "5",
        "sabato": "6", "domenica": "0"}  # fmt: skip
PARTS_OF_DAY = {"morning": 8, "noon": 12, "afternoon": 15, "evening": 18, "night": 21, "midnight": 0}
FORMS = ("every N minutes", "every N hours", "every hour", "every day at HH:MM", "every morning at 8",
         "every monday at 9:30", "every weekday at 7", "cron: MIN HOUR DOM MON DOW")  # fmt: skip


@dataclass(frozen=True)
class Schedule:
    text: str
    crontab: dict | None = None  # minute, hour, day_of_week, day_of_month, month_of_year
    every_minutes: int | None = None

    def describe(self) -> str:
        if self.every_minutes:
            return f"every {self.every_minutes} minute(s)"
        c = self.crontab
        return f"cron {c['minute']} {c['hour']} {c['day_of_month']} {c['month_of_year']} {c['day_of_week']}"


def _clock(text: str, default_hour: int | None) -> tuple[int, int] | None:
    match = re.search(r"\b(?:at|alle|all')\s*(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?\b", text)
    if match:
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if match.group(3) == "pm" and hour < 12:
            hour += 12
        if match.group(3) == "am" and hour == 12:
            hour = 0
        return (hour, minute) if hour < 24 and minute < 60 else None
    return (default_hour, 0) if default_hour is not None else None


def parse_schedule(text: str) -> Schedule:
    """A schedule in words (English, some Italian) or cron; ExecutorError(invalid_args) otherwise."""
    raw = " ".join(str(text).lower().split())
    fail = ExecutorError("invalid_args", f"cannot read the schedule {text!r}; write it like: {'; '.join(FORMS)}")
    if raw.startswith("cron:"):
        fields = raw[5:].split()
        if len(fields) != 5 or not all(re.fullmatch(r"[\d*/,-]+", f) for f in fields):
            raise fail
        keys = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")
        return Schedule(text, crontab=dict(zip(keys, fields, strict=True)))
    if m := re.fullmatch(r"(?:every|ogni) (\d+) (minutes?|mins?|minuti|hours?|ore)", raw):
        n = int(m.group(1)) * (60 if m.group(2).startswith(("hour", "ore")) else 1)
        if not 1 <= n <= 60 * 24 * 7:
            raise fail
        return Schedule(text, every_minutes=n)
    if raw in ("every hour", "hourly", "ogni ora"):
        return Schedule(text, every_minutes=60)
    part = next((p for p in PARTS_OF_DAY if p in raw), None)
    at = _clock(raw, PARTS_OF_DAY[part] if part else None)
    day = next((d for name, d in DAYS.items() if name in raw), None)
    if at is None:
        raise fail
    hour, minute = at
    if day is not None:
        dow = day
    elif "weekday" in raw or "working day" in raw or "feriali" in raw:
        dow = "1-5"
    elif re.search(r"\b(every|each|ogni|daily|tutti i giorni)\b", raw) or part:
        dow = "*"
    else:
        raise fail
    return Schedule(text, crontab={"minute": str(minute), "hour": str(hour), "day_of_week": dow,
                                   "day_of_month": "*", "month_of_year": "*"})  # fmt: skip


def _summary(task: RecurringTask) -> dict:
    return {
        "name": task.name, "prompt": task.prompt, "schedule": task.schedule_text,
        "runs": task.runs_done, "times": task.times, "enabled": task.enabled,
        "status": task.status, "grace_window_minutes": task.grace_window_minutes,
        "last_run_at": task.last_run_at.isoformat() if task.last_run_at else None,
    }  # fmt: skip


class Recurring:
    """The executors' `ctx.recurring` for one user, scheduling into one of their sessions."""

    def __init__(self, session: ChatSession):
        self.session = session

    def _get(self, name: str) -> RecurringTask:
        mine = RecurringTask.objects.filter(owner_id=self.session.owner_id).exclude(status="cancelled")
        task = mine.filter(name=name).first()
        if task is None:
            names = [t.name for t in mine]
            raise ExecutorError("not_found", f"no recurring task {name!r}; yours: {', '.join(names) or 'none'}")
        return task

    @transaction.atomic
    def schedule(self, name: str, prompt: str, schedule: str, times: int | None = None, grace: int = 30) -> dict:
        parsed = parse_schedule(schedule)
        mine = RecurringTask.objects.filter(owner_id=self.session.owner_id).exclude(status="cancelled")
        if mine.filter(name=name).exists():
            raise ExecutorError("invalid_args", f"a recurring task named {name!r} exists; cancel it or pick another")
        if times is not None and times < 1:
            raise ExecutorError("invalid_args", "times must be 1 or more (leave it out for no limit)")
        task = RecurringTask.objects.create(
            owner_id=self.session.owner_id, session=self.session, name=name, prompt=prompt.strip(),
            schedule_text=parsed.text, times=times, grace_window_minutes=max(1, grace),
        )  # fmt: skip
        if parsed.every_minutes:
            minutes = IntervalSchedule.MINUTES
            every, _ = IntervalSchedule.objects.get_or_create(every=parsed.every_minutes, period=minutes)
            schedule_fields = {"interval": every}
        else:
            cron, _ = CrontabSchedule.objects.get_or_create(**parsed.crontab, timezone=settings.TIME_ZONE)
            schedule_fields = {"crontab": cron}
        task.periodic = PeriodicTask.objects.create(
            name=f"recurring {task.pk}: {name}"[:200], task=TASK, args=json.dumps([str(task.pk)]),
            start_time=now(), expire_seconds=task.grace_window_minutes * 60,
            description=f"{prompt[:150]} ({parsed.describe()})", **schedule_fields,
        )  # fmt: skip
        task.save(update_fields=["periodic"])
        return {"ok": True, **_summary(task), "when": parsed.describe()}

    def cancel(self, name: str) -> dict:
        task = self._get(name)
        end(task, "cancelled")
        return {"ok": True, **_summary(task)}

    def list(self) -> dict:
        tasks = RecurringTask.objects.filter(owner_id=self.session.owner_id).exclude(status="cancelled")
        entries = [_summary(t) for t in tasks.order_by("created_at")]
        return {"ok": True, "entries": entries, "count": len(entries)}

    def show(self, name: str) -> dict:
        return {"ok": True, **_summary(self._get(name))}

    def toggle(self, name: str, enabled: bool) -> dict:
        task = self._get(name)
        if task.status != "active":
            raise ExecutorError("invalid_args", f"{name!r} is {task.status}; it cannot be turned on again")
        task.enabled = enabled
        task.save(update_fields=["enabled"])
        if task.periodic_id:
            PeriodicTask.objects.filter(pk=task.periodic_id).update(enabled=enabled)
        return {"ok": True, **_summary(task)}

    def history(self, name: str) -> dict:
        task = self._get(name)
        runs = [{"at": r.ran_at.isoformat(), "status": r.status, "turn_id": str(r.turn_id) if r.turn_id else None,
                 "note": r.note} for r in task.runs.order_by("-ran_at")[:20]]  # fmt: skip
        return {"ok": True, "name": name, "entries": runs, "count": len(runs)}

    def run_now(self, name: str) -> dict:
        task = self._get(name)
        run = fire(task, manual=True)
        return {"ok": True, "name": name, "status": run.status, "turn_id": str(run.turn_id) if run.turn_id else None}


def end(task: RecurringTask, status: str) -> None:
    task.status, task.enabled = status, False
    task.save(update_fields=["status", "enabled"])
    if task.periodic_id:
        PeriodicTask.objects.filter(pk=task.periodic_id).delete()  # beat stops; the row's history stays


@transaction.atomic
def fire(task: RecurringTask, *, manual: bool = False) -> RecurringRun:
    """One run: the prompt becomes a new turn in the task's session. The last allowed run ends
    the task."""
    task = RecurringTask.objects.select_for_update().get(pk=task.pk)
    if task.status != "active" or (not task.enabled and not manual):
        return RecurringRun.objects.create(task=task, status="skipped", note=f"the task is {task.status}")
    turn = turns.turn_submit(session=task.session, text=task.prompt)
    run = RecurringRun.objects.create(task=task, turn=turn, status="started", note="run now" if manual else "")
    task.runs_done += 1
    task.last_run_at = now()
    task.save(update_fields=["runs_done", "last_run_at"])
    if task.times is not None and task.runs_done >= task.times:
        end(task, "done")
    return run
