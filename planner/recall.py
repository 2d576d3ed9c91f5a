"""A question the workspace's memory notes answer, with a local model: "when's my sister's birthday
again?" after "please remember that my sister's birthday is on March 14". The small model has the
notes in its prompt and still answers something else, so the note itself is the answer, said as
one. Only when exactly one line of MEMORY.md or USER.md holds the question's words (two of them, or
the only one it has); anything else goes to the model as before. Read by planner.direct."""

from __future__ import annotations

import re

from planner.text import STOPWORDS, fold, language, stems, words

_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|whats|what's|when|whens|when's|who|whos|who's|where|which|how|qual|quale|quando|chi|dove|"
    r"come|cosa|che)\b",
    re.IGNORECASE,
)
_NOT_ASKED = STOPWORDS | frozenset(
    "again remind remember recall tell know what when who where which how whats whens my mine your me "
    "ancora ricordi ricorda ricordami dimmi sai qual quale quando chi dove come cosa mio mia miei mie".split()
)
_HEADING = re.compile(r"^\s*#")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def answer(text: str, memory: str) -> str | None:
    """The memory line that answers the question, in a sentence, or None."""
    if not memory.strip() or not _QUESTION.search(text.strip()):
        return None
    asked = {min(stems(w)) for w in words(fold(text)) if w not in _NOT_ASKED and len(w) > 2}
    if not asked:
        return None
    lines = [_BULLET.sub("", line).strip() for line in memory.splitlines()]
    scored = sorted(
        ((len(asked & {min(stems(w)) for w in words(fold(line))}), line) for line in lines
         if line and not _HEADING.match(line)),
        key=lambda pair: -pair[0],
    )  # fmt: skip
    needed = min(2, len(asked))
    if not scored or scored[0][0] < needed or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    note = scored[0][1]
    return f"Dalle tue note di memoria: {note}" if language(text) == "it" else f"From your memory notes: {note}"
