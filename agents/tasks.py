"""Celery tasks for chat turns: thin wrappers that load rows and call services.

They live in agents, not planner, because they load agents' rows: the engine
(planner.dispatch) takes plain data, keeping the dependency arrow agents → planner."""

from __future__ import annotations

import logging
import signal
import threading
from datetime import timedelta

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from agents import checkpoints, compaction, recurring, runtime
from agents.models import RecurringTask, Turn
from agents.push import pusher
from agents.services import turns
from agents.services.preferences import preference_for
from core import trace
from planner.turn import TurnOutcome

logger = logging.getLogger(__name__)
STOP_TASK = "agents.tasks.stop_turn"
_soft_limit_passed = threading.Event()  # in this worker process, during the turn it runs


class TurnTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        """At the hard time limit the worker's main process kills the child running the turn and
        calls this: it holds no database connection of its own (a pool opened here would be
        inherited by the children it forks next), so it queues stop_turn, which a child runs at once.
        The soft limit's exception reaches here only when it escaped run_turn's own handling (raised
        while the outcome was being stored); stop_turn ends the turn then too."""
        if isinstance(exc, TimeLimitExceeded | SoftTimeLimitExceeded) and args:
            self.app.send_task(STOP_TASK, args=[args[0], int(settings.METNOS_TURN_HARD_TIME_LIMIT_S)])


@shared_task(
    bind=True,
    base=TurnTask,
    name="agents.tasks.run_turn",
    acks_late=True,
    acks_on_timeout=True,  # a turn stopped at its limit is over, not retried
    soft_time_limit=settings.METNOS_TURN_SOFT_TIME_LIMIT_S or None,
    time_limit=settings.METNOS_TURN_HARD_TIME_LIMIT_S,
)
def run_turn(self, turn_id: str) -> None:
    """Claim the turn, run it (agents.runtime) and store its outcome. The name is what
    services.turns sends: it does not import this module. On a worker, a user's turns beyond
    METNOS_MAX_RUNNING_TURNS_PER_USER wait; called in-process (the terminal client) the turn
    holds no worker, so neither that limit nor the time limits apply."""
    limit = None if self.request.called_directly else settings.METNOS_MAX_RUNNING_TURNS_PER_USER
    turn = turns.turn_claim(turn_id=turn_id, per_user_limit=limit)
    if turn is None:
        logger.info("turn %s not claimed: already taken, or waiting for a free slot", turn_id)
        pusher.drain()  # the `turn.queued` frame of a turn that waits
        return
    if not self.request.called_directly:
        _notice_soft_limits()
    _soft_limit_passed.clear()
    run = runtime.prepare(turn)
    try:
        with trace.batch():
            outcome = run.run()
    except SoftTimeLimitExceeded:
        outcome = None
    except Exception as exc:
        # Anything unexpected still ends the turn visibly; it is never left "running".
        logger.exception("turn %s crashed", turn_id)
        outcome = runtime.crashed(exc)
    if outcome is None or _soft_limit_passed.is_set():
        # Also when a step caught the limit's exception (an executor reports any exception as a
        # failed step) and the turn went on: it ends as stopped at its limit all the same.
        outcome = _past_limit(turn)
    turns.turn_complete(turn=turn, outcome=run.finish(outcome), resumed=run.resuming)
    pusher.drain()
    _compact_after(turn, outcome)


def _notice_soft_limits() -> None:
    """Wrap the worker process's soft-limit signal handler (billiard installs it after
    worker_process_init, so this is done on a turn, once) to note that the limit passed before it
    raises SoftTimeLimitExceeded, so run_turn knows even when a step swallowed the exception."""
    raises = signal.getsignal(signal.SIGUSR1)
    if not callable(raises) or getattr(raises, "notes_soft_limit", False):
        return

    def noting(signum, frame):
        _soft_limit_passed.set()
        raises(signum, frame)

    noting.notes_soft_limit = True
    signal.signal(signal.SIGUSR1, noting)


def _past_limit(turn: Turn, seconds: int | None = None) -> TurnOutcome:
    seconds = seconds or settings.METNOS_TURN_SOFT_TIME_LIMIT_S
    logger.warning("turn %s stopped at its time limit (%d s)", turn.id, seconds)
    with translation.override(preference_for(user=turn.session.owner).language):
        text = gettext("The turn ran longer than %(seconds)s s and was stopped. Your message is saved.") % {
            "seconds": seconds
        }
    return TurnOutcome(
        final_kind="error",
        text=text,
        layer="",
        error=f"time limit: the turn ran longer than {seconds} s and was stopped",
    )


@shared_task(name=STOP_TASK)
def stop_turn(turn_id: str, seconds: int) -> bool:
    """The hard time limit killed the process running the turn: it ends `error` now, not at the
    next stale-turn sweep, and the owner's next waiting turn may start."""
    turn = Turn.objects.select_related("session__owner").filter(pk=turn_id).first()
    if turn is None:
        return False
    outcome = _past_limit(turn, seconds)
    stopped = turns.turn_stop(turn_id=turn_id, error=outcome.error, text=outcome.text)
    pusher.drain()
    return stopped


def _compact_after(turn, outcome) -> None:
    """The session's older turns fold into its summary once the next prompt would not hold them
    (agents.compaction); a side effect that never fails the turn."""
    model = (outcome.route or {}).get("winner")
    if outcome.final_kind != "answer":
        return
    try:
        compaction.after_turn(turn.session, model or "")
    except Exception:
        logger.exception("could not compact session %s after turn %s", turn.session_id, turn.id)


@shared_task(name="agents.tasks.sweep_stale_turns")
def sweep_stale_turns() -> int:
    requeued = turns.turns_requeue()
    if requeued:
        logger.warning("queued %d turn(s) again whose job the broker had not taken", requeued)
    # A running turn is not stale while it may still be within its time limit; past the hard
    # limit (and a margin for stop_turn) its process is gone. Whole workers that die are found so.
    running_stale = max(settings.METNOS_TURN_STALE_SECONDS, settings.METNOS_TURN_HARD_TIME_LIMIT_S + 30)
    count = turns.turns_fail_stale(
        older_than=timedelta(seconds=settings.METNOS_TURN_STALE_SECONDS),
        running_older_than=timedelta(seconds=running_stale),
    )
    if count:
        logger.warning("marked %d stale turn(s) as errored", count)
        pusher.drain()
    return count


@shared_task(name="agents.tasks.run_recurring")
def run_recurring(task_id: str) -> str:
    """Beat fires a recurring task (its PeriodicTask's message expires after the task's grace
    window, so a run that could not start in time is skipped, not made up later)."""
    task = RecurringTask.objects.filter(pk=task_id).first()
    if task is None:
        return "gone"
    return recurring.fire(task).status


@shared_task(name="agents.tasks.prune_checkpoints")
def prune_checkpoints() -> int:
    """Beat: each session keeps at most METNOS_UNDO_MAX_BYTES of checkpoints for /undo, the
    oldest turns dropped first; returns how many turns were dropped."""
    return checkpoints.prune_all()
