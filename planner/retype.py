"""A new value of a kind the file holds: "e sposta la consegna al 14 giugno" in a letter that names
one date, «ha cambiato numero, adesso è 348 9990001: correggilo» in a list of contacts, "move the
call to 15:30". The request gives one date, time, phone number or e-mail address and asks for a
change; the file holds values of that kind, and exactly one of them is the one meant: the only one
there, or the only one on a line that holds a word of the request (or of the request the last turn
answered: "cerca Giulia in contatti.txt"). Anything else gives None. Read by planner.edits."""

from __future__ import annotations

import re

from planner.text import STOPWORDS, fold, stems, words

_WEEKDAYS = (
    r"lunedi|lunedì|martedi|martedì|mercoledi|mercoledì|giovedi|giovedì|venerdi|venerdì|sabato|domenica|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
_MONTHS_IT = r"gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre"
_MONTHS_EN = r"january|february|march|april|may|june|july|august|september|october|november|december"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_UNITS = r"ml|cl|dl|l|g|gr|kg|mg|tsp|tbsp|cups?|oz|lbs?|cm|mm|km|m|min|h|kcal|%"
# Each kind: its pattern, written so that a value of the kind is matched whole.
_KINDS = (
    (
        "date",
        re.compile(
            rf"(?<!\w)(?:(?:{_WEEKDAYS}),?\s+)?(?:{_DAY}\s+(?:{_MONTHS_IT}|{_MONTHS_EN})|(?:{_MONTHS_EN})\s+{_DAY})"
            rf"(?:,?\s+\d{{4}})?(?!\w)|(?<![\w-])\d{{4}}-\d{{2}}-\d{{2}}(?![\w-])|(?<![\w/])\d{{1,2}}/\d{{1,2}}/\d{{2,4}}(?![\w/])",
            re.IGNORECASE,
        ),
    ),
    ("time", re.compile(r"(?<![\w:.])(?:[01]?\d|2[0-3])[:.][0-5]\d(?![\w:])")),
    ("measure", re.compile(rf"(?<![\w.,])\d+(?:[.,]\d+)?\s?(?:{_UNITS})(?!\w)", re.IGNORECASE)),
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?![\w-])")),
    ("phone", re.compile(r"(?<![\w+])\+?\d[\d .-]{6,}\d(?![\w])")),
)
# The request asks for a change, not for a value to be added or looked up.
_CHANGE = re.compile(
    r"\b(?:change|move|update|correct|fix|set|replace|reschedule|postpone|bring forward|make it|"
    r"cambia|cambialo|cambiala|sposta|spostala|spostalo|aggiorna|aggiornalo|correggi|correggilo|correggila|"
    r"modifica|metti|imposta|rimanda|anticipa|posticipa|ha cambiato|e cambiato)\b",
    re.IGNORECASE,
)
_NOT_SUBJECT = STOPWORDS | frozenset(
    "change move update correct fix set replace cambia sposta aggiorna correggi modifica metti imposta numero number "
    "date data giorno day time ora orario new nuovo nuova adesso now please grazie thanks file".split()
)


def change(said: str, content: str, about: str = "") -> tuple[str, str, str, str] | None:
    """(old line, new line, old value, new value): the line whose one value the request's new value
    replaces, or None."""
    if not _CHANGE.search(fold(said)):
        return None
    for _kind, pattern in _KINDS:
        new = [m.group(0) for m in pattern.finditer(said) if _plausible(_kind, m.group(0))]
        if not new:
            continue
        if len(set(new)) != 1:
            return None  # "from 10 June to 14 June": which one is new is not for a rule to guess
        there = [m for m in pattern.finditer(content) if _plausible(_kind, m.group(0))]
        if _kind == "measure":  # 200ml replaces 300ml, not 200g
            there = [m for m in there if _unit(m.group(0)) == _unit(new[0])]
        olds = [m for m in there if m.group(0) != new[0]]
        if len(olds) > 1 or (olds and len(olds) < len(there)):
            olds = _on_lines_about(olds, content, f"{said} {about}", new[0])
        if len(olds) != 1:
            return None
        old = olds[0]
        start, end = content.rfind("\n", 0, old.start()) + 1, content.find("\n", old.end())
        line = content[start : end if end >= 0 else len(content)]
        if content.count(line) != 1:
            return None
        at, value = old.start() - start, _with_case(old.group(0), new[0])
        return line, line[:at] + value + line[at + len(old.group(0)) :], old.group(0), value
    return None


def _unit(measure: str) -> str:
    return re.sub(r"[\d\s.,]+", "", measure).lower()


def _plausible(kind: str, value: str) -> bool:
    return kind != "phone" or len(re.sub(r"\D", "", value)) >= 8  # not "20 30 40"


def _on_lines_about(olds: list[re.Match], content: str, said: str, new: str) -> list[re.Match]:
    """The values that stand on a line holding a word of the request (less the new value's words)."""
    asked = {s for w in words(said.replace(new, " ")) if fold(w) not in _NOT_SUBJECT and len(w) > 2 for s in stems(w)}
    kept = []
    for match in olds:
        start = content.rfind("\n", 0, match.start()) + 1
        end = content.find("\n", match.end())
        line = content[start : end if end >= 0 else len(content)]
        if asked & {s for w in words(line) for s in stems(w)}:
            kept.append(match)
    return kept


def _with_case(old: str, new: str) -> str:
    """ "Venerdì 7 giugno" becomes "Lunedì 10 giugno", not "lunedì 10 giugno"."""
    return new[:1].upper() + new[1:] if old[:1].isupper() and new[:1].islower() else new
