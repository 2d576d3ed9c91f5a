"""A question about what one named file says, when the turn's model is local: "What port is the
server configured on? The config is app/config.ini", «chi è entrato per ultimo nel team? guarda
team/organico.md». The small local model cannot read a file and answer from it (it says "Nothing
found." or a stray number), so the answer is the file itself: the whole of it when it is short,
else its lines that hold the question's words. What the user asked is in front of them, and
nothing is made up. A capable model gets the engine instead, which reads and answers. Read by the
engine after the cold path (planner.coldpath), which serves the questions whose tool and arguments
the request types ("the last line of logs/app.log").

A question that names no file ("which port does the server use?") gets the lines of the one file
that holds one of its words ("port", in config/app.ini). A word no file holds, or one that several
files hold, does not tell where the answer is, and the question goes on to the model."""

from __future__ import annotations

import os
import re
from pathlib import Path

from planner import params as P
from planner.intent import extract
from planner.plan import Plan, of_steps
from planner.text import STOPWORDS, fold, words
from planner.workspace import OutsideWorkspace, paths_named, read, reads_as_folder, resolve

SHORT_LINES = 40  # a file this short is shown whole
MAX_TERMS = 6

_ASKING = (
    r"what|whats|what's|which|who|when|where|how|qual|quale|quali|quanto|quanta|quanti|quante|chi|che|cosa|"
    r"quando|dove|com'e"
)
_QUESTION = re.compile(rf"\?|^\s*(?:{_ASKING}|is|are|does|do|tell me|come|dimmi)\b", re.IGNORECASE)
# A question by its first word: "what port is set in app.ini?" asks, whatever verb it holds.
_ASKED = re.compile(
    rf"^\s*(?:{_ASKING})\b.*\?\s*$|"
    # «la porta del server invece qual è?»: the question word last
    r"\b(?:qual|quale|quali|what|which|quanto|quanta|quanti|quante|chi|dove|quando)\s+(?:e|sono|is|are|was|were|era|erano)\b"
    r"[^?]*\?\s*$"
)
# Verbs of a change, or of work beyond reading: not a question about the file.
_CHANGING = frozenset(
    "write create delete move set convert sort filter share compress send reply run fetch summarize undo".split()
)
_NOT_TERMS = STOPWORDS | frozenset(
    "file files guarda look check config configured see vedi dimmi tell show mostra now adesso ora".split()
)


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    folded = fold(text)
    if workspace is None or "read_files" not in tools or not _QUESTION.search(folded):
        return None
    values = P.extract(text, workspace).values
    paths = paths_named(values)
    if len(paths) > 1 or any(v.type in ("glob", "url", "quoted") for v in values):
        return None
    asked = _asked(folded)
    if set(extract(text).verbs) & _CHANGING and not asked:
        return None  # "… and save it to b.md": a change, or more than a question
    if not paths or reads_as_folder(workspace, paths[0].text):  # "… does the project use?": in project/
        return _across(text, workspace, paths[0].text if paths else "") if asked else None
    content = read(workspace, paths[0].text)
    if content is None or not content.strip():
        return None
    path = paths[0].text
    if content.count("\n") < SHORT_LINES:
        return of_steps(("read_files", {"paths": [path]}))
    asked = text[: paths[0].start] + " " + text[paths[0].end :]
    terms = [w for w in dict.fromkeys(words(asked)) if w not in _NOT_TERMS and len(w) > 2][:MAX_TERMS]
    if not terms:
        return None
    pattern = "|".join(re.escape(t) for t in terms)
    return of_steps(("grep_files", {"pattern": pattern, "paths": [path]}))


def _asked(folded: str) -> bool:
    """A question, with at most where to look after it: "what port is the app running on? it's in
    config/app.env" asks ("running" is no change); "what's in a.md? write it to b.md" does more."""
    head, mark, tail = folded.partition("?")
    if tail.strip() and set(extract(tail).verbs) & _CHANGING:
        return False
    return bool(_ASKED.search(head + mark))


MAX_FILES = 300  # files a question without a file looks through (each under MAX_BYTES); more: no answer
MAX_BYTES = 256 * 1024
_NOT_ASKED = frozenset("use used uses using need needs much many long say says said mean means dice".split())


def _across(text: str, workspace: Path, folder: str) -> Plan | None:
    named = set(words(folder))
    terms = [
        w for w in dict.fromkeys(words(text)) if w not in _NOT_TERMS | _NOT_ASKED | named and len(w) > 2 and w.isalpha()
    ]
    if not terms:
        return None
    held = dict.fromkeys(terms, 0)
    patterns = {t: re.compile(rf"(?<!\w){re.escape(t)}(?!\w)", re.IGNORECASE) for t in terms}
    try:
        where = resolve(workspace, folder) if folder else workspace
    except OutsideWorkspace:
        return None
    texts = _texts(where)
    if texts is None:
        return None  # too many files to say that only one holds the word
    for content in texts:
        for term, pattern in patterns.items():
            held[term] += bool(pattern.search(content))
    telling = [t for t, n in held.items() if n == 1]  # a word two files hold does not tell which one answers
    if not telling:
        return None
    pattern = "|".join(map(re.escape, telling))
    return of_steps(("grep_files", {"pattern": pattern, **({"path": folder} if folder else {})}))


def _texts(workspace: Path) -> list[str] | None:
    """The text of the workspace's files, hidden ones and those over MAX_BYTES aside; None when it
    holds more than MAX_FILES of them."""
    texts = []
    for folder, dirs, names in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(n for n in names if not n.startswith(".")):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
                continue
            if len(texts) == MAX_FILES:
                return None
            texts.append(path.read_bytes().decode("utf-8", errors="ignore"))
    return texts
