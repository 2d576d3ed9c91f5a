import json
from datetime import datetime
from uuid import UUID

from django.http import Http404, HttpResponse
from ninja import Router, Schema, Status
from ninja.errors import HttpError

from agents import frames, picker, services
from agents.selectors import (
    session_export,
    session_for_user,
    session_list,
    turn_for_user,
    turn_list,
    turn_trace,
    workspace_for_user,
    workspace_list,
    workspace_usable_by,
)
from billing.cost import format_usd

router = Router(tags=["sessions"])


class WorkspaceIn(Schema):
    name: str
    mode: str = "engine"
    # Staff only: an existing server folder under METNOS_WORKSPACE_ROOTS_ALLOWED, instead of a new one.
    path: str | None = None


class WorkspacePatch(Schema):
    name: str | None = None
    mode: str | None = None


class WorkspaceOut(Schema):
    id: UUID
    name: str
    mode: str
    created_at: datetime
    access: str = "owner"  # owner | write | read


class MemberIn(Schema):
    username: str
    access: str = "read"


class MemberOut(Schema):
    username: str
    access: str
    added_at: datetime

    @staticmethod
    def resolve_username(obj) -> str:
        return obj.user.get_username()


class SessionIn(Schema):
    title: str = ""
    workspace_id: UUID | None = None


class SessionOut(Schema):
    id: UUID
    title: str
    workspace_id: UUID | None
    created_at: datetime
    updated_at: datetime
    sticky_model: str
    yolo: bool
    plan_mode: bool
    todos: list[dict]


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
    model_calls: int
    feedback: str
    created_at: datetime
    completed_at: datetime | None
    messages: list[MessageOut]
    steps: list[dict]
    pending: dict
    route_label: str
    superseded_by: UUID | None = None
    redo: dict | None = None
    requested_model: str

    @staticmethod
    def resolve_superseded_by(obj) -> UUID | None:
        return obj.superseded_by_id

    @staticmethod
    def resolve_redo(obj) -> dict | None:
        return (obj.options or {}).get("redo")

    @staticmethod
    def resolve_pending(obj) -> dict:
        """What the page needs to show a waiting question or approval again after a reload."""
        keep = ("kind", "request_id", "tool", "args", "step", "decision", "question")
        return {k: v for k, v in (obj.pending or {}).items() if k in keep}

    @staticmethod
    def resolve_route_label(obj) -> str:
        answer = next((m.text for m in obj.messages.all() if m.role == "assistant"), "")
        return frames.route_label(obj, answer)

    @staticmethod
    def resolve_cost_usd(obj) -> str:
        return format_usd(obj.cost_usd)

    @staticmethod
    def resolve_messages(obj) -> list:
        return list(obj.messages.all())

    @staticmethod
    def resolve_steps(obj) -> list[dict]:
        """The steps of the plan that ran last, as the browser shows them after a reload."""
        attempts = (obj.trace or {}).get("attempts") or []
        steps = next((a["steps"] for a in reversed(attempts) if a.get("steps")), [])
        return [{"index": s["index"], "tool": s["tool"], "status": "done" if s["ok"] else "failed"} for s in steps]


@router.get("/workspaces", response=list[WorkspaceOut], tags=["workspaces"])
def list_workspaces(request):
    services.workspace_default(user=request.user)
    return workspace_list(user=request.user)


@router.post("/workspaces", response={201: WorkspaceOut}, tags=["workspaces"])
def create_workspace(request, payload: WorkspaceIn):
    """A new workspace: its own folder, and `mode` engine (one plan) or react (a call per step).
    Staff may give `path`, an existing server folder under METNOS_WORKSPACE_ROOTS_ALLOWED."""
    if payload.path is None:
        return Status(201, services.workspace_create(owner=request.user, name=payload.name, mode=payload.mode))
    if not request.user.is_staff:
        raise HttpError(403, "only staff can register a server folder as a workspace")
    workspace = services.workspace_register(owner=request.user, name=payload.name, path=payload.path, mode=payload.mode)
    return Status(201, workspace)


@router.patch("/workspaces/{workspace_id}", response=WorkspaceOut, tags=["workspaces"])
def update_workspace(request, workspace_id: str, payload: WorkspacePatch):
    workspace = workspace_for_user(workspace_id=workspace_id, user=request.user)
    if workspace is None:
        raise Http404
    return services.workspace_update(workspace=workspace, name=payload.name, mode=payload.mode)


