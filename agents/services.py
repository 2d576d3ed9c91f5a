from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q

from agents import frames
from agents.models import ChatSession, Message, Turn
from agents.push import pusher
from core.clock import now
from core.ir import Message as IRMessage
from planner.turn import TurnOutcome
from routing import patterns
from routing.evaluator import FEEDBACK

MAX_MESSAGE_CHARS = 32_000


class InvalidInput(ValueError):
    pass


def _cancel_key(turn_id) -> str:
    return f"metnos:turn-cancel:{turn_id}"


@transaction.atomic
def session_create(*, owner: AbstractBaseUser, title: str = "") -> ChatSession:
    return ChatSession.objects.create(owner=owner, title=title.strip()[:200])


@transaction.atomic
def turn_submit(*, session: ChatSession, text: str, model: str = "") -> Turn:
    """Store the turn and the user's message; the worker is enqueued only once both committed."""
    from agents.tasks import run_turn

    text = (text or "").strip()
    if not text:
        raise InvalidInput("message text is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"message is longer than {MAX_MESSAGE_CHARS} characters")
    turn = Turn.objects.create(session=session, requested_model=model)
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
    transaction.on_commit(lambda: run_turn.delay(str(turn.id)))
    return turn


def workspace_path(*, user: AbstractBaseUser) -> Path:
    """The folder a user's turns act in. One per user until workspaces with members arrive."""
    path = Path(settings.METNOS_WORKSPACES_ROOT) / f"user-{user.pk}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def turn_claim(*, turn_id) -> Turn | None:
    """Move a queued turn to running. Returns None when another worker (or an earlier
    delivery of the same task) already took it: the conditional UPDATE makes this idempotent."""
    claimed = Turn.objects.filter(id=turn_id, status=Turn.Status.QUEUED).update(
        status=Turn.Status.RUNNING, started_at=now()
    )
    if not claimed:
        return None
    return Turn.objects.select_related("session__owner").get(id=turn_id)


@transaction.atomic
def turn_complete(*, turn: Turn, outcome: TurnOutcome) -> Turn:
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
    turn.completed_at = now()
    turn.save(
        update_fields=[
            "status",
            "final_kind",
            "layer",
            "route",
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cost_usd",
            "latency_ms",
            "model_ms",
            "error",
            "model_calls",
            "trace",
            "completed_at",
        ]
    )
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
    return turn


@transaction.atomic
def turns_fail_stale(*, older_than: timedelta) -> int:
    """End turns whose worker died: queued or running for longer than `older_than`."""
    cutoff = now() - older_than
    stale = list(
        Turn.objects.select_for_update(skip_locked=True).filter(
            Q(status=Turn.Status.RUNNING, started_at__lt=cutoff) | Q(status=Turn.Status.QUEUED, created_at__lt=cutoff)
        )
    )
    message = "The worker handling this turn stopped before it finished. Your message is saved; send it again."
    for turn in stale:
        turn.status = Turn.Status.COMPLETED
        turn.final_kind = "error"
        turn.error = "stale: no worker finished this turn"
        turn.completed_at = now()
        turn.save(update_fields=["status", "final_kind", "error", "completed_at"])
        frame = frames.turn_completed(turn, message)
        transaction.on_commit(lambda frame=frame, sid=turn.session_id: pusher.send(sid, frame))
    return len(stale)


RETRY_WINDOW = timedelta(minutes=10)


def _normalized(text: str) -> str:
    return " ".join(text.lower().split())


def turn_note_retry(*, turn: Turn, text: str) -> bool:
    """When the user sends the same request again right after a turn, that turn did not serve
    them: the evaluator lowers its routing outcome."""
    previous = (
        Turn.objects.filter(session_id=turn.session_id, created_at__lt=turn.created_at).order_by("-created_at").first()
    )
    if previous is None or turn.created_at - previous.created_at > RETRY_WINDOW:
        return False
    previous_text = previous.messages.filter(role=Message.Role.USER).values_list("text", flat=True).first() or ""
    if _normalized(previous_text) != _normalized(text):
        return False
    patterns.rescore(turn_id=previous.id, retried=True)
    return True


@transaction.atomic
def turn_give_feedback(*, turn: Turn, value: str) -> Turn:
    if value not in FEEDBACK:
        raise InvalidInput(f"feedback must be one of {', '.join(FEEDBACK)}")
    turn.feedback = value
    turn.save(update_fields=["feedback"])
    patterns.rescore(turn_id=turn.id, feedback=value)
    return turn


def turn_request_cancel(*, turn: Turn) -> None:
    cache.set(_cancel_key(turn.id), 1, timeout=3600)


def turn_cancel_requested(*, turn_id) -> bool:
    return bool(cache.get(_cancel_key(turn_id)))
