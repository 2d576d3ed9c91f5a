"""Bounded memory (after Metis): each workspace has MEMORY.md (soft cap 2 KB, hard cap 4 KB) and
USER.md (soft 1.5 KB, hard 3 KB). The database is the truth; `<workspace>/.metnos/` mirrors both
files so they can be diffed with git, and an edit made on disk is taken in on the next read.

Past the soft cap a write succeeds, its result asks for a consolidation and `memory.eviction`
fires; a write that would pass the hard cap is refused and nothing is written. This store is what
the memory_* executors get as `ctx.memory` (planner/executors/base.py, MemoryStore)."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from django.db import transaction

from agents.dotfiles import DOT
from agents.models import Workspace, WorkspaceMemory
from core.events import bus
from planner.executors.base import ExecutorError

logger = logging.getLogger(__name__)

FILES = {"memory": "MEMORY.md", "user": "USER.md"}
CAPS = {"memory": (2048, 4096), "user": (1536, 3072)}  # (soft, hard), in bytes of UTF-8


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _size(text: str) -> int:
    return len(text.encode())


class Memory:
    def __init__(self, workspace: Workspace, root: Path, *, session_id: str | None = None, turn_id: str | None = None):
        self.workspace, self.root = workspace, root
        self.ids = {"session_id": session_id, "turn_id": turn_id}

    # -- reads ---------------------------------------------------------------
    def read(self, kind: str) -> str:
        return self._row(kind).text

    def snapshot(self) -> dict[str, str]:
        return {kind: self.read(kind) for kind in FILES}

    def prompt_segment(self) -> str:
        """Both files for the volatile part of the system prompt, or "" when both are empty."""
        parts = [f"## {FILES[kind]}\n{text.strip()}" for kind, text in self.snapshot().items() if text.strip()]
        return "# Memory (this workspace's bounded notes)\n" + "\n\n".join(parts) if parts else ""

    def usage(self) -> str:
        lines = []
        for kind, name in FILES.items():
            soft, hard = CAPS[kind]
            size = _size(self.read(kind))
            state = " (past the soft cap: consolidate)" if size > soft else ""
            lines.append(f"{name}: {size} of {soft} bytes (hard cap {hard}){state}")
        return "\n".join(lines)

    # -- writes (the memory_* tools) -----------------------------------------
    def add(self, kind: str, text: str) -> dict:
        entry = " ".join(text.split())
        if not entry:
            raise ExecutorError("invalid_args", "there is nothing to add")
        current = self.read(kind).rstrip("\n")
        return self._write(kind, f"{current}\n- {entry}\n" if current else f"- {entry}\n")

    def replace(self, kind: str, old: str, new: str) -> dict:
        current = self.read(kind)
        count = current.count(old) if old else 0
        if count == 0:
            raise ExecutorError("not_found", f"{FILES[kind]} does not contain {old[:80]!r}")
        if count > 1:
            raise ExecutorError("invalid_args", f"{old[:80]!r} occurs {count} times in {FILES[kind]}; quote more of it")
        return self._write(kind, current.replace(old, new, 1))

    def consolidate(self, kind: str, text: str) -> dict:
        return self._write(kind, text.strip() + "\n" if text.strip() else "")

    def _write(self, kind: str, text: str) -> dict:
        soft, hard = CAPS[kind]
        size = _size(text)
        if size > hard:
            raise ExecutorError(
                "too_large",
                f"{FILES[kind]} would be {size} bytes, over its hard cap of {hard}: nothing was written. "
                f"Rewrite it shorter with memory_consolidate first.",
            )
        with transaction.atomic():
            row = self._row(kind, lock=True)
            row.text, row.mirrored = text, _digest(text)
            row.save(update_fields=["text", "mirrored", "updated_at"])
        self._mirror(kind, text)
        result = {"ok": True, "file": FILES[kind], "bytes": size, "soft_cap": soft, "hard_cap": hard}
        if size > soft:
            result["notice"] = (
                f"{FILES[kind]} is {size} bytes, past its soft cap of {soft}: consolidate it with memory_consolidate "
                "(keep what matters, drop the rest)."
            )
            bus.emit("memory.eviction", {"workspace_id": str(self.workspace.pk), "file": FILES[kind],
                                         "bytes": size, "soft_cap": soft, "hard_cap": hard}, **self.ids)  # fmt: skip
        return result

    # -- the row and its mirror ----------------------------------------------
    def _path(self, kind: str) -> Path:
        return self.root / DOT / FILES[kind]

    def _row(self, kind: str, lock: bool = False) -> WorkspaceMemory:
        if kind not in FILES:
            raise ExecutorError("invalid_args", f"memory file must be one of {', '.join(FILES)}")
        rows = WorkspaceMemory.objects.select_for_update() if lock else WorkspaceMemory.objects
        row, _ = rows.get_or_create(workspace=self.workspace, kind=kind)
        if not lock:
            self._take_in_disk_edit(kind, row)
        return row

    def _take_in_disk_edit(self, kind: str, row: WorkspaceMemory) -> None:
        path = self._path(kind)
        try:
            on_disk = path.read_text(errors="replace") if path.is_file() and not path.is_symlink() else None
        except OSError:
            on_disk = None
        if on_disk is None:
            if row.text:
                self._mirror(kind, row.text)  # the mirror was removed: write it again
            return
        digest = _digest(on_disk)
        if digest == row.mirrored:
            return
        if _size(on_disk) > CAPS[kind][1]:
            logger.warning("%s was edited on disk past its hard cap; the stored version stays", path)
            return
        row.text, row.mirrored = on_disk, digest
        row.save(update_fields=["text", "mirrored", "updated_at"])

    def _mirror(self, kind: str, text: str) -> None:
        path = self._path(kind)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                path.unlink()
            path.write_text(text)
        except OSError:
            logger.warning("could not mirror %s", path, exc_info=True)
