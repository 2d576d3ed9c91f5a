"""A copy of a file, or of some of its lines, into a new one, with no model: "make a copy of
ufficio/lettera.txt in ufficio/archivio/lettera_2024.txt", «copia le righe 4-6 di poesia.txt in un
file estratto.txt», "copy the first 10 lines of app.log to head.txt". The source is read here and
its text becomes a `write_files` step, approved and undone like any other write; a folder as the
destination keeps the file's name. Nothing else: two sources, a source that is not a text file,
or a destination that exists already (the copy would overwrite it) give None. Read by the engine
after the cold path."""

from __future__ import annotations

import re
from pathlib import Path

from planner import params as P
from planner import spelled
from planner.cold_args import LINE_RANGE, bounds
from planner.plan import Plan, of_steps
from planner.text import fold, language
from planner.workspace import exists, read

MAX_COPY = 64_000

_COPY = re.compile(  # a verb, not a name: "write x to copy.md" copies nothing
    r"(?<![\w./-])(?:copy|duplicate|copia|duplica|copiami|(?:make|fai|fammi|crea|create|save) (?:a|una) (?:copy|copia))"
    r"(?![\w/-]|\.\w)"
)
# A folder to put something in, named after its noun: «in una cartella nuova, definitivi», "into a
# new folder called drafts".
INTO_FOLDER = re.compile(
    r"\b(?:in|into|to|nella|dentro)\s+(?:una|a|la|the|an?)?\s*(?:nuova\s+|new\s+)?(?:cartella|folder|directory)"
    r"(?:\s+nuova)?\s*,?\s+(?:(?:called|named|chiamata|di nome)\s+)?(?P<name>[a-z0-9_][\w.-]*)\s*[.!?]*$",
    re.IGNORECASE,
)
# Which lines, besides a range (cold_args.LINE_RANGE): "the first 10 lines", «le ultime 3 righe».
_ENDS = re.compile(r"\b(?P<end>first|last|prime|primi|ultime|ultimi)\s+(?P<n>\d{1,5}|[a-z]+)\s+(?:lines|righe)\b")


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    folded = fold(text)
    if workspace is None or "write_files" not in tools or not _COPY.search(folded):
        return None
    values = P.extract(text, workspace).values
    paths = [v.text for v in values if v.type == "path"]
    if len(paths) == 1 and (folder := INTO_FOLDER.search(folded)):
        paths.append(folder.group("name") + "/")  # «copia a.txt in una cartella candidature»
    if len(paths) != 2 or any(v.type in ("glob", "url", "quoted") for v in values):
        return None
    return of_file(paths[0], paths[1], text, workspace)


def of_file(source: str, destination: str, text: str, workspace: Path) -> Plan | None:
    """The copy of `source` (or of the lines `text` asks for) at `destination`, or None."""
    folded = fold(text)
    content = read(workspace, source)
    if content is None or len(content) > MAX_COPY:
        return None
    if exists(workspace, destination, "is_dir") or destination.endswith("/"):
        destination = f"{destination.rstrip('/')}/{source.rsplit('/', 1)[-1]}"
    if exists(workspace, destination):
        return None  # the copy would overwrite a file: for the engine, which asks
    lines = _lines(folded, content)
    if lines is None:
        return None
    text_copied, what = lines
    italian = language(text) == "it"
    said = (
        f"Copiat{'e' if what else 'o'} {what[1] if what else source} in ${{step1.path}}."
        if italian
        else f"Copied {what[0] if what else source} to ${{step1.path}}."
    )
    return of_steps(("write_files", {"path": destination, "content": text_copied}), final=said)


def _lines(folded: str, content: str) -> tuple[str, tuple[str, str] | None] | None:
    """The text to copy and how the answer names it (None: the whole file); None when the lines
    asked for are not in the file."""
    lines = content.splitlines(keepends=True)
    if match := LINE_RANGE.search(folded):
        a, b = map(int, bounds(match))
        if not 1 <= a <= b <= len(lines):
            return None
        return "".join(lines[a - 1 : b]), (f"lines {a}-{b}", f"le righe {a}-{b}")
    if match := _ENDS.search(folded):
        n = int(match.group("n")) if match.group("n").isdigit() else spelled.number(match.group("n"))
        if not n or n > len(lines):
            return None
        last = match.group("end") in ("last", "ultime", "ultimi")
        part = lines[-n:] if last else lines[:n]
        which = ("last", "ultime") if last else ("first", "prime")
        return "".join(part), (f"the {which[0]} {n} lines", f"le {which[1]} {n} righe")
    return content, None
