"""Chat sessions: create, rename, delete, their workspace and flags (yolo, plan mode), and the
plan artifacts that plan mode writes into the workspace."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from agents.models import ChatSession, Workspace
from agents.selectors import workspace_access
from agents.services.errors import InvalidInput
from agents.services.workspaces import workspace_default, workspace_path
from core.clock import now
from core.models import TraceEvent
from routing.registry import UnknownModel, current


@transaction.atomic
def session_create(*, owner: AbstractBaseUser, title: str = "", workspace: Workspace | None = None) -> ChatSession:
    """A session of `owner`'s, in a workspace they own or are a member of (their own default one
    when none is named). The session stays private to its owner, whoever else shares the folder."""
    if workspace is not None and workspace_access(workspace=workspace, user=owner) is None:
        raise InvalidInput("no such workspace")
    workspace = workspace or workspace_default(user=owner)
    return ChatSession.objects.create(owner=owner, title=title.strip()[:200], workspace=workspace)


def session_rename(*, session: ChatSession, title: str) -> ChatSession:
    title = (title or "").strip()
    if not title or len(title) > 200:
        raise InvalidInput("a session title is 1 to 200 characters")
    session.title = title
    session.save(update_fields=["title", "updated_at"])
    return session


@transaction.atomic
def session_delete(*, session: ChatSession) -> None:
    TraceEvent.objects.filter(session_id=session.id).delete()
    session.delete()


def session_workspace(session: ChatSession) -> Workspace:
    """Sessions made before workspaces existed belong to their owner's default one."""
    if session.workspace_id is None:
        session.workspace = workspace_default(user=session.owner)
        session.save(update_fields=["workspace"])
    return session.workspace


def session_pin_model(*, session: ChatSession, name: str) -> ChatSession:
    """Slot 2 of the routing chain: the session's model until unpinned (an empty name). A cloud
    model whose key is not set may be pinned; its turns then say why it cannot serve."""
    chosen = ""
    if name:
        try:
            chosen = current().resolve(name).name
        except UnknownModel as exc:
            raise InvalidInput(str(exc)) from exc
    session.sticky_model = chosen
    session.save(update_fields=["sticky_model", "updated_at"])
    return session


def session_set_plan_mode(*, session: ChatSession, on: bool) -> ChatSession:
    session.plan_mode = on
    session.save(update_fields=["plan_mode", "updated_at"])
    return session


def session_set_yolo(*, session: ChatSession, on: bool) -> ChatSession:
    session.yolo = on
    session.save(update_fields=["yolo", "updated_at"])
    return session


def plan_artifact_path(session: ChatSession) -> Path:
    return workspace_path(session_workspace(session)) / ".metnos" / "plans" / f"plan-{str(session.pk)[:8]}.md"


def plan_save(*, session: ChatSession, request: str, text: str) -> Path:
    """An answer given in plan mode is kept as a Markdown artifact in the workspace (one file per
    session, newest plan last), so it can be reviewed, diffed and followed later."""
    path = plan_artifact_path(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        if fh.tell() == 0:
            fh.write(f"# Plans from session {session.title or session.pk}\n")
        fh.write(f"\n## {now():%Y-%m-%d %H:%M} — {request.strip()[:200]}\n\n{text.strip()}\n")
    return path
