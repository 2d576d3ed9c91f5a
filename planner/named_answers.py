"""Earlier answers a follow-up names by a noun, to keep in a file: «salvami gli ingredienti in
lista.txt» (the recipe just shown), "write these results to results.txt" (the short answers just
given, one after the other), «salvami questi due totali in spese/riepilogo.txt» (the last two).

"save that to b.md" is planner.followup's; here the answer is named by what it is. A definite
article needs the noun in the last request or answer ("save the ingredients …" after a recipe,
not after a poem); a demonstrative points at what was just said; a count takes that many answers.
Never a file ("save the file as b.md" is a copy, for the engine), and never more answers than the
session gave."""

from __future__ import annotations

import re

from planner import params as P
from planner.plan import Plan, of_steps
from planner.text import fold, stems, words
from planner.where import LEAD

_PREP = r"(?:to|in|into|on|onto|nel|nella|nello|su|a|dentro)"
_NAMED = re.compile(
    LEAD + r"(?:save|write|put|store|keep|note down|write down|salva|salvami|scrivi|scrivimi|metti|mettimi|"
    r"annota|annotami|segna|segnami)\s+"
    r"(?P<det>(?:these|those|this|that|the|both|questi|queste|quei|quegli|quelle|questo|questa|quel|quella|"
    r"gli|i|le|il|la|lo|entrambi|entrambe|tutti e|tutte e)\s+|l')"
    r"(?:(?:last|latest|previous|ultime|ultimi|ultima|ultimo)\s+)?(?:(?P<count>two|three|due|tre)\s+)?"
    rf"(?P<noun>[a-z][\w']*(?:\s+(?!{_PREP}\b)[a-z][\w']*)?)\s+"
    rf"(?:{_PREP}\s+)?(?:the file\s+|il file\s+|file\s+)?(?P<path>\S+?)"
    r"(?:\s+(?:please|per favore|grazie|thanks))?\s*[.!?]*$"
)
_COUNTS = {"two": 2, "due": 2, "both": 2, "entrambi": 2, "entrambe": 2, "three": 3, "tre": 3}
_POINTING = frozenset("these those this that questi queste quei quegli quelle questo questa quel quella".split())
_PLURAL_POINTING = frozenset("these those questi queste quei quegli quelle".split())
# Things that are not an answer: a file is copied, not written from what was said.
_NOT_ANSWERS = re.compile(
    r"\b(?:files?|documents?|document[io]|folders?|cartell[ae]|director(?:y|ies)|cop(?:y|ies)|copi[ae]|"
    r"changes?|modifiche|date|data|ora|time)\b"
)
# Nouns that mean what was answered, whatever it was about.
_ANSWERS = re.compile(r"answers?|results?|replies|reply|outputs?|rispost[ae]|risultat[oi]")
# An answer short enough to be one result ("140", "Il 60% ha risposto sì.").
_SHORT = 160
MAX_ANSWERS = 3


def plan_for(text: str, folded: str, previous: dict, workspace) -> tuple[Plan, str] | None:
    """(the plan that writes the answers the message names, the evidence), or None."""
    match = _NAMED.match(folded)
    if match is None or _NOT_ANSWERS.search(match.group("noun")):
        return None
    typed = [v.text for v in P.extract(text, workspace).values if v.type == "path"]
    if len(typed) != 1 or fold(typed[0]) != match.group("path").strip("'\"`") or "." not in typed[0]:
        return None
    said = [a.strip() for a in previous.get("answers") or [previous.get("answer") or ""] if a and a.strip()]
    det, count = match.group("det").strip(), match.group("count")
    if not said:
        return None
    if count or det in ("both", "entrambi", "entrambe", "tutti e", "tutte e"):
        wanted = _COUNTS.get(count or det.split()[0], 2)
        if len(said) < wanted:
            return None
        chosen = said[:wanted]
    elif det in _PLURAL_POINTING:
        chosen = said[:1]
        for answer in said[1:MAX_ANSWERS]:  # the short results just given, one after the other
            if not (_short(chosen[-1]) and _short(answer)):
                break
            chosen.append(answer)
    elif det in _POINTING or _ANSWERS.fullmatch(match.group("noun")) or _in_last(match.group("noun"), previous):
        chosen = said[:1]
    else:
        return None  # "save the poem to a.txt" after a recipe: not what was said
    content = "\n".join(reversed(chosen))
    plan = of_steps(("write_files", {"path": typed[0], "content": content}))
    evidence = "the previous answer" if len(chosen) == 1 else f"the last {len(chosen)} answers"
    return (plan, evidence) if plan else None


def _short(answer: str) -> bool:
    return len(answer) <= _SHORT and "\n" not in answer


def _in_last(noun: str, previous: dict) -> bool:
    """Whether the noun is a word of the last request or answer ("gli ingredienti" after a recipe)."""
    said = f"{previous.get('request') or ''} {previous.get('answer') or ''}"
    known = {s for w in words(fold(said)) for s in stems(w)}
    return any(set(stems(w)) & known for w in words(noun))
