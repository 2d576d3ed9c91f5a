"""An action on every file of a kind, with no model: "move all the *.log files into logs/", "delete
all the *.tmp files in build", «sposta tutti i file pdf nella cartella documenti», "make a folder
called meetings and move every meeting-*.md file into it". Two steps: find_files for the glob
(the request's, or the one its words give: "pdf files" → *.pdf), then move_files or delete_files on
what it found (`from_step`), so the approval lists every file before anything changes. Only when
the glob matches between 1 and the tool's limit of files now, the request says one action and no
modifier ("except", "bigger than"), and a move has one folder to go to. Read by the engine after
the cold path (planner.coldpath), whose plans are one step."""

from __future__ import annotations

import re
from pathlib import Path

from planner import canonical, name_share
from planner.cold_request import Ambiguous, Option, one, request_of
from planner.coldpath import CONTEXT
from planner.plan import Plan, of_steps
from planner.text import fold

MAX_FILES = 20  # move_files and delete_files take at most this many paths
# "both drafts", «i due capitoli»: as many files as the request says, named by a word they share.
_COUNTS = {"both": 2, "entrambi": 2, "entrambe": 2, "two": 2, "due": 2, "three": 3, "tre": 3}
_COUNTED = r"\b(?:both|entramb[ie]|(?:the|i|le|gli) (?:two|three|due|tre))\b"

_EVERY = re.compile(r"\b(?:all|every|each|tutti|tutte|ogni|ciascun)\b|" + _COUNTED)
_MOVE = re.compile(r"\b(?:move|put|sposta|spostami|metti|trasferisci)\b")
_DELETE = re.compile(r"\b(?:delete|remove|erase|cancella|elimina|rimuovi)\b")
# "… into it", «… dentro», after "a folder called meetings": the new folder is where they go.
_INTO_IT = re.compile(r"\b(?:into it|in it|in there|there|dentro|li dentro|ci)\b")


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    context = CONTEXT.match(text)
    if context and workspace is not None and not request_of(context.group(1), workspace).values:
        text = text[context.end() :]  # "My workspace root is cluttered. Move every …": why, then what
    folded = fold(text)
    if workspace is None or not _EVERY.search(folded) or "find_files" not in tools:
        return None
    moving, deleting = bool(_MOVE.search(folded)), bool(_DELETE.search(folded))
    if moving == deleting or any(t.startswith("m:") for t in canonical.of(text, workspace).tokens):
        return None  # no action, two of them, or a modifier that narrows which files
    req = request_of(text, workspace)
    try:
        glob = one(req.of_format("glob"))
        folders = req.of_format("folder")
    except Ambiguous:
        return None
    if glob is None and (named := name_share.shared(folded, workspace, looking=False)):
        glob = Option(f"*{named[1]}*", frozenset())  # «i due capitoli» beside capitolo1.md, capitolo2.md
    if glob is None or (req.of("path") and not folders) or req.of("url") or req.of("quoted"):
        return None  # a file named besides the kind: not every file of it
    counted = re.search(_COUNTED, folded)
    wanted = _COUNTS[counted[0].split()[-1]] if counted else None  # "both drafts": two, not three
    if deleting:
        if "delete_files" not in tools or len(folders) > 1:
            return None
        where = {"path": str(folders[0].value)} if folders else {}
        if not _as_many(_matches(workspace / where.get("path", "."), str(glob.value)), wanted):
            return None
        return of_steps(("find_files", {"pattern": glob.value, **where}), ("delete_files", {"from_step": 1}))
    into = [str(f.value) for f in folders] or [f for f in req.fresh if _INTO_IT.search(folded)]
    if "move_files" not in tools or len(into) != 1:
        return None
    found, to = _matches(workspace, str(glob.value)), into[0].strip("/")
    if not _as_many(found, wanted) or any((workspace / to) in p.parents for p in found):
        return None  # none to move, too many, or some are there already
    return of_steps(("find_files", {"pattern": glob.value}), ("move_files", {"from_step": 1, "to": to + "/"}))


def _as_many(found: list[Path], wanted: int | None) -> bool:
    """Some files, at most what one step takes, and as many as the request counts if it does."""
    return 0 < len(found) <= MAX_FILES and wanted in (None, len(found))


def _matches(workspace: Path, glob: str) -> list[Path]:
    """The files the glob matches anywhere in the workspace, as find_files looks for them."""
    try:
        return [p for p in workspace.rglob(glob) if p.is_file()][: MAX_FILES + 1]
    except (OSError, ValueError):
        return []
