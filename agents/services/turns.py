"""The lifecycle of a chat turn (writes): submit, enqueue, claim, complete, decide an approval,
cancel, feedback, retry, and the sweeps for stale and unqueued turns. A turn that waits on a
subagent is resumed here when the subagent's turn ends."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Q

from agents import frames
from agents.models import ChatSession, Message, Turn
from agents.push import pusher
from agents.services.errors import InvalidInput
from core.clock import now
from core.ir import Message as IRMessage
from core.ir import Usage
from planner import memory
from planner.llm import add_usage
from planner.turn import TurnOutcome
from routing import patterns
from routing.evaluator import FEEDBACK

logger = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 32_000
# Sent by name: the task module imports this one, so importing it back would make a cycle.
RUN_TURN_TASK = "agents.tasks.run_turn"
DECISIONS = ("allow", "deny", "always")
RETRY_WINDOW = timedelta(minutes=10)
# pg_advisory_xact_lock(namespace, owner id): one owner's claims and slot releases, one at a time.
_SLOTS_LOCK = 0x4D54  # "MT"


def _cancel_key(turn_id) -> str:
    return f"metnos:turn-cancel:{turn_id}"


def _waiting_turn(session: ChatSession, answers: Turn | None) -> Turn | None:
    """The turn a new message answers: the one named, or else the session's latest turn when it
    stopped to ask (`ask`, `needs_inputs`) and nothing has answered it yet."""
    if answers is not None:
        if answers.session_id != session.pk or not _asks(answers) or Turn.objects.filter(answers=answers).exists():
            raise InvalidInput("that turn is not waiting for an answer")
        return answers
    latest = session.turns.select_for_update().order_by("-created_at").first()
    if latest is not None and _asks(latest) and not Turn.objects.filter(answers=latest).exists():
        return latest
    return None


def _asks(turn: Turn) -> bool:
    """It stopped with a question for the user (an approval is answered with `approve`, not text)."""
    return bool(turn.pending) and turn.pending.get("kind") in ("ask", "needs_inputs")


@transaction.atomic
def turn_submit(
    *,
    session: ChatSession,
    text: str,
    model: str = "",
    answers: Turn | None = None,
    enqueue: bool = True,
    options: dict | None = None,
    replaces: Turn | None = None,
) -> Turn:
    """Store the turn and the user's message; the worker is enqueued only once both committed.
    A message that answers a waiting turn resumes it: no worker was held while it waited.
    `enqueue=False`: the caller runs the turn itself (the terminal client). `replaces`: the turn
    an edit or a regeneration replaces (agents.services.redo), which this one never answers."""
    text = (text or "").strip()
    if not text:
        raise InvalidInput("message text is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"message is longer than {MAX_MESSAGE_CHARS} characters")
    waiting = answers if replaces is not None else _waiting_turn(session, answers)
    turn = Turn.objects.create(session=session, requested_model=model, answers=waiting, options=options or {})
    Message.objects.create(
        session=session,
        turn=turn,
        role=Message.Role.USER,
        text=text,
        blocks=IRMessage.text("user", text).to_dict()["blocks"],
    )
    fields = ["updated_at"]
    if not session.title:
        session.title = text[:60]
        fields.append("title")
    session.save(update_fields=fields)
    if enqueue:
        transaction.on_commit(lambda: enqueue_turn(turn))
    return turn


def enqueue_turn(turn: Turn) -> bool:
    """Queue the turn's job. When the broker cannot take it the turn stays `queued` with
    `enqueue_failed`, nothing is lost, and the sweep queues it again once the broker is back
    (a job queued twice runs once: turn_claim is conditional)."""
    if turn.enqueue_failed:
        # Cleared before the job goes out: a worker that holds the turn again (turn_claim) sets it
        # after this, and that must stick.
        turn.enqueue_failed = False
        Turn.objects.filter(pk=turn.pk).update(enqueue_failed=False)
    try:
        # No time limits in the job: the worker's own (METNOS_TURN_*_TIME_LIMIT_S) apply, not those
        # of whichever process queued it.
        current_app.send_task(RUN_TURN_TASK, args=[str(turn.id)], time_limit=None, soft_time_limit=None)
    except Exception as exc:  # kombu raises each transport's own errors
        logger.warning("could not queue turn %s (%s: %s); the sweep retries", turn.id, exc.__class__.__name__, exc)
        turn.enqueue_failed = True
        Turn.objects.filter(pk=turn.pk).update(enqueue_failed=True)
        return False
    return True


def turns_requeue() -> int:
    """Queue again the turns whose job could not be queued. Returns how many went in."""
    return sum(enqueue_turn(turn) for turn in Turn.objects.filter(status=Turn.Status.QUEUED, enqueue_failed=True)[:500])


def turn_claim(*, turn_id, per_user_limit: int | None = None) -> Turn | None:
    """Move a queued turn to running. Returns None when another worker (or an earlier
    delivery of the same task) already took it: the conditional UPDATE makes this idempotent.
    With `per_user_limit`, also None when its owner already has that many turns running: the turn
    waits, queued (see _hold), and turns_start_waiting queues it again when one of them ends."""
    with transaction.atomic():
        if per_user_limit is not None and not _slot_free(turn_id, per_user_limit):
            return None
        claimed = Turn.objects.filter(id=turn_id, status=Turn.Status.QUEUED).update(
            status=Turn.Status.RUNNING, started_at=now(), enqueue_failed=False
        )
    if not claimed:
        return None
    return Turn.objects.select_related("session__owner", "session__workspace", "answers").get(id=turn_id)


def _lock_slots(owner_id: int) -> None:
    """Held to the end of the transaction: two workers claiming the same owner's turns count the
    running ones one after the other, so both cannot pass the limit."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_SLOTS_LOCK, owner_id])