@router.get("/workspaces/{workspace_id}/members", response=list[MemberOut], tags=["workspaces"])
def list_members(request, workspace_id: str):
    """Who else may use this workspace (owner only)."""
    workspace = workspace_for_user(workspace_id=workspace_id, user=request.user)
    if workspace is None:
        raise Http404
    return workspace.members.select_related("user").order_by("added_at")


@router.post("/workspaces/{workspace_id}/members", response={201: MemberOut}, tags=["workspaces"])
def add_member(request, workspace_id: str, payload: MemberIn):
    """Let someone use this workspace: `read` (their turns only read and compute) or `write`."""
    workspace = workspace_for_user(workspace_id=workspace_id, user=request.user)
    if workspace is None:
        raise Http404
    return Status(201, services.member_set(workspace=workspace, username=payload.username, access=payload.access))


@router.delete("/workspaces/{workspace_id}/members/{username}", response={204: None}, tags=["workspaces"])
def remove_member(request, workspace_id: str, username: str):
    workspace = workspace_for_user(workspace_id=workspace_id, user=request.user)
    if workspace is None or not services.member_remove(workspace=workspace, username=username):
        raise Http404
    return Status(204, None)


@router.post("/sessions", response={201: SessionOut})
def create_session(request, payload: SessionIn):
    workspace = None
    if payload.workspace_id is not None:
        usable = workspace_usable_by(workspace_id=payload.workspace_id, user=request.user)
        if usable is None:
            raise Http404
        workspace = usable[0]
    return Status(201, services.session_create(owner=request.user, title=payload.title, workspace=workspace))


class SessionPatch(Schema):
    title: str


@router.get("/sessions", response=list[SessionOut])
def list_sessions(request, q: str = "", workspace_id: UUID | None = None):
    """Your sessions, newest first. `q` searches titles and messages; `workspace_id` filters."""
    return session_list(user=request.user, query=q, workspace_id=workspace_id)


@router.patch("/sessions/{session_id}", response=SessionOut)
def rename_session(request, session_id: str, payload: SessionPatch):
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    return services.session_rename(session=session, title=payload.title)


@router.delete("/sessions/{session_id}", response={204: None})
def delete_session(request, session_id: str):
    """The session, its turns, messages and traces."""
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    services.session_delete(session=session)
    return Status(204, None)


@router.get("/sessions/{session_id}/export", response=dict)
def export_session(request, session_id: str, format: str = "md"):
    """The conversation as Markdown (`md`), JSON (`json`) or JSON Lines (`jsonl`), as a download."""
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    try:
        body, content_type = session_export(session=session, format=format)
    except ValueError as exc:
        raise services.InvalidInput(str(exc)) from exc
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="session-{session.id}.{format}"'
    return response


class ModelChoiceOut(Schema):
    name: str
    aliases: list[str]
    provider: str
    tier: str
    where: str
    context_window: int
    input_per_mtok: str | None
    output_per_mtok: str | None
    supports_tools: bool
    supports_vision: bool
    available: bool
    unavailable_reason: str | None


class PinIn(Schema):
    model: str = ""  # empty: unpin, the routing chain chooses


@router.get("/chat/models", response=list[ModelChoiceOut], tags=["models"])
def list_model_choices(request):
    """The chat's model picker: each enabled model, its price per million tokens (USD), where it
    runs, and why it cannot serve now, if it cannot."""
    return picker.choices()


@router.put("/sessions/{session_id}/model", response=SessionOut)
def pin_model(request, session_id: str, payload: PinIn):
    """Pin a model for the session (slot 2 of the routing chain), or unpin it with an empty name."""
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    return services.session_pin_model(session=session, name=payload.model)


@router.get("/sessions/{session_id}/turns", response=list[TurnOut])
def list_turns(request, session_id: str):
    session = session_for_user(session_id=session_id, user=request.user)
    if session is None:
        raise Http404
    return turn_list(session=session)


@router.get("/turns/{turn_id}/trace", response=dict)
def get_turn_trace(request, turn_id: str, format: str = "json"):
    """The engine's trace of one turn (owner only). `?format=jsonl` downloads it as JSON Lines:
    the turn first, then one line per event."""
    turn = turn_for_user(turn_id=turn_id, user=request.user)
    if turn is None:
        raise Http404
    trace = turn_trace(turn=turn)
    if format != "jsonl":
        return trace
    events = trace.pop("events")
    lines = [json.dumps({"kind": "turn", **trace}, default=str)]
    lines += [json.dumps({"kind": "event", **event}, default=str) for event in events]
    response = HttpResponse("\n".join(lines) + "\n", content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="turn-{turn.id}.jsonl"'
    return response
