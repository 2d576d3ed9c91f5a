"""What the user asked earlier in the session, quoted from the history, with no model: "what did I
ask you first?", "what was my last question?", «cosa ti ho chiesto prima?», «qual era la mia prima
domanda?». A small model answers these by inventing. When the session's earliest turns are no
longer in the history (compacted, or past the turns it keeps), "first" says so."""

from __future__ import annotations

import re

from django.conf import settings

from core.ir import Message
from planner.text import fold, language

_FIRST = r"(?P<first>first|at the (?:start|beginning)|primo|prima domanda|per primo|per prima cosa|all'inizio)"
_ASKED = re.compile(
    r"^\s*(?:(?:and|so|e|allora)[\s,]+)?(?:"
    r"what (?:did|was it) i (?:ask|say|write|tell)(?: (?:you|to you))?(?: (?:" + _FIRST + r"|last|before|earlier|"
    r"just now|a moment ago|previously))?"
    r"|what was my (?:(?P<first2>first|very first)|last|previous|latest) (?:question|message|request)"
    r"|(?:che )?cosa ti (?:ho|avevo) (?:chiesto|detto|scritto)(?: (?:" + _FIRST.replace("first>", "first3>") + r"|"
    r"prima|poco fa|l'ultima volta|per ultimo))?"
    r"|qual (?:era|e) (?:stata )?la mia (?:(?P<first4>prima)|ultima|precedente) (?:domanda|richiesta)"
    r")\s*[?!.]*\s*$",
    re.IGNORECASE,
)


def reply(text: str, history: tuple[Message, ...], *, summary: str = "") -> str | None:
    """The quoted message the question asks for, or None when it is not this question."""
    match = _ASKED.match(fold(text))
    if match is None:
        return None
    italian = language(text) == "it"
    asked = [m.text_content.strip() for m in history if m.role == "user" and m.text_content.strip()]
    if not asked:
        return "Prima di questo non mi hai chiesto nulla." if italian else "You haven't asked me anything before this."
    first = any(match.group(g) for g in ("first", "first2", "first3", "first4"))
    quoted = f"\u201c{asked[0] if first else asked[-1]}\u201d"
    if first and (summary or len(asked) >= settings.METNOS_HISTORY_TURNS):
        return (f"Il messaggio più vecchio che ho ancora parola per parola è: {quoted}" if italian
                else f"The earliest message I still have word for word is: {quoted}")  # fmt: skip
    if first:
        return f"Il tuo primo messaggio è stato: {quoted}" if italian else f"Your first message was: {quoted}"
    return f"Il tuo ultimo messaggio è stato: {quoted}" if italian else f"Your last message was: {quoted}"
