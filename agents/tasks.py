"""Celery tasks for chat turns: thin wrappers that load rows and call services.

They live in agents, not planner, because they load agents' rows: the engine
(planner.dispatch) takes plain data, keeping the dependency arrow agents → planner."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings

from agents import dotfiles, services, subagents
from agents.hooks import Blocked, Hooks
from agents.memory import Memory
from agents.permissions import SessionPermissions
from agents.push import DeltaBatcher, pusher
from agents.recurring import Recurring
from agents.selectors import turn_history, workspace_access
from agents.todos import SessionTodos
from core import trace
from core.clock import monotonic_ms
from planner import dispatch, llm
from planner.turn import Sink, TurnInput, TurnOutcome

logger = logging.getLogger(__name__)

_CANCEL_POLL_MS = 250


@shared_task(name="agents.tasks.run_turn", acks_late=True)
def run_turn(turn_id: str) -> None:
    turn = services.turn_claim(turn_id=turn_id)
    if turn is None:
        logger.info("turn %s already claimed; skipping duplicate delivery", turn_id)
        return
    user_message = turn.messages.filter(role="user").values_list("text", flat=True).first() or ""
    batcher = DeltaBatcher(
        session_id=turn.session_id, turn_id=turn.id, flush_ms=settings.METNOS_DELTA_FLUSH_MS, clock=monotonic_ms
    )
    last_poll = [monotonic_ms()]

    def on_delta(text: str) -> None:
        batcher.add(text)
        if monotonic_ms() - last_poll[0] >= _CANCEL_POLL_MS:
            last_poll[0] = monotonic_ms()
            if services.turn_cancel_requested(turn_id=turn.id):
                raise llm.Cancelled()

    def on_step(event: dict) -> None:
        batcher.flush()  # text before a step goes out before the step
        pusher.send(turn.session_id, {"type": "step", "turn_id": str(turn.id), **event})

    workspace = services.session_workspace(turn.session)
    root = services.workspace_path(workspace)
    session = turn.session
    access = workspace_access(workspace=workspace, user=session.owner)
    subagent = subagents.profile(root, session.profile) if session.parent_turn_id else None
    # A subagent has no memory: it can neither read nor write its parent's.
    memory = None if subagent else Memory(workspace, root, session_id=str(turn.session_id), turn_id=str(turn.id))
    hooks = Hooks(root, session_id=str(turn.session_id), turn_id=str(turn.id))
    # The user answered an approval request, or the subagent it waited for has answered: the
    # turn goes on from where its plan stopped.
    pending = turn.pending or {}
    resuming = bool(
        (pending.get("kind") == "approval" and pending.get("decision"))
        or (pending.get("kind") == "subagent" and pending.get("ready"))
    )
    if resuming:
        resume = pending
    elif turn.answers_id:
        resume = {**turn.answers.pending, "turn_id": str(turn.answers_id)}
    else:
        resume = None
    inp = TurnInput(
        turn_id=str(turn.id),
        session_id=str(turn.session_id),
        user_id=turn.session.owner_id,
        text=user_message,
        history=turn_history(turn=turn, limit=settings.METNOS_HISTORY_TURNS),
        model=turn.requested_model or None,
        sticky_model=turn.session.sticky_model or None,
        workspace=workspace.name,
        workspace_path=root,
        mode=workspace.mode,
        actor=turn.session.owner.get_username(),
        resume=resume,
        instructions="\n\n".join(p for p in (dotfiles.agents_md(root), subagent and subagent.instructions) if p),
        skill_index=dotfiles.skill_index(root),
        memory_text=memory.prompt_segment() if memory else "",
        memory=memory,
        role="worker" if subagent else "planner",
        read_only=access == "read",
        allowed_tools=subagent.tools if subagent else turn.options.get("allowed_tools"),
        max_steps=subagent.max_turns if subagent else None,
        delegate=subagents.Delegate(turn, root),
        recurring=None if subagent else Recurring(session),
        skills=dotfiles.Skills(root),
        permissions=SessionPermissions(turn.session),
        todos=SessionTodos(turn.session),
        hooks=hooks,
        plan_mode=turn.session.plan_mode,
    )
    if not resuming:
        services.turn_note_retry(turn=turn, text=user_message)
    try:
        with trace.batch():
            if access is None:  # a member the owner has since removed
                text = "You no longer have access to this session's workspace; its owner removed you."
                outcome = TurnOutcome(final_kind="error", text=text, layer="", error="no access to the workspace")
            elif not resuming and (blocked := _prompt_hooks(hooks, turn, user_message)) is not None:
                outcome = TurnOutcome(final_kind="error", text=blocked, layer="", error="blocked by a hook")
            elif turn.options.get("fork") and not resuming:
                outcome = dispatch.run_forked(inp, turn.options["fork"], Sink(on_delta=on_delta, on_step=on_step))
            else:
                outcome = dispatch.run_turn(inp, Sink(on_delta=on_delta, on_step=on_step))
    except Exception as exc:
        # Anything unexpected still ends the turn visibly; it is never left "running".
        logger.exception("turn %s crashed", turn_id)
        outcome = TurnOutcome(
            final_kind="error",
            text="Something went wrong while answering. Your message is saved.",
            layer="",
            error=f"{exc.__class__.__name__}: {exc}",
        )
    if hooks.log:
        outcome.trace["hooks"] = hooks.log
    batcher.flush()
    if inp.plan_mode and outcome.final_kind == "answer" and outcome.text.strip():
        try:
            services.plan_save(session=turn.session, request=user_message, text=outcome.text)
        except OSError:
            logger.warning("could not save the plan of turn %s", turn_id, exc_info=True)
    services.turn_complete(turn=turn, outcome=outcome, resumed=resuming)
    pusher.drain()


@shared_task(name="agents.tasks.sweep_stale_turns")
def sweep_stale_turns() -> int:
    requeued = services.turns_requeue()
    if requeued:
        logger.warning("queued %d turn(s) again whose job the broker had not taken", requeued)
    count = services.turns_fail_stale(older_than=timedelta(seconds=settings.METNOS_TURN_STALE_SECONDS))
    if count:
        logger.warning("marked %d stale turn(s) as errored", count)
        pusher.drain()
    return count


def _prompt_hooks(hooks: Hooks, turn, text: str) -> str | None:
    """session_start (the session's first turn) and user_prompt_submit; the reason a hook gave
    for blocking the prompt, or None. A workspace without hooks costs no query."""
    if not hooks.hooks:
        return None
    try:
        if not turn.session.turns.filter(created_at__lt=turn.created_at).exists():
            hooks.run("session_start", {"session_title": turn.session.title})
        hooks.run("user_prompt_submit", {"prompt": text})
    except Blocked as exc:
        return f"A hook of this workspace blocked your message: {exc}"
    return None


@shared_task(name="agents.tasks.run_recurring")
def run_recurring(task_id: str) -> str:
    """Beat fires a recurring task (its PeriodicTask's message expires after the task's grace
    window, so a run that could not start in time is skipped, not made up later)."""
    from agents import recurring
    from agents.models import RecurringTask

    task = RecurringTask.objects.filter(pk=task_id).first()
    if task is None:
        return "gone"
    return recurring.fire(task).status