def _running(owner_id: int) -> int:
    return Turn.objects.filter(session__owner_id=owner_id, status=Turn.Status.RUNNING).count()


def _slot_free(turn_id, limit: int) -> bool:
    """Under the owner's lock: True when the turn may start (or is not queued, which the claim's
    conditional update then finds); else the turn is held."""
    turn = Turn.objects.filter(id=turn_id, status=Turn.Status.QUEUED).values("session_id", "session__owner_id").first()
    if turn is None:
        return True
    owner_id = turn["session__owner_id"]
    _lock_slots(owner_id)
    running = _running(owner_id)
    if running < limit:
        return True
    _hold(turn_id, turn["session_id"], owner_id, running, limit)
    return False


def _hold(turn_id, session_id, owner_id: int, running: int, limit: int) -> None:
    """A held turn has no job in the broker, like one whose enqueue failed, and carries the same
    flag: turns_start_waiting queues it again, and the sweep's requeue retries it should that be
    missed. The session is told why it waits (`turn.queued`)."""
    Turn.objects.filter(id=turn_id, status=Turn.Status.QUEUED).update(enqueue_failed=True)
    waiting = Turn.objects.filter(session__owner_id=owner_id, status=Turn.Status.QUEUED)
    position = waiting.filter(created_at__lte=Turn.objects.filter(id=turn_id).values("created_at")).count()
    logger.info("turn %s waits: its owner has %d turns running (the limit)", turn_id, running)
    frame = frames.turn_queued(turn_id, position=position, running=running, limit=limit)
    transaction.on_commit(lambda: pusher.send(session_id, frame))


def turns_start_waiting(*, owner_id: int) -> int:
    """One of the owner's turns ended: queue again as many of their held turns, oldest first, as
    they have free slots. Returns how many went in."""
    held = Turn.objects.filter(session__owner_id=owner_id, status=Turn.Status.QUEUED, enqueue_failed=True)
    if not held.exists():
        return 0  # nearly every turn ends so: one query, no lock
    with transaction.atomic():
        _lock_slots(owner_id)
        free = settings.METNOS_MAX_RUNNING_TURNS_PER_USER - _running(owner_id)
        waiting = list(held.order_by("created_at")[: max(free, 0)])
    return sum(enqueue_turn(turn) for turn in waiting)


def _release_on_commit(owner_id: int) -> None:
    transaction.on_commit(lambda: turns_start_waiting(owner_id=owner_id))


