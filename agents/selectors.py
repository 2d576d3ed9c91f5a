from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, QuerySet

from agents.models import ChatSession, Message, Turn
from core.ir import Message as IRMessage


def session_for_user(*, session_id, user: AbstractBaseUser) -> ChatSession | None:
    """A session the user owns, else None. Callers answer 404 either way, so another
    user's session is indistinguishable from one that does not exist."""
    try:
        session_id = uuid.UUID(str(session_id))
    except ValueError:
        return None
    if not user.is_authenticated:
        return None
    return ChatSession.objects.filter(id=session_id, owner=user).first()


def session_list(*, user: AbstractBaseUser) -> QuerySet[ChatSession]:
    return ChatSession.objects.filter(owner=user).order_by("-updated_at")


def turn_list(*, session: ChatSession) -> QuerySet[Turn]:
    return session.turns.order_by("created_at").prefetch_related(
        Prefetch("messages", queryset=Message.objects.order_by("created_at"))
    )


def turn_history(*, turn: Turn, limit: int) -> tuple[IRMessage, ...]:
    """The canonical messages of the last `limit` answered turns before `turn`."""
    previous = list(
        Turn.objects.filter(session_id=turn.session_id, created_at__lt=turn.created_at, final_kind="answer")
        .order_by("-created_at")
        .values_list("id", flat=True)[:limit]
    )
    rows = Message.objects.filter(turn_id__in=previous).order_by("created_at").values("role", "blocks")
    return tuple(IRMessage.from_dict(row) for row in rows)
