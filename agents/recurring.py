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

from celery.schedules import ParseException
from celery.schedules import crontab as celery_crontab
from django.core.exceptions import ValidationError
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

from agents.models import ChatSession, RecurringRun, RecurringTask
from agents.services import turns
from agents.services.preferences import preference_for
from core.clock import now
from planner.executors.base import ExecutorError
from planner.text import whole

TASK = "agents.tasks.run_recurring"
DAYS = {"monday": "1", "tuesday": "2", "wednesday": "3", "thursday": "4", "friday": "5", "saturday": "6",
        "sunday": "0", "lunedì": "1", "martedì": "2", "mercoledì": "3", "giovedì": "4", "venerdì": "5",
        "sabato": "6", "domenica": "0"}  # fmt: skip
PARTS_OF_DAY = {"morning": 8, "noon": 12, "afternoon": 15, "evening": 18, "night": 21, "midnight": 0,
                "mattina": 8, "mattino": 8, "mezzogiorno": 12, "pomeriggio": 15, "sera": 18, "notte": 21,
                "mezzanotte": 0}  # fmt: skip
# "every evening at 7" means 19:00. After midnight a night is already the small hours: "every
# night at 2" is 02:00, not 14:00.
_PM_FROM = {"afternoon": 1, "evening": 1, "night": 5, "pomeriggio": 1, "sera": 1, "notte": 5}
FORMS = ("every N minutes", "every N hours", "every hour", "every day at HH:MM", "every morning at 8",
         "every evening at 7", "every monday at 9:30", "every weekday at 7", "cron: MIN HOUR DOM MON DOW")  # fmt: skip
CRON_FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")
_CRON_NAMES = {"minute": "minute (0-59)", "hour": "hour (0-23)", "day_of_month": "day of month (1-31)",
               "month_of_year": "month (1-12)", "day_of_week": "day of week (0-6, Sunday is 0)",
               "timezone": "time zone"}  # fmt: skip
WEEKDAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")

# Whole words only: "night" inside "midnight", "noon" inside "afternoon" once read 21:00 and 12:00.
# A plural ("mondays", «le sere») and an Italian day without its accent («lunedi») count too.
_DAY_FORMS = {form: dow for name, dow in DAYS.items()
              for form in {name, name.replace("ì", "i"), *((name + "s",) if name.endswith("day") else ())}}  # fmt: skip
_DAY = whole("|".join(map(re.escape, _DAY_FORMS)))
_PART_FORMS = {**{p: p for p in PARTS_OF_DAY}, **{p + "s": p for p in ("morning", "afternoon", "evening", "night")},
               "mattine": "mattina", "pomeriggi": "pomeriggio", "sere": "sera", "notti": "notte"}  # fmt: skip
_PART = whole("|".join(map(re.escape, _PART_FORMS)))
_WEEKDAYS = whole(r"weekdays?|working days?|(?:giorni )?feriali|(?:giorni )?lavorativi")
_WEEKEND = whole(r"weekends?|fine settimana")
_EVERY = whole(r"every|each|ogni|daily|tutti i|tutte le")
_CLOCK = re.compile(r"(?<![\w-])(?:at|alle|all'|ore)\s*(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?!\w)")


@dataclass(frozen=True)
class Schedule:
    text: str
    crontab: dict | None = None  # CRON_FIELDS, read in `time_zone`
    every_minutes: int | None = None
    time_zone: str = "UTC"

    def describe(self) -> str:
        """Plain words ("every Monday at 09:30"); raw cron only where no simple wording fits."""
        if self.every_minutes:
            return _every(self.every_minutes)
        words = _cron_words(*(self.crontab[key] for key in CRON_FIELDS))
        words = words or "cron " + " ".join(self.crontab[key] for key in CRON_FIELDS)
        return words if self.time_zone == "UTC" else f"{words} ({self.time_zone})"


def _every(minutes: int) -> str:
    if minutes == 1:
        return "every minute"
    if minutes % 60:
        return f"every {minutes} minutes"
    return "every hour" if minutes == 60 else f"every {minutes // 60} hours"


def _days(dow: str) -> str | None:
    if dow == "*":
        return "every day"
    if dow in ("1-5", "mon-fri"):
        return "every weekday"
    names = {n[:3].lower(): i for i, n in enumerate(WEEKDAY_NAMES)}
    tokens = [names.get(t, t) for t in dow.split(",")]
    if not all(str(t).isdigit() for t in tokens):
        return None
    days = sorted({int(t) % 7 for t in tokens}, key=lambda d: (d + 6) % 7)  # the week starts on Monday
    named = [WEEKDAY_NAMES[d] for d in days]
    return "every " + (named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}")


def _cron_words(minute: str, hour: str, day_of_month: str, month: str, dow: str) -> str | None:
    if month != "*":
        return None
    if minute.isdigit() and hour.isdigit():
        at = f"{int(hour):02d}:{int(minute):02d}"
        if day_of_month == "*":
            days = _days(dow)
            return f"{days} at {at}" if days else None
        return f"on day {int(day_of_month)} of every month at {at}" if day_of_month.isdigit() and dow == "*" else None
    if day_of_month != "*" or dow != "*":
        return None
    if hour == "*":
        if minute == "*":
            return "every minute"
        if minute.isdigit():
            return "every hour" if int(minute) == 0 else f"at minute {int(minute)} of every hour"
        # */7 restarts at each hour (…, :49, :56, :00): only a divisor of 60 is a steady "every N minutes".
        step = _step(minute)
        return _every(step) if step and 60 % step == 0 else None
    step = _step(hour)
    return _every(60 * step) if minute == "0" and step and 24 % step == 0 else None


