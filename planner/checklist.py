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
    if scored[0][0] == 0:
        return None  # no item holds those words
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return _several(wanted, boxes, content)  # «il pane e le uova»: each word its own item, or none
    box = scored[0][1]
    line = box.group(0)
    if content.count(line) != 1:
        return None
    item = box.group("text")
    said_back = (f"Marked \u201c{item}\u201d as done in {WHERE}.", f"Segnato \u201c{item}\u201d come fatto in {WHERE}.")
    return line, f"{box.group('lead')}x{box.group('close')}{item}", said_back


def _several(wanted: list[set[str]], boxes: list[re.Match], content: str) -> tuple[str, str, tuple[str, str]] | None:
    """Two items or more ticked at once, when each word that names an item names that one alone:
    the lines from the first to the last, with their boxes ticked."""
    hit: dict[int, re.Match] = {}
    for word in wanted:
        holders = [box for box in boxes if word & _stems_of(box.group("text"))]
        if len(holders) > 1:
            return None  # a word of two items: which is not certain
        if holders:
            hit[holders[0].start()] = holders[0]
    if len(hit) < 2:
        return None
    chosen = [hit[at] for at in sorted(hit)]
    start, end = chosen[0].start(), chosen[-1].end()
    old = content[start:end]
    if content.count(old) != 1:
        return None
    new = old
    for box in reversed(chosen):
        at = box.start() - start
        ticked = f"{box.group('lead')}x{box.group('close')}{box.group('text')}"
        new = new[:at] + ticked + new[at + len(box.group(0)) :]
    items = ", ".join(f"\u201c{box.group('text')}\u201d" for box in chosen)
    return old, new, (f"Marked {items} as done in {WHERE}.", f"Segnati {items} come fatti in {WHERE}.")


def _stems_of(text: str) -> set[str]:
    return {s for w in re.findall(r"[a-z0-9]+", fold(text)) for s in stems(w)}


# An item of the list by its place: "the second one", «la terza», "the last item".
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?P<en>first|second|third|fourth|fifth|last)\s+(?:one|item|entry|book|thing)\b|"
    r"\b(?:il|la|l')\s*(?P<it>primo|prima|secondo|seconda|terzo|terza|quarto|quarta|quinto|quinta|ultimo|ultima)\b"
    r"(?!\s+(?:riga|righe|parola|parole|volta|pagina))",  # «la prima riga» is a line, not an item
    re.IGNORECASE,
)
_PLACES = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "prim": 1,
           "terz": 3, "quart": 4, "quint": 5, "ultim": -1}  # fmt: skip
_ITEM_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?P<text>\S.*)$", re.MULTILINE)


def by_ordinal(said: str, content: str) -> str:
    """`said` with an item named by its place in the file's list written as the item's own text:
    "finished the second one, take it off" → "finished Dune, take it off"."""
    match = _ORDINAL.search(said)
    items = [m.group("text") for m in _ITEM_LINE.finditer(content)] if match else []
    if not items:
        return said
    word = fold(match.group("en") or match.group("it"))
    place = _PLACES.get(word) or _PLACES.get(word[:-1], 0)
    if not place or place > len(items):
        return said
    return f"{said[: match.start()]}{items[place - 1 if place > 0 else -1]}{said[match.end() :]}"
