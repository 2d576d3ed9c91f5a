"""A number on the one line a word names, corrected: «il nuoto in realtà era 50 minuti, correggilo»
beside "mer 5/6 - nuoto 40 min", "the rent was actually 720, fix it" beside "- rent: 700". The
request gives one number and a word to correct or that it was so "actually"; the one line of the
file that holds the request's other words, with one number of its own (not a date such as 5/6),
gets the new number. Read by planner.edits."""

from __future__ import annotations

import re

from planner.checklist import WHERE
from planner.text import STOPWORDS, fold, stem_set, stems, whole

_CORRECTING = whole(
    r"actually|in fact|in realta|invece|fix it|correct it|update it|change it|correggi\w*|aggiorna\w*|"
    r"sistema\w*|cambia\w*|modifica\w*|era|erano|was|were"
)
_NUMBER = re.compile(r"(?<![\w/.,:-])\d+(?:[.,]\d+)?(?![\w/]|[.,:]\d)")
_NOT_NAMING = STOPWORDS | frozenset(
    "actually fact realta invece correggi correggilo correggila aggiorna aggiornalo sistema sistemalo cambia "
    "cambialo modifica modificalo was were era erano fix correct update change minutes minuti min hours ore".split()
)


def corrected(said: str, content: str, about: str = "") -> tuple[str, str, tuple[str, str]] | None:
    """(the line, the line with the new number, what the answer says), or None."""
    folded = fold(said)
    numbers = _NUMBER.findall(folded)
    if len(numbers) != 1 or not _CORRECTING.search(folded):
        return None
    wanted = [set(stems(w)) for w in re.findall(r"[^\W\d_]{3,}", folded) if w not in _NOT_NAMING]
    if not wanted:
        return None
    lines = [line for line in content.splitlines() if line.strip()]
    holding = [line for line in lines if all(w & stem_set(line) for w in wanted)]
    if len(holding) != 1 or content.count(holding[0]) != 1:
        return None
    line = holding[0]
    own = list(_NUMBER.finditer(line))
    if len(own) != 1 or own[0].group(0) == numbers[0]:
        return None
    new = line[: own[0].start()] + numbers[0] + line[own[0].end() :]
    return line, new, (f"Changed “{line.strip()}” to “{new.strip()}” in {WHERE}.",
                       f"Cambiato “{line.strip()}” in “{new.strip()}” in {WHERE}.")  # fmt: skip
