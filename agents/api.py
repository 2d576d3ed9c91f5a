from datetime import datetime
from uuid import UUID

from django.http import Http404
from ninja import Router, Schema, Status

from agents import services
from agents.selectors import session_for_user, session_list, turn_list
from billing.cost import format_usd

router = Router(tags=["sessions"])


class SessionIn(Schema):
    title: str = ""


class SessionOut(Schema):
    id: UUID
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(Schema):
    role: str
    text: str
    created_at: datetime


class TurnOut(Schema):
    id: UUID
    status: str
    final_kind: str
    layer: str
    route: dict
    usage: dict
    cost_usd: str
    latency_ms: int
    error: str
    created_at: datetime
    completed_at: datetime | None
    messages: list[MessageOut]

    @staticmethod
    def resolve_cost_usd(obj) -> str:
        return format_usd(obj.cost_usd)

    @staticmethod
    def resolve_messages(obj) -> list:
        return list(obj.messages.all())


@router.post("/sessions", response={201: SessionOut})
def create_session(request, payload: SessionIn):
    return Status(201, services.session_create(owner=request.user, title=payload.title))


@router.get("/sessions", response=list[SessionOut])
def list_sessions(request):
    return session_list(user=request.user)


@router.get("/sessions/{session_id}/turns", response=list[TurnOut])
def list_turns(request, session_id: str):
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    return turn_list(session=session)
