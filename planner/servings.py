"""A recipe's quantities for another number of people, with no model: «e se siamo in 6 quanto
macinato serve?», "how much flour for 8 people?", then «e di parmigiano?» (the same number, another
ingredient). The recipe is the last turn's one file; it says how many it serves ("(4 persone)",
"serves 4", «dosi per 4»), and the ingredient is the one line of it that holds the question's word
and a quantity. The quantity is scaled and said; nothing else is guessed. Read by planner.followup."""

from __future__ import annotations

import re

from planner.text import STOPWORDS, fold, language, words
from planner.workspace import read

_SERVES = re.compile(
    r"\b(?:serves|dosi per|porzioni:?|servings:?|yield:?)\s+(\d{1,2})\b"
    r"|\b(\d{1,2})\s+(?:persone|porzioni|people|servings|persons)\b"
)
_PEOPLE = r"(?:persone|people|porzioni|servings|guests|ospiti)"
# "for 6", «siamo in 6», "for 6 people"; not "for 2 cakes", «in 2 ore»: another noun after the number
_FOR = re.compile(
    rf"\b(?:siamo in|saremo in|for|per|in)\s+(\d{{1,3}})(?:\s+{_PEOPLE}\b"
    r"|(?!\s+(?!(?:how|what|quanto|quanta|quanti|quante|serve|servono|ci|do|i|we|e|and)\b)[a-z]))"
    rf"|\b(\d{{1,3}})\s+{_PEOPLE}\b"
)
_HOW_MUCH = re.compile(r"\b(?:how much|how many|quanto|quanta|quanti|quante)\b")
_AND_OF = re.compile(
    r"^(?:e|and|what about|how about)\s+(?:di|del|della|dello|dei|delle|degli|the|of)?\s*(?P<rest>.+?)\s*\??$"
)
_QUANTITY = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)(?![\w.,]*\d)")
_NOT_INGREDIENT = STOPWORDS | frozenset(
    "how much many quanto quanta quanti quante serve servono need needed ci vuole vogliono siamo saremo persone "
    "people porzioni servings for per what about and di del della dello dei delle degli".split()
)


def answer(text: str, previous: dict, workspace) -> tuple[str, str] | None:
    """(the answer, the recipe's path), or None when the message is not such a question for sure."""
    files = previous.get("files") or []
    if workspace is None or len(files) != 1:
        return None
    folded = fold(text).strip()
    people = _people(folded)
    rest = folded
    if people is None and (more := _AND_OF.match(folded)):  # «e di parmigiano?»: the last question's number
        asked = fold(previous.get("request") or "")
        people = _people(asked) if _HOW_MUCH.search(asked) else None
        rest = more.group("rest")
    elif people is None or not _HOW_MUCH.search(folded):
        return None
    content = read(workspace, files[0])
    serves = _SERVES.search(fold(content or ""))
    if people is None or serves is None:
        return None
    base = int(serves.group(1) or serves.group(2))
    wanted = {w for w in words(rest) if w not in _NOT_INGREDIENT and len(w) > 2 and not w.isdigit()}
    lines = [line for line in content.splitlines() if _QUANTITY.search(line) and not _SERVES.search(fold(line))]
    found = [line for line in lines if _holds(line, wanted)]
    if not base or len(found) != 1:
        return None
    line = found[0].strip().lstrip("-*• ").strip()
    scaled = _QUANTITY.sub(lambda m: _number(float(m.group(1).replace(",", ".")) * people / base, text), line, count=1)
    it = language(text) == "it" or language(previous.get("request") or "") == "it"
    said = f"Per {people} persone: {scaled}." if it else f"For {people} people: {scaled}."
    return said, files[0]


def _people(folded: str) -> int | None:
    match = _FOR.search(folded)
    return int(match.group(1) or match.group(2)) if match else None


def _holds(line: str, wanted: set[str]) -> bool:
    folded = fold(line)
    return any(re.search(rf"\b{re.escape(w[: max(4, len(w) - 1)])}", folded) for w in wanted)


def _number(value: float, text: str) -> str:
    if value.is_integer():
        return str(int(value))
    shown = f"{value:.1f}".rstrip("0").rstrip(".")
    return shown.replace(".", ",") if language(text) == "it" else shown
