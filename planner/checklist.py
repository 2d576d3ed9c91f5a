"""An item of a checklist in a file ticked off: «nel todo.md segnami come fatto il dentista»,
"mark 'call the bank' as done in todo.md", "tick off milk in shopping.md", and right after such a
turn, «pure quello della bolletta» or "the bill one too". The item is the one unticked line
(`- [ ] …`) that holds more of the request's words than any other; its box becomes `[x]`, and
nothing else of the file changes. Read by planner.edits, for a file the request names and for
the file the last turn changed."""

from __future__ import annotations

import re

from planner.text import STOPWORDS, fold, stems, whole

WHERE = "<path>"  # where the answer names the file (planner.edits puts it in)
_BOX = re.compile(r"^(?P<lead>[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[) (?P<close>\][ \t]+)(?P<text>\S.*)$", re.MULTILINE)
_DONE = whole(
    r"done|complete|completed|finished|ticked|tick off|check off|checked off|cross off|crossed off|"
    r"fatt[oaie]|completat[oaie]|finit[oaie]|spunta\w*"
)
_ALSO = whole(r"also|too|as well|and|pure|anche|e|ed|idem")
# The words of ticking itself, which name no item.
_NOT_ITEM = STOPWORDS | frozenset(
    "mark marked tick ticked check checked cross off done complete completed finished item items task tasks "
    "segna segnami segnalo segnala spunta spuntami metti mettimi come fatto fatta fatti fatte completato "
    "completata finito finita voce voci lista elenco list todo also too well pure anche quello quella one".split()
)


def tick(said: str, content: str, about: str = "") -> tuple[str, str, tuple[str, str]] | None:
    """(the item's line, the line ticked, what the answer says in English and Italian), or None.
    `about`: the last request, when `said` leans on it («pure quello della bolletta»)."""
    folded = fold(said)
    if not _DONE.search(folded) and not (about and _DONE.search(fold(about)) and _ALSO.search(folded)):
        return None
    wanted = [set(stems(w)) for w in re.findall(r"[a-z0-9]+", folded) if w not in _NOT_ITEM and len(w) > 1]
    boxes = list(_BOX.finditer(content))
    if not wanted or not boxes:
        return None
    scored = sorted(
        ((sum(1 for w in wanted if w & _stems_of(box.group("text"))), box) for box in boxes), key=lambda s: -s[0]
    )
    if scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # no item holds those words, or two hold as many
    box = scored[0][1]
    line = box.group(0)
    if content.count(line) != 1:
        return None
    item = box.group("text")
    said_back = (f"Marked \u201c{item}\u201d as done in {WHERE}.", f"Segnato \u201c{item}\u201d come fatto in {WHERE}.")
    return line, f"{box.group('lead')}x{box.group('close')}{item}", said_back


def _stems_of(text: str) -> set[str]:
    return {s for w in re.findall(r"[a-z0-9]+", fold(text)) for s in stems(w)}
