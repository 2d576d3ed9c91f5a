"""Confinement: every path an executor touches resolves inside the user's workspace.

Paths are resolved with realpath, so neither `..` nor a symlink (anywhere along the path) can
lead outside. A path that does not exist yet (a file to write) is checked through its nearest
existing parent."""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_PATH_CHARS = 4096
MAX_BYTES = 256_000  # a file the deterministic layers read to plan from (planner.edits, planner.tables)


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


def paths_named(values) -> list:
    """The path values of a request, less a word that is only another one's folder: «chi è entrato
    nel team? guarda team/organico.md», "the class average in class/grades.md"."""
    paths = [v for v in values if v.type == "path"]
    return [p for p in paths if not any(o.text.startswith(p.text.rstrip("/") + "/") for o in paths)]


def read(workspace: Path, path: str) -> str | None:
    """The text of a file inside the workspace, or None (absent, outside it, too large, binary)."""
    try:
        target = resolve(workspace, path)
        if not target.is_file() or target.stat().st_size > MAX_BYTES:
            return None
        return target.read_text(encoding="utf-8")
    except (OutsideWorkspace, OSError, UnicodeDecodeError):
        return None


def exists(workspace: Path | None, name: str, test: str = "exists") -> bool:
    """Whether `name` is in the workspace (`test`: "exists", "is_dir", "is_file"); False for a
    name the file system refuses (too long, a NUL)."""
    try:
        return workspace is not None and getattr(workspace / name, test)()
    except (OSError, ValueError):
        return False


# Files whose names have no extension; any other path whose last part has none reads as a folder:
# "what's inside projects/website?", «l'elenco di quello che c'è in scansioni/2023».
_BARE_FILES = re.compile(
    r"(?:^|/)(?:readme|license|licence|makefile|dockerfile|procfile|changelog|authors|notice|copying|todo|"
    r"gemfile|rakefile|jenkinsfile|vagrantfile|caddyfile|brewfile|\.[\w.-]+)$",
    re.IGNORECASE,
)


def reads_as_folder(workspace: Path | None, path: str) -> bool:
    """Whether a path the request names reads as a folder: it ends in "/", is one in the workspace,
    or has a slash and no extension in its last part (and is not a known file without one)."""
    if path.endswith("/") or (workspace is not None and exists(workspace, path, "is_dir")):
        return True
    if workspace is not None and exists(workspace, path):
        return False
    last = path.rsplit("/", 1)[-1]
    return "/" in path and "." not in last and not _BARE_FILES.search(path)
