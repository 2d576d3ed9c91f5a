"""A file the request names to read, change or delete that is not in the workspace, said plainly
with the nearest names the workspace has, instead of a plan that fails on it: «leggi manca.md»,
"how many lines does nothere.txt have?", "delete old.log" (before any approval is asked). A file
named as where to write ("… and save it to b.md") is never this: writing makes it. Read by
planner.dispatch after the route decision."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from planner import name_share, object_kinds
from planner import params as P
from planner.decision import Decision
from planner.text import language
from planner.workspace import exists

# The tools whose named files must be there already; a move's destination is its last path.
_NEEDS_THERE = ("read_files", "delete_files", "edit_file", "move_files")
# Words that make the path after them a destination: "save it to b.md", «salvalo in b.md».
_DESTINATION = re.compile(
    r"\b(?:to|into|onto|as|in|inside|under|nel|nella|nello|dentro|come|a|al|alla|su|sul|sulla|called|chiamat\w+)"
    r"\s+(?:(?:the|a|new|il|la|lo|un|una|nuovo|nuova|file|folder|cartella)\s+)*[`'\"]?$",
    re.IGNORECASE,
)


_MAKING = re.compile(
    r"\b(?:write|save|create|make|put|add|append|new|scrivi\w*|salva\w*|crea\w*|metti\w*|aggiungi\w*|"
    r"nuov[oa]|con scritto|containing)\b"
)


def reply(text: str, decision: Decision, extraction: P.Extraction, workspace: Path | None) -> str | None:
    """The answer for a request whose named file (or folder to list) is not there, or None."""
    if not decision.sure:
        return None  # "should package-lock.json be committed?": a question about the world, maybe
    if workspace is not None and decision.route == "tools" and decision.tool == "list_files":
        return _no_folder(text, decision, workspace)
    if workspace is None or decision.route != "tools" or decision.tool not in _NEEDS_THERE:
        return None
    if decision.tool != "delete_files" and _MAKING.search(text.lower()):
        return None  # «mettici un file semina.md con scritto …»: a file to make
    named = [
        v
        for v in extraction.values
        if v.type == "path"
        and "." in v.text.rsplit("/", 1)[-1]
        and object_kinds.is_file_extension(v.text.rsplit(".", 1)[1])
        and not _DESTINATION.search(text[: v.start])
    ]
    if decision.tool == "move_files":
        named = named[:1]  # what moves; where it goes is made
    gone = [v.text for v in named if not exists(workspace, v.text)]
    if not gone:
        return None
    files, name = name_share.files(workspace), gone[0].rsplit("/", 1)[-1]
    names = {f: f.rsplit("/", 1)[-1] for f in files}
    like = set(difflib.get_close_matches(name, list(names.values()), n=2, cutoff=0.75))  # "dat.txt": data.txt
    near = [f for f in files if names[f] == name][:2] or [f for f in files if names[f] in like][:2]
    if language(text) == "it":
        said = f"Nel tuo spazio di lavoro non c'è il file {gone[0]}."
        return said + (f" Forse intendevi {' o '.join(near)}?" if near else "")
    said = f"There is no file {gone[0]} in your workspace."
    return said + (f" Did you mean {' or '.join(near)}?" if near else "")


def _no_folder(text: str, decision: Decision, workspace: Path) -> str | None:
    """«cosa c'è nella cartella ricette?» with no such folder: said plainly, with the nearest folder."""
    named = [e.split(" ", 1)[1].rstrip("/") for e in decision.evidence if e.startswith(("folder ", "path "))]
    gone = [name for name in named if name and "." not in name.rsplit("/", 1)[-1] and not exists(workspace, name)]
    if not gone or len(gone) != len(named):
        return None
    near = difflib.get_close_matches(gone[0], name_share.folders(workspace), n=2, cutoff=0.75)
    if language(text) == "it":
        said = f"Nel tuo spazio di lavoro non c'è la cartella {gone[0]}."
        return said + (f" Forse intendevi {' o '.join(near)}?" if near else "")
    said = f"There is no folder {gone[0]} in your workspace."
    return said + (f" Did you mean {' or '.join(near)}?" if near else "")
