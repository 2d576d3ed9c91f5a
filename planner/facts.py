"""A fact the request asks the agent to remember, as the request states it: the one-step plan of
"remember that my favourite colour is green" (memory_add, to USER.md since it is about the
person), with no model call. Anything else (a fact to change, a request with more in it) is left
to the proposer."""

from __future__ import annotations

import re

from planner.plan import Plan, parse
from planner.text import fold

_REMEMBER = re.compile(
    r"^(?:please |per favore )?(?:remember|keep in mind|don'?t forget|note|ricorda(?:ti)?|tieni a mente|"
    r"non dimenticare|segnati|memorizza)\s+(?:that|che)\s+(?P<fact>[^\n]{3,300}?)[.!]?$",
    re.IGNORECASE,
)
# A fact about the person goes to USER.md; anything else to MEMORY.md.
_ABOUT_ME = re.compile(r"\b(?:i|i'm|im|my|me|mine|io|sono|mi|mio|mia|miei|mie|ho)\b")


def plan_for(text: str, *, tools: set[str]) -> Plan | None:
    """memory_add's plan when the request is only "remember that <fact>" and the tool is offered."""
    match = _REMEMBER.match(text.strip())
    if match is None or "memory_add" not in tools:
        return None
    fact = match.group("fact").strip()
    target = "user" if _ABOUT_ME.search(fold(fact)) else "memory"
    return parse({"steps": [{"tool": "memory_add", "args": {"text": fact, "file": target}}], "final_message": ""})
