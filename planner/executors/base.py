"""What an executor's run.py gets and may raise. An executor is `run(args, ctx) -> dict` that
returns `{"ok": True, ...}`; any failure is an ExecutorError with a machine-readable class,
which recovery reads (never the message text)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from planner.workspace import OutsideWorkspace, relative, resolve

# The error classes executors raise; recovery maps them to wrong_args / wrong_tool /
# missing_input / out_of_scope.
ERROR_CLASSES = (
    "invalid_args",
    "not_found",
    "outside_workspace",
    "forbidden",
    "too_large",
    "unsupported",
    "missing_input",
    "network",
    "timeout",
    "crashed",
    "bad_output",
    "blocked_url",  # planner.netguard: an address this server does not fetch
)


class ExecutorError(Exception):
    def __init__(self, error_class: str, message: str):
        super().__init__(message)
        self.error_class = error_class
        self.message = message


class ScratchpadStore(Protocol):
    def read(self, scratchpad_id: str) -> str | None: ...

    def observe(self, step: int, result: dict) -> dict: ...

    def keep(self, text: str) -> str: ...


class MemoryStore(Protocol):
    """The workspace's bounded memory (agents.memory.Memory). `kind` is "memory" or "user".
    Writes return a result object and raise ExecutorError (too_large, not_found, invalid_args)."""

    def read(self, kind: str) -> str: ...

    def add(self, kind: str, text: str) -> dict: ...

    def replace(self, kind: str, old: str, new: str) -> dict: ...

    def consolidate(self, kind: str, text: str) -> dict: ...


class SkillStore(Protocol):
    """The workspace's skills (agents.dotfiles): the body of one, by name; LookupError if none."""

    def load(self, name: str) -> str: ...


class TodoStore(Protocol):
    """The session's task list (agents): replace it whole; returns what was stored."""

    def replace(self, items: list[dict]) -> list[dict]: ...


class HookRunner(Protocol):
    """The workspace's hooks (agents.hooks): pre_tool returns why the call is blocked, or None."""

    def pre_tool(self, name: str, args: dict) -> str | None: ...

    def post_tool(self, name: str, args: dict, result: dict) -> None: ...


class Delegate(Protocol):
    """Starts a subagent (agents.subagents): a turn in a fresh session, on its own Celery task.
    Returns the child turn's id; raises ExecutorError when it may not start."""

    def start(self, profile: str, task: str) -> str: ...


class RecurringStore(Protocol):
    """The user's recurring tasks (agents.recurring.Recurring); each method returns a result."""

    def schedule(self, name: str, prompt: str, schedule: str, times: int | None, grace: int) -> dict: ...

    def cancel(self, name: str) -> dict: ...

    def list(self) -> dict: ...

    def show(self, name: str) -> dict: ...

    def toggle(self, name: str, enabled: bool) -> dict: ...

    def history(self, name: str) -> dict: ...

    def run_now(self, name: str) -> dict: ...


class CheckpointStore(Protocol):
    """What a turn changed, for /undo (agents.checkpoints): before the turn first changes a file,
    the file's content as it was (or its absence) is kept. `path` is resolved inside the workspace,
    `rel_path` is how the user names it."""

    def before_change(self, rel_path: str, path: Path) -> None: ...


class Permissions(Protocol):
    """Whether a step needs a person's approval before it runs (agents.permissions): sensitive
    tools do, unless the session is in YOLO mode or a standing grant covers the tool."""

    def needs_approval(self, name: str, capabilities: tuple[str, ...], args: dict) -> bool: ...


@dataclass(frozen=True)
class ExecContext:
    workspace: Path
    turn_id: str = ""
    now: datetime | None = None
    lang: str = "en"
    actor: str = ""
    scratchpad: ScratchpadStore | None = None
    memory: MemoryStore | None = None  # None in a subagent: it cannot touch the parent's memory
    skills: SkillStore | None = None
    permissions: Permissions | None = None  # None: nothing asks (planner tests, benches)
    todos: TodoStore | None = None
    hooks: HookRunner | None = None
    delegate: Delegate | None = None
    recurring: RecurringStore | None = None
    # A workspace member with read access: planner/access.py decides which steps may run.
    read_only: bool = False
    checkpoints: CheckpointStore | None = None  # None: nothing is kept for undo (planner tests, benches)
    extra: dict[str, Any] = field(default_factory=dict)

    def path(self, user_path: str) -> Path:
        try:
            return resolve(self.workspace, user_path)
        except OutsideWorkspace as exc:
            raise ExecutorError("outside_workspace", str(exc)) from None

    def rel(self, path: Path) -> str:
        return relative(self.workspace, path)

    def checkpoint(self, path: Path) -> None:
        """Call before changing, creating or deleting the file at `path` (a resolved path)."""
        if self.checkpoints is not None:
            self.checkpoints.before_change(self.rel(path), path)

    def entry(self, user_path: str) -> Path:
        """The file or folder `user_path` names, for a tool that moves or deletes it. Unlike `path`,
        a symbolic link that stays inside the workspace is the entry itself, not its target:
        deleting `latest.md -> notes/2024.md` removes the link and keeps the note."""
        target = self.path(user_path)
        name = Path(user_path).name
        if name in ("", ".", ".."):
            return target
        own = self.path(str(Path(user_path).parent)) / name
        return own if own.is_symlink() else target

    def files_under(self, path: Path, limit: int) -> list[Path]:
        """The regular files at or under `path` (a folder's whole tree): what a move or a delete
        checkpoints. A link inside that leads outside the workspace refuses the whole operation;
        one that stays inside is moved or removed as a link, and holds no content to keep."""
        if path.is_symlink() or not path.is_dir():
            return [path] if path.is_file() and not path.is_symlink() else []
        found: list[Path] = []
        for folder, dirs, files in os.walk(path):
            for name in dirs + files:
                item = Path(folder) / name
                if item.is_symlink():
                    try:
                        resolve(self.workspace, str(item))
                    except OutsideWorkspace:
                        raise ExecutorError(
                            "outside_workspace", f"{self.rel(item)} is a link that leads outside the workspace"
                        ) from None
                elif name in files and item.is_file():
                    found.append(item)
            if len(found) > limit:
                raise ExecutorError("too_large", f"{self.rel(path)} holds more than {limit} files")
        return found
