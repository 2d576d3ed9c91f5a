"""What a claimed turn runs with, and how it runs: its `TurnInput` (the request, the history, the
workspace's files, the state it resumes from), the ports through which executors reach the
workspace and the session, and the sink that streams its progress to the session's websocket.
The Celery task (agents.tasks.run_turn) claims the turn, runs it here and completes it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.utils import translation

from agents import dotfiles, frames, subagents
from agents.checkpoints import TurnCheckpoints
from agents.hooks import Blocked, Hooks
from agents.memory import Memory
from agents.models import Turn
from agents.permissions import SessionPermissions
from agents.push import DeltaBatcher, pusher
from agents.recurring import Recurring
from agents.selectors import previous_facts, turn_history, workspace_access
from agents.services import sessions, turns, workspaces
from agents.services.preferences import preference_for
from agents.todos import SessionTodos
from core.clock import monotonic_ms
from planner import dispatch, llm
from planner.turn import Sink, TurnInput, TurnOutcome

logger = logging.getLogger(__name__)

_CANCEL_POLL_MS = 250
NO_ACCESS = "You no longer have access to this session's workspace; its owner removed you."
CRASHED = "Something went wrong while answering. Your message is saved."


def resume_state(turn: Turn) -> tuple[dict | None, dict | None]:
    """(stopped, answers). `stopped`: the turn's own state, when the user decided the approval it
    stopped for, or the subagent it waited on has answered; its plan goes on from there.
    `answers`: else, the state of the earlier turn whose question this message answers."""
    pending = turn.pending or {}
    if (pending.get("kind") == "approval" and pending.get("decision")) or (
        pending.get("kind") == "subagent" and pending.get("ready")
    ):
        return pending, None
    if turn.answers_id:
        return None, {**turn.answers.pending, "turn_id": str(turn.answers_id)}
    return None, None


class Stream:
    """A turn's sink: text goes out in batched `delta` frames, each step in a `step` frame, and
    while text streams the cancel flag is read every _CANCEL_POLL_MS."""

    def __init__(self, turn: Turn):
        self.turn_id, self.session_id = turn.id, turn.session_id
        self.batcher = DeltaBatcher(
            session_id=turn.session_id, turn_id=turn.id, flush_ms=settings.METNOS_DELTA_FLUSH_MS, clock=monotonic_ms
        )
        self._last_poll = monotonic_ms()

    def on_delta(self, text: str) -> None:
        self.batcher.add(text)
        if monotonic_ms() - self._last_poll >= _CANCEL_POLL_MS:
            self._last_poll = monotonic_ms()
            if turns.turn_cancel_requested(turn_id=self.turn_id):
                raise llm.Cancelled()

    def on_step(self, event: dict) -> None:
        self.batcher.flush()  # text before a step goes out before the step
        pusher.send(self.session_id, frames.step(self.turn_id, event))

    def sink(self) -> Sink:
        return Sink(on_delta=self.on_delta, on_step=self.on_step)


@dataclass
class TurnRun:
    """One claimed turn, ready to run: `run()` gives its outcome, `finish()` what to store."""

    turn: Turn
    inp: TurnInput
    stream: Stream
    hooks: Hooks
    access: str | None  # the owner's access to the workspace; None: a member since removed

    @property
    def resuming(self) -> bool:
        return self.inp.stopped is not None

    def run(self) -> TurnOutcome:
        """Refused (no access any more, or a hook blocked the prompt), forked, or dispatched.
        A resumed turn's prompt already passed its hooks, and it goes on unforked. The engine's
        fixed texts (the terminator's) are said in the session owner's language."""
        with translation.override(self.inp.lang):
            if self.access is None:
                return TurnOutcome(final_kind="error", text=NO_ACCESS, layer="", error="no access to the workspace")
            if not self.resuming and (blocked := prompt_hooks(self.hooks, self.turn, self.inp.text)) is not None:
                return TurnOutcome(final_kind="error", text=blocked, layer="", error="blocked by a hook")
            if self.turn.options.get("fork") and not self.resuming:
                return dispatch.run_forked(self.inp, self.turn.options["fork"], self.stream.sink())
            return dispatch.run_turn(self.inp, self.stream.sink())

    def finish(self, outcome: TurnOutcome) -> TurnOutcome:
        """The hooks' log joins the trace, the last text goes out, and an answer given in plan
        mode is kept as the session's plan file."""
        if self.hooks.log:
            outcome.trace["hooks"] = self.hooks.log
        if self.turn.options.get("redo"):
            outcome.trace["redo"] = self.turn.options["redo"]
        self.stream.batcher.flush()
        if self.inp.plan_mode and outcome.final_kind == "answer" and outcome.text.strip():
            try:
                sessions.plan_save(session=self.turn.session, request=self.inp.text, text=outcome.text)
            except OSError:
                logger.warning("could not save the plan of turn %s", self.turn.id, exc_info=True)
        return outcome


def prepare(turn: Turn) -> TurnRun:
    """Everything the turn runs with, read fresh. A new request (not a resumed one) that repeats
    the previous one is noted as a retry of it."""
    session = turn.session
    text = turn.messages.filter(role="user").values_list("text", flat=True).first() or ""
    stream = Stream(turn)
    workspace = sessions.session_workspace(session)
    root = workspaces.workspace_path(workspace)
    access = workspace_access(workspace=workspace, user=session.owner)
    subagent = subagents.profile(root, session.profile) if session.parent_turn_id else None
    # A subagent has no memory: it can neither read nor write its parent's.
    memory = None if subagent else Memory(workspace, root, session_id=str(turn.session_id), turn_id=str(turn.id))
    hooks = Hooks(root, session_id=str(turn.session_id), turn_id=str(turn.id))
    stopped, answers = resume_state(turn)
    inp = TurnInput(
        turn_id=str(turn.id),
        session_id=str(turn.session_id),
        user_id=session.owner_id,
        text=text,
        history=turn_history(turn=turn, limit=settings.METNOS_HISTORY_TURNS),
        summary=session.summary,
        previous=previous_facts(turn=turn),
        model=turn.requested_model or None,
        sticky_model=session.sticky_model or None,
        workspace=workspace.name,
        workspace_path=root,
        mode=workspace.mode,
        actor=session.owner.get_username(),
        lang=preference_for(user=session.owner).language,
        stopped=stopped,
        answers=answers,
        instructions="\n\n".join(p for p in (dotfiles.agents_md(root), subagent and subagent.instructions) if p),
        skill_index=dotfiles.skill_index(root),
        memory_text=memory.prompt_segment() if memory else "",
        role="worker" if subagent else "planner",
        read_only=access == "read",
        allowed_tools=subagent.tools if subagent else turn.options.get("allowed_tools"),
        max_steps=subagent.max_turns if subagent else None,
        plan_mode=session.plan_mode,
        replan=bool(turn.options.get("redo")),
        # The ports: how executors reach the workspace and the session (planner/executors/base.py).
        memory=memory,
        delegate=subagents.Delegate(turn, root),
        recurring=None if subagent else Recurring(session),
        skills=dotfiles.Skills(root),
        permissions=SessionPermissions(session, ask_again=bool(turn.options.get("redo"))),
        todos=SessionTodos(session),
        checkpoints=TurnCheckpoints(turn),
        hooks=hooks,
    )
    if stopped is None:
        turns.turn_note_retry(turn=turn, text=text)
    return TurnRun(turn=turn, inp=inp, stream=stream, hooks=hooks, access=access)


def prompt_hooks(hooks: Hooks, turn: Turn, text: str) -> str | None:
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


def crashed(exc: Exception) -> TurnOutcome:
    """What a turn that raised ends with: the error is shown, the message is kept."""
    return TurnOutcome(final_kind="error", text=CRASHED, layer="", error=f"{exc.__class__.__name__}: {exc}")
