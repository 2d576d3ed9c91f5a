"""Celery tasks for chat turns: thin wrappers that load rows and call services.

They live in agents, not planner, because they load agents' rows: the engine
(planner.dispatch) takes plain data, keeping the dependency arrow agents → planner."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings

from agents import checkpoints, compaction, recurring, runtime
from agents.models import RecurringTask
from agents.push import pusher
from agents.services import turns
from core import trace

logger = logging.getLogger(__name__)


@shared_task(name="agents.tasks.run_turn", acks_late=True)
def run_turn(turn_id: str) -> None:
    """Claim the turn, run it (agents.runtime) and store its outcome. The name is what
    services.turns sends: it does not import this module."""
    turn = turns.turn_claim(turn_id=turn_id)
    if turn is None:
        logger.info("turn %s already claimed; skipping duplicate delivery", turn_id)
        return
    run = runtime.prepare(turn)
    try:
        with trace.batch():
            outcome = run.run()
    except Exception as exc:
        # Anything unexpected still ends the turn visibly; it is never left "running".
        logger.exception("turn %s crashed", turn_id)
        outcome = runtime.crashed(exc)
    turns.turn_complete(turn=turn, outcome=run.finish(outcome), resumed=run.resuming)
    pusher.drain()
    _compact_after(turn, outcome)


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
    count = turns.turns_fail_stale(older_than=timedelta(seconds=settings.METNOS_TURN_STALE_SECONDS))
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
