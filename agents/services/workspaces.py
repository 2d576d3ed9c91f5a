"""Workspaces, their folders and their members (writes)."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

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


@transaction.atomic
def workspace_register(
    *, owner: AbstractBaseUser, name: str, path: str, mode: str = Workspace.Mode.ENGINE
) -> Workspace:
    """An existing server folder as one of `owner`'s workspaces (the API lets only staff ask).
    Resolved first, so neither `..` nor a symlink reaches past the check: it must lie at or under
    one of METNOS_WORKSPACE_ROOTS_ALLOWED (none by default), and apart from METNOS_WORKSPACES_ROOT,
    whose folders are users' own workspaces. Its `directory` is the absolute resolved path."""
    if not isinstance(path, str) or not os.path.isabs(path):
        raise InvalidInput("path must be an absolute path on the server")
    resolved = os.path.realpath(path)
    if not any(_within(resolved, os.path.realpath(root)) for root in settings.METNOS_WORKSPACE_ROOTS_ALLOWED):
        raise InvalidInput(f"{path} is not under a folder listed in METNOS_WORKSPACE_ROOTS_ALLOWED")
    users_root = os.path.realpath(settings.METNOS_WORKSPACES_ROOT)
    if _within(resolved, users_root) or _within(users_root, resolved):
        raise InvalidInput(f"{path} overlaps METNOS_WORKSPACES_ROOT, which holds users' own workspaces")
    if not os.path.isdir(resolved):
        raise InvalidInput(f"{path} is not a folder on the server")
    if len(resolved) > Workspace._meta.get_field("directory").max_length:
        raise InvalidInput(f"{resolved} is too long a path to register")
    if Workspace.objects.filter(directory=resolved).exists():
        raise InvalidInput(f"{resolved} is already a workspace")
    workspace = workspace_create(owner=owner, name=name, mode=mode)
    workspace.directory = resolved
    workspace.save(update_fields=["directory"])
    return workspace


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


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
    """The folder a workspace's turns act in (made on first use). A registered server folder's
    `directory` is absolute, and joining keeps it as it is."""
    path = Path(settings.METNOS_WORKSPACES_ROOT) / workspace.directory
    path.mkdir(parents=True, exist_ok=True)
    return path
