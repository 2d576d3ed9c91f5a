"""The lines of a file that hold a word, written to a new file, with no model: "put just the error
lines in logs/errors.log" after a turn on logs/server.log, "save the lines with TODO from notes.md
to todo.txt", «metti le righe con ERRORE di app.log in errori.txt». The file is the one the request
names, or else the one file the last turn was on. The lines are read here, at plan time, and the
write is validated and approved like any other. A word no line holds gives no plan."""

from __future__ import annotations

import re
from pathlib import Path

from planner.plan import Plan, of_steps
from planner.text import language
from planner.workspace import exists, read

_WORD = r"[\w'-]+"
_PATH = r"[\w./-]*\w\.[A-Za-z0-9]{1,5}"
_LINES = re.compile(
    r"^(?:(?:and|now|ok|then|so|please|e|ora|adesso|poi|allora|quindi|per favore)[\s,]+)*"
    r"(?:put|save|write|copy|extract|metti|salva|scrivi|copia|estrai)\s+(?:(?:just|only|solo|soltanto)\s+)?"
    r"(?:(?:all\s+)?(?:the|le|tutte le)\s+)?"
    rf"(?:(?P<word>{_WORD})\s+lines|"
    rf"lines\s+(?:with|containing|that (?:mention|contain)|mentioning)\s+(?P<with>{_WORD})|"
    rf"righe\s+(?:con|che contengono|che citano|di)\s+(?P<con>{_WORD}))"
    rf"(?:\s+(?:of|from|in|da|di|del|dal|dello)\s+(?P<source>{_PATH}))?"
    r"\s+(?:in|into|to|nel|nella|nello|su)\s+(?:(?:a|the|un|il)\s+)?(?:(?:new|nuovo)\s+)?(?:file\s+)?"
    rf"(?P<path>{_PATH})\s*[.!]?$",
    re.IGNORECASE,
)


def plan_for(text: str, *, tools: set[str], workspace: Path | None, previous: dict) -> Plan | None:
    """A write_files step with the lines that hold the word, or None."""
    match = _LINES.match(text.strip())
    if match is None or "write_files" not in tools or workspace is None:
        return None
    source = match.group("source") or _last_file(previous)
    content = read(workspace, source) if source else None
    path = match.group("path")
    if content is None or path == source or exists(workspace, path, "is_dir"):
        return None
    word = (match.group("word") or match.group("with") or match.group("con")).strip("'\"")
    stem = word[:-1] if len(word) >= 5 else word  # «errore» finds ERROR, "errors" finds "error:"
    kept = [line for line in content.splitlines() if stem.casefold() in line.casefold()]
    if not kept:
        return None
    n = len(kept)
    if language(text) == "it":
        said = f"{'Salvata 1 riga' if n == 1 else f'Salvate {n} righe'} con \u201c{word}\u201d di {source} in "
    else:
        said = f"Saved the {n} line{'s' if n != 1 else ''} with \u201c{word}\u201d from {source} to "
    content = "".join(f"{line}\n" for line in kept)
    return of_steps(("write_files", {"path": path, "content": content}), final=said.replace("$", "") + "${step1.path}.")


def _last_file(previous: dict) -> str | None:
    files = previous.get("files") or []
    return files[0] if len(files) == 1 and previous.get("plan_is_last") is not False else None
