"""Workspaces, their folders and their members (writes)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from agents.models import Workspace, WorkspaceMember
from agents.services.errors import InvalidInput
from core.clock import new_id

DEFAULT_WORKSPACE = "default"


def workspace_default(*, user: AbstractBaseUser) -> Workspace:
    """The user's first workspace, made on first use. Its folder, user-<pk>, predates named ones."""
    workspace, _ = Workspace.objects.get_or_create(
        owner=user, name=DEFAULT_WORKSPACE, defaults={"directory": f"user-{user.pk}"}
    )
    return workspace


def workspace_create(*, owner: AbstractBaseUser, name: str, mode: str = Workspace.Mode.ENGINE) -> Workspace:
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise InvalidInput("a workspace name is 1 to 100 characters")
    if mode not in Workspace.Mode.values:
        raise InvalidInput(f"mode must be one of {', '.join(Workspace.Mode.values)}")
    if Workspace.objects.filter(owner=owner, name=name).exists():
        raise InvalidInput(f"you already have a workspace named {name!r}")
    workspace_id = new_id()
    return Workspace.objects.create(
        id=workspace_id, owner=owner, name=name, mode=mode, directory=f"user-{owner.pk}-ws-{workspace_id.hex[:12]}"
    )


def workspace_update(*, workspace: Workspace, name: str | None = None, mode: str | None = None) -> Workspace:
    if mode is not None:
        if mode not in Workspace.Mode.values:
            raise InvalidInput(f"mode must be one of {', '.join(Workspace.Mode.values)}")
        workspace.mode = mode
    if name is not None:
        name = name.strip()
        if not name or len(name) > 100:
            raise InvalidInput("a workspace name is 1 to 100 characters")
        if Workspace.objects.filter(owner=workspace.owner, name=name).exclude(pk=workspace.pk).exists():
            raise InvalidInput(f"you already have a workspace named {name!r}")
        workspace.name = name
    workspace.save(update_fields=["name", "mode"])
    return workspace


def member_set(*, workspace: Workspace, username: str, access: str) -> WorkspaceMember:
    """Add someone to a workspace, or change their access (read | write)."""
    if access not in WorkspaceMember.Access.values:
        raise InvalidInput(f"access must be one of {', '.join(WorkspaceMember.Access.values)}")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InvalidInput(f"no user {username!r}")
    if user.pk == workspace.owner_id:
        raise InvalidInput("the owner already has every access")
    member, _ = WorkspaceMember.objects.update_or_create(workspace=workspace, user=user, defaults={"access": access})
    return member


def member_remove(*, workspace: Workspace, username: str) -> bool:
    deleted, _ = WorkspaceMember.objects.filter(workspace=workspace, user__username=username).delete()
    return bool(deleted)


def workspace_path(workspace: Workspace) -> Path:
    """The folder a workspace's turns act in (made on first use)."""
    path = Path(settings.METNOS_WORKSPACES_ROOT) / workspace.directory
    path.mkdir(parents=True, exist_ok=True)
    return path
