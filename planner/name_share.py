"""Files named by a word their names share: «trovami tutte le fatture che ho» where the workspace
holds fattura-2024-01.txt and fattura-2024-02.txt, "where are my invoices?" beside
invoice-03.pdf. The word is evidence of the user's files for the route decision
(planner.decision), and the cold path finds the files by that name, *fattura*
(planner.cold_args). Each word of the request that names files shares one name with them, and
several words one file's name holds are found in its order ("the beach photos" beside
photo-beach.jpg: *photo*beach*); a verb or a word for files in general decides nothing."""

from __future__ import annotations

import os
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


def shared(folded: str, workspace: Path | None, *, looking: bool = True) -> tuple[str, str] | None:
    """(the word, the name the workspace's files share with it), or None. `looking`: only in a
    request that looks for something (an action on the files named, planner.batch, says False)."""
    if workspace is None or (looking and not _LOOKING.search(folded)):
        return None
    files = _names(workspace)
    names = {t for name in files for t in name}
    found: dict[str, set[str]] = {}
    for word in content_words(folded):
        mine = set(stems(word))
        if len(word) < 4 or word in _NOT_NAMES or any(s in _VERB_STEMS or s in _OBJECT_STEMS for s in mine):
            continue
        if tokens := {t for t in names if mine & set(stems(t))}:
            found[word] = tokens
    if not found or any(len(tokens) != 1 for tokens in found.values()):
        return None
    if len(found) == 1:
        word, tokens = next(iter(found.items()))
        return word, next(iter(tokens))
    # "the beach photos" beside photo-beach.jpg: the names that hold every word, in their order there
    wanted = {next(iter(tokens)) for tokens in found.values()}
    holding = [name for name in files if wanted <= set(name)]
    if not holding:
        return None
    ordered = sorted(wanted, key=holding[0].index)
    return " ".join(found), "*".join(ordered)


def _names(workspace: Path) -> list[tuple[str, ...]]:
    """The words of each file name in the workspace (fattura-2024-01.txt: fattura), hidden ones aside."""
    return [tuple(t for t in re.findall(r"[a-z]+", fold(Path(p).stem)) if len(t) >= 4) for p in files(workspace)]


def files(workspace: Path) -> list[str]:
    """The workspace's files, as paths relative to it, hidden files and folders aside; at most
    MAX_ENTRIES entries are looked at."""
    return [(here / name).as_posix() for here, _, names in _walk(workspace) for name in names]


def folders(workspace: Path) -> list[str]:
    """The workspace's folders below its root, as `files` walks them: "progetti/orto/appunti"."""
    return [(here / name).as_posix() for here, names, _ in _walk(workspace) for name in names]


def _walk(workspace: Path):
    seen = 0
    for top, subs, names in os.walk(workspace):
        subs[:] = sorted(f for f in subs if not f.startswith("."))  # .git and the like are not walked
        yield Path(top).relative_to(workspace), subs, sorted(n for n in names if not n.startswith("."))
        seen += len(subs) + len(names)
        if seen >= MAX_ENTRIES:
            break