@transaction.atomic
def turn_complete(*, turn: Turn, outcome: TurnOutcome, resumed: bool = False) -> Turn:
    """`resumed`: the turn went on after an approval or a subagent; what it spent before is
    added, not lost, and its "waiting" message gives way to the answer."""
    if resumed:
        outcome = replace(
            outcome,
            usage=add_usage(outcome.usage, Usage(**turn.usage)),
            cost_usd=outcome.cost_usd + turn.cost_usd,
            model_ms=outcome.model_ms + turn.model_ms,
            model_calls=outcome.model_calls + turn.model_calls,
            latency_ms=outcome.latency_ms + turn.latency_ms,
            route=outcome.route or turn.route,
            trace={**outcome.trace, "before_approval": turn.trace},
        )
        turn.messages.filter(role=Message.Role.ASSISTANT).delete()
    turn.status = Turn.Status.COMPLETED
    turn.final_kind = outcome.final_kind
    turn.layer = outcome.layer
    turn.route = outcome.route
    turn.input_tokens = outcome.usage.input_tokens
    turn.output_tokens = outcome.usage.output_tokens
    turn.cache_read_tokens = outcome.usage.cache_read_tokens
    turn.cache_write_tokens = outcome.usage.cache_write_tokens
    turn.cost_usd = outcome.cost_usd
    turn.latency_ms = outcome.latency_ms
    turn.model_ms = outcome.model_ms
    turn.error = outcome.error
    turn.model_calls = outcome.model_calls
    turn.trace = outcome.trace
    turn.pending = outcome.pending
    turn.completed_at = now()
    turn.save(update_fields=["status", "final_kind", "layer", "route", "input_tokens", "output_tokens",
                             "cache_read_tokens", "cache_write_tokens", "cost_usd", "latency_ms", "model_ms",
                             "error", "model_calls", "trace", "pending", "completed_at"])  # fmt: skip
    if outcome.text:
        Message.objects.create(
            session_id=turn.session_id,
            turn=turn,
            role=Message.Role.ASSISTANT,
            text=outcome.text,
            blocks=IRMessage.text("assistant", outcome.text).to_dict()["blocks"],
        )
    frame = frames.turn_completed(turn, outcome.text)
    transaction.on_commit(lambda: pusher.send(turn.session_id, frame))
    _release_on_commit(turn.session.owner_id)
    if outcome.final_kind == "awaiting" and outcome.pending.get("kind") == "approval":
        request = frames.approval_request(turn)
        transaction.on_commit(lambda: pusher.send(turn.session_id, request))
    if outcome.final_kind == "awaiting" and outcome.pending.get("kind") == "subagent":
        _resume_parent_if_ready(turn.id)  # its subagent may already have finished
    parent_id = turn.session.parent_turn_id
    if parent_id and outcome.final_kind != "awaiting":
        _resume_parent_if_ready(parent_id)
    return turn


def _resume_parent_if_ready(parent_id) -> None:
    """A turn waiting on a subagent goes back on the queue once the subagent's turn has ended,
    with its answer as the waiting step's result. Both sides call this; the row lock and the
    `ready` flag make it happen once."""
    parent = Turn.objects.select_for_update().filter(pk=parent_id).first()
    if parent is None or parent.final_kind != "awaiting" or parent.status != Turn.Status.COMPLETED:
        return
    pending = parent.pending
    if pending.get("kind") != "subagent" or pending.get("ready"):
        return
    child = Turn.objects.select_related("session").filter(pk=pending.get("child_turn_id")).first()
    if child is None or child.status != Turn.Status.COMPLETED or child.final_kind == "awaiting":
        return
    text = child.messages.filter(role=Message.Role.ASSISTANT).values_list("text", flat=True).last() or ""
    result = result_of(child, text)
    parent.pending = {**pending, "ready": True, "result": result,
                      "results": {**pending.get("results", {}), str(pending["step"]): result}}  # fmt: skip
    parent.status = Turn.Status.QUEUED
    parent.save(update_fields=["pending", "status"])
    transaction.on_commit(lambda: enqueue_turn(parent))


def result_of(turn: Turn, text: str) -> dict:
    """A finished subagent turn as its parent step's result."""
    session = turn.session
    result = {"ok": turn.final_kind == "answer", "text": text, "final_kind": turn.final_kind,
              "turn_id": str(turn.id), "session_id": str(session.pk), "profile": session.profile}  # fmt: skip
    if not result["ok"]:
        result |= {"error": text or turn.error or "the subagent did not finish", "error_class": "subagent_failed"}
    return result


