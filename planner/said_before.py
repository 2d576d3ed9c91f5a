"""What the user asked earlier in the session, quoted from the history, with no model: "what did I
ask you first?", "what was my last question?", «cosa ti ho chiesto prima?», «qual era la mia prima
domanda?». A small model answers these by inventing, and the session's first message may be long
out of the history a model is shown."""

from __future__ import annotations

import re

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


def reply(text: str, previous: dict) -> str | None:
    """The quoted message the question asks for, or None when it is not this question. `previous`:
    what the session's earlier turns left (agents.selectors.previous_facts), its first and last
    messages among them."""
    match = _ASKED.match(fold(text))
    if match is None:
        return None
    italian = language(text) == "it"
    first = any(match.group(g) for g in ("first", "first2", "first3", "first4"))
    said = previous.get("first_message" if first else "last_message")
    if not said:
        return "Prima di questo non mi hai chiesto nulla." if italian else "You haven't asked me anything before this."
    quoted = f"\u201c{said}\u201d"
    if first:
        return f"Il tuo primo messaggio è stato: {quoted}" if italian else f"Your first message was: {quoted}"
    return f"Il tuo ultimo messaggio è stato: {quoted}" if italian else f"Your last message was: {quoted}"
