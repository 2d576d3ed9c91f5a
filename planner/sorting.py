"""A list put in order, as an edit (planner.edits): "sort it alphabetically", "sort shopping.txt
from Z to A", «ordinala in ordine alfabetico», «riordina le righe di spesa.txt». The items are the
file's bulleted lines, or every line of a file of short lines and nothing else; a heading or a
note around a bulleted list stays where it is. Numbers sort as numbers. A list already in that
order, or one with numbered items, gets no edit."""

from __future__ import annotations

import re

from planner.checklist import WHERE

_SORT = re.compile(
    r"^(?:(?:and|e|ok|now|ora|poi|please|per favore)[\s,]+)*"
    r"(?:sort|order|alphabeti[sz]e|(?:ri)?ordina(?:lo|la|li|le|mi)?)\b"
    r"(?:\s+(?:it|them|the (?:list|lines|items|entries|file)|my list|la lista|le righe|le voci|gli elementi|il file|"
    r"l'elenco|lines|items|righe|voci|of|di|in|\u00a7))*"
    r"(?:\s+(?P<how>alphabetically|in alphabetical order|(?:from )?a to z|by name|numerically|by number|"
    r"ascending|in ascending order|(?P<down>descending|in descending order|(?:from )?z to a|"
    r"in reverse(?: alphabetical)? order|backwards|in ordine (?:decrescente|inverso|alfabetico inverso)|"
    r"al contrario|dalla z alla a)|"
    r"alfabeticamente|in ordine alfabetico|dalla a alla z|per nome|in ordine crescente|in ordine numerico))?"
    r"(?:\s+(?:please|per favore|thanks|grazie))?\s*[.!]*$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^(?P<lead>[ \t]*[-*+](?:[ \t]+\[[ xX]\])?[ \t]+)(?P<text>\S.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s")
_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?")


def change(said: str, content: str, about: str = "") -> tuple[str, str, tuple[str, str]] | None:
    """(old, new, the answer in English and in Italian) for a sort of the file's list, or None."""
    match = _SORT.match(said.strip())
    if match is None:
        return None
    lines = content.splitlines()
    block = _block(lines)
    if block is None:
        return None
    start, end = block
    items = lines[start:end]
    keys = [(bullet.group("text") if (bullet := _BULLET.match(line)) else line).strip() for line in items]
    numeric = all(_NUMBER.match(k) for k in keys)

    def key(pair):
        text = pair[0]
        return float(_NUMBER.match(text).group(0).replace(",", ".")) if numeric else text.casefold()

    ordered = [line for _, line in sorted(zip(keys, items, strict=True), key=key, reverse=bool(match.group("down")))]
    if ordered == items:
        return None
    old, new = "\n".join(items), "\n".join(ordered)
    return old, new, (f"Sorted the {len(items)} items of {WHERE}.", f"Ordinate le {len(items)} voci di {WHERE}.")


def _block(lines: list[str]) -> tuple[int, int] | None:
    """Where the items are: the longest run of bulleted lines, or every line of a file of short
    lines and nothing else."""
    if any(_NUMBERED.match(line) for line in lines):
        return None
    runs, start = [], None
    for at, line in enumerate([*lines, ""]):
        if _BULLET.match(line) and start is None:
            start = at
        elif not _BULLET.match(line) and start is not None:
            runs.append((start, at))
            start = None
    if runs:
        best = max(runs, key=lambda run: run[1] - run[0])
        return best if best[1] - best[0] >= 2 else None
    filled = [line for line in lines if line.strip()]
    if len(filled) < 2 or len(filled) != len(lines) or any(len(line) > 60 or line.startswith("#") for line in lines):
        return None
    return 0, len(lines)