@transaction.atomic
def turn_decide(*, session: ChatSession, request_id: str, decision: str, enqueue: bool = True) -> Turn:
    """A person's answer to an approval request. The turn goes back on the queue and resumes
    where it stopped; "always" also grants the tool for the rest of this session."""
    if decision not in DECISIONS:
        raise InvalidInput(f"decision must be one of {', '.join(DECISIONS)}")
    turn = (
        Turn.objects.select_for_update()
        .filter(session=session, status=Turn.Status.COMPLETED, final_kind="awaiting", pending__request_id=request_id)
        .first()
    )
    if turn is None or turn.pending.get("kind") != "approval" or turn.pending.get("decision"):
        raise InvalidInput("no tool is waiting for that approval in this session")
    if decision == "always":
        locked = ChatSession.objects.select_for_update().get(pk=session.pk)
        if turn.pending["tool"] not in locked.grants:
            locked.grants = [*locked.grants, turn.pending["tool"]]
            locked.save(update_fields=["grants", "updated_at"])
    turn.pending = {**turn.pending, "decision": decision}
    turn.status = Turn.Status.QUEUED
    turn.save(update_fields=["pending", "status"])
    if enqueue:
        transaction.on_commit(lambda: enqueue_turn(turn))
    return turn


STALE_MESSAGE = "The worker handling this turn stopped before it finished. Your message is saved; send it again."


@transaction.atomic
def turns_fail_stale(*, older_than: timedelta, running_older_than: timedelta | None = None) -> int:
    """End turns whose worker died: queued for longer than `older_than`, or running for longer than
    `running_older_than` (default: the same). A held turn (no job, see _hold) is not stale while its
    owner has turns running: it waits for one of their slots, and is queued again when one ends."""
    moment = now()
    busy_owners = Turn.objects.filter(status=Turn.Status.RUNNING).values("session__owner_id")
    waiting = Q(enqueue_failed=True, session__owner_id__in=busy_owners)
    stale = list(
        Turn.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("session")
        .filter(
            Q(status=Turn.Status.RUNNING, started_at__lt=moment - (running_older_than or older_than))
            | (Q(status=Turn.Status.QUEUED, created_at__lt=moment - older_than) & ~waiting)
        )
    )
    for turn in stale:
        _end_in_error(turn, "stale: no worker finished this turn", STALE_MESSAGE)
    return len(stale)


@transaction.atomic
def turn_stop(*, turn_id, error: str, text: str) -> bool:
    """End a turn that no worker will finish (its process was killed at the time limit) as an
    error that says why. False when it is no longer running."""
    turn = Turn.objects.select_for_update().select_related("session").filter(id=turn_id).first()
    if turn is None or turn.status != Turn.Status.RUNNING:
        return False
    _end_in_error(turn, error, text)
    return True


def _end_in_error(turn: Turn, error: str, text: str) -> None:
    turn.status = Turn.Status.COMPLETED
    turn.final_kind = "error"
    turn.error = error
    turn.completed_at = now()
    turn.save(update_fields=["status", "final_kind", "error", "completed_at"])
    # Stored, not only pushed: a page opened later shows it too.
    Message.objects.create(session_id=turn.session_id, turn=turn, role=Message.Role.ASSISTANT, text=text,
                           blocks=IRMessage.text("assistant", text).to_dict()["blocks"])  # fmt: skip
    frame = frames.turn_completed(turn, text)
    transaction.on_commit(lambda: pusher.send(turn.session_id, frame))
    _release_on_commit(turn.session.owner_id)


def _normalized(text: str) -> str:
    return " ".join(text.lower().split())


def turn_note_retry(*, turn: Turn, text: str) -> bool:
    """When the user sends the same request again right after a turn, that turn did not serve
    them: the evaluator lowers its routing outcome."""
    previous = (
        Message.objects.filter(session_id=turn.session_id, role=Message.Role.USER, turn__created_at__lt=turn.created_at)
        .order_by("-turn__created_at")
        .values("turn_id", "text", "turn__created_at")
        .first()
    )  # the previous turn and what the user said in it, in one query
    if previous is None or turn.created_at - previous["turn__created_at"] > RETRY_WINDOW:
        return False
    if _normalized(previous["text"]) != _normalized(text):
        return False
    patterns.rescore(turn_id=previous["turn_id"], retried=True)
    return True


@transaction.atomic
def turn_give_feedback(*, turn: Turn, value: str) -> Turn:
    if value not in FEEDBACK:
        raise InvalidInput(f"feedback must be one of {', '.join(FEEDBACK)}")
    turn.feedback = value
    turn.save(update_fields=["feedback"])
    patterns.rescore(turn_id=turn.id, feedback=value)
    memory.feedback(turn_id=turn.id, trace=turn.trace, value=value, owner_id=turn.session.owner_id)
    return turn


def turn_request_cancel(*, turn: Turn) -> None:
    cache.set(_cancel_key(turn.id), 1, timeout=3600)


def turn_cancel_requested(*, turn_id) -> bool:
    return bool(cache.get(_cancel_key(turn_id)))
