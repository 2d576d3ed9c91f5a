"""Files named by a word their names share: «trovami tutte le fatture che ho» where the workspace
holds fattura-2024-01.txt and fattura-2024-02.txt, "where are my invoices?" beside
invoice-03.pdf. The word is evidence of the user's files for the route decision
(planner.decision), and the cold path finds the files by that name, *fattura*
(planner.cold_args). One word of the request, sharing one name with the files, or nothing: a
verb, a word for files in general, or two words that each name files decide nothing."""

from __future__ import annotations

import re
from pathlib import Path

from planner.intent import _OBJECT_STEMS, _VERB_STEMS
from planner.text import content_words, fold, stems, whole

# At most this many entries of the workspace are looked at (the deterministic layers stay fast).
MAX_ENTRIES = 2000
# A request that looks for something: the word it looks for may be a name.
_LOOKING = whole(
    r"find|locate|where (?:are|is)|where's|show me|list|which|what|do i have|i have|have i got|"
    r"trova\w*|cerca\w*|dove (?:sono|stanno|ho messo|sta|e)|mostra\w*|elenca\w*|quali|quante|quanti|che ho|ho\?"
)
_NOT_NAMES = frozenset(
    "file files folder folders document documents documento documenti cartella cartelle directory all tutti tutte "
    "tutto every ogni some alcuni alcune".split()
)


def shared(folded: str, workspace: Path | None) -> tuple[str, str] | None:
    """(the word, the name the workspace's files share with it), or None."""
    if workspace is None or not _LOOKING.search(folded):
        return None
    names = _names(workspace)
    if not names:
        return None
    found: dict[str, set[str]] = {}
    for word in content_words(folded):
        mine = set(stems(word))
        if len(word) < 4 or word in _NOT_NAMES or any(s in _VERB_STEMS or s in _OBJECT_STEMS for s in mine):
            continue
        if tokens := {t for t in names if mine & set(stems(t))}:
            found[word] = tokens
    if len(found) != 1:
        return None
    word, tokens = next(iter(found.items()))
    return (word, next(iter(tokens))) if len(tokens) == 1 else None


def _names(workspace: Path) -> set[str]:
    """The words of the workspace's file names (fattura-2024-01.txt: fattura), hidden ones aside."""
    out: set[str] = set()
    try:
        for count, path in enumerate(workspace.rglob("*")):
            if count >= MAX_ENTRIES:
                break
            parts = path.relative_to(workspace).parts
            if not any(p.startswith(".") for p in parts) and path.is_file():
                out |= {t for t in re.findall(r"[a-z]+", fold(path.stem)) if len(t) >= 4}
    except OSError:
        return set()
    return out