def _step(field: str) -> int | None:
    match = re.fullmatch(r"(?:\*|0)/(\d+)", field)
    return int(match.group(1)) if match else None


def _clock(text: str, part: str | None) -> tuple[int, int] | None:
    match = _CLOCK.search(text)
    if not match:
        return (PARTS_OF_DAY[part], 0) if part else None
    hour, minute, suffix = int(match.group(1)), int(match.group(2) or 0), (match.group(3) or "").replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    elif not suffix and _PM_FROM.get(part, 12) <= hour < 12:
        hour += 12
    return (hour, minute) if hour < 24 and minute < 60 else None


def _checked(crontab: dict, time_zone: str) -> dict:
    """django-celery-beat drops a schedule it cannot read without a word (`cron: 99 * * * *`), so
    nothing is saved until both readers accept every field: the model's validators (what the admin
    checks) and celery's parser (what beat runs), which disagree at the edges (7 for Sunday, 5-1)."""
    bad: set[str] = set()
    try:
        CrontabSchedule(**crontab, timezone=time_zone).full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        bad |= set(getattr(error, "error_dict", {"timezone": None}))  # an unknown zone fails in the constructor
    for key in CRON_FIELDS:
        try:
            celery_crontab(**{key: crontab[key]})
        except (ValueError, ParseException):
            bad.add(key)
    if bad:
        given = {**crontab, "timezone": time_zone}
        named = "; ".join(f"the {_CRON_NAMES[key]} field {given[key]!r} is not valid" for key in given if key in bad)
        hint = "; write cron as: cron: MIN HOUR DOM MON DOW" if bad - {"timezone"} else ""
        raise ExecutorError("invalid_args", named + hint)
    return crontab


def parse_schedule(text: str, time_zone: str = "UTC") -> Schedule:
    """A schedule in words (English, some Italian) or cron, with its times in `time_zone`;
    ExecutorError(invalid_args) otherwise."""
    raw = " ".join(str(text).lower().split())
    fail = ExecutorError("invalid_args", f"cannot read the schedule {text!r}; write it like: {'; '.join(FORMS)}")
    if raw.startswith("cron:"):
        fields = raw[5:].split()
        if len(fields) != len(CRON_FIELDS):
            raise fail
        crontab = _checked(dict(zip(CRON_FIELDS, fields, strict=True)), time_zone)
        return Schedule(text, crontab=crontab, time_zone=time_zone)
    if m := re.fullmatch(r"(?:every|ogni) (\d+) (minutes?|mins?|minuti|hours?|ore)", raw):
        n = int(m.group(1)) * (60 if m.group(2).startswith(("hour", "ore")) else 1)
        if not 1 <= n <= 60 * 24 * 7:
            raise fail
        return Schedule(text, every_minutes=n)
    if raw in ("every hour", "hourly", "ogni ora"):
        return Schedule(text, every_minutes=60)
    part = _PART.search(raw)
    at = _clock(raw, _PART_FORMS[part.group()] if part else None)
    if at is None:
        raise fail
    hour, minute = at
    days = sorted({_DAY_FORMS[d] for d in _DAY.findall(raw)})
    if days:
        dow = ",".join(days)
    elif _WEEKDAYS.search(raw):
        dow = "1-5"
    elif _WEEKEND.search(raw):
        dow = "0,6"
    elif _EVERY.search(raw) or part:
        dow = "*"
    else:
        raise fail
    crontab = {"minute": str(minute), "hour": str(hour), "day_of_month": "*", "month_of_year": "*", "day_of_week": dow}
    return Schedule(text, crontab=_checked(crontab, time_zone), time_zone=time_zone)


def _when(task: RecurringTask) -> str:
    """Read from beat's row, which is what fires (in the zone it was made in, admin edits
    included); an ended task has no row left, so its words are read again."""
    periodic = task.periodic
    if periodic is not None and periodic.crontab is not None:
        cron = periodic.crontab
        zone = getattr(cron.timezone, "key", str(cron.timezone))
        return Schedule(
            task.schedule_text, crontab={k: getattr(cron, k) for k in CRON_FIELDS}, time_zone=zone
        ).describe()
    if periodic is not None and periodic.interval is not None and periodic.interval.period == IntervalSchedule.MINUTES:
        return _every(periodic.interval.every)
    try:
        return parse_schedule(task.schedule_text, preference_for(user=task.owner).time_zone).describe()
    except ExecutorError:
        return task.schedule_text


def _summary(task: RecurringTask) -> dict:
    """What the tools answer with: `schedule` in plain words, `written` as the user put it."""
    return {
        "name": task.name, "prompt": task.prompt, "schedule": _when(task), "written": task.schedule_text,
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
        parsed = parse_schedule(schedule, preference_for(user=self.session.owner).time_zone)
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
            cron, _ = CrontabSchedule.objects.get_or_create(**parsed.crontab, timezone=parsed.time_zone)
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
        tasks = tasks.select_related("owner", "periodic__crontab", "periodic__interval")
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
        task.periodic = None  # the delete nulled the column (SET_NULL); this instance must agree


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
