"""Confinement: every path an executor touches resolves inside the user's workspace.

Paths are resolved with realpath, so neither `..` nor a symlink (anywhere along the path) can
lead outside. A path that does not exist yet (a file to write) is checked through its nearest
existing parent."""

from __future__ import annotations

import os
from pathlib import Path

MAX_PATH_CHARS = 4096


class OutsideWorkspace(Exception):
    error_class = "outside_workspace"


def resolve(workspace: Path, user_path: str) -> Path:
    if not isinstance(user_path, str) or not user_path.strip():
        raise OutsideWorkspace("an empty path")
    if "\x00" in user_path:
        raise OutsideWorkspace("a path with a NUL byte")
    if len(user_path) > MAX_PATH_CHARS or any(len(part) > 255 for part in user_path.split("/")):
        raise OutsideWorkspace(f"a path longer than the file system allows ({len(user_path)} characters)")
    root = Path(os.path.realpath(workspace))
    raw = Path(os.path.expanduser(user_path)) if user_path.startswith("~") else Path(user_path)
    candidate = raw if raw.is_absolute() else root / raw
    resolved = Path(os.path.realpath(candidate))
    if resolved != root and root not in resolved.parents:
        raise OutsideWorkspace(f"{user_path!r} is outside the workspace")
    return resolved


def relative(workspace: Path, path: Path) -> str:
    root = Path(os.path.realpath(workspace))
    rel = path.relative_to(root)
    return str(rel) if str(rel) != "." else "."
