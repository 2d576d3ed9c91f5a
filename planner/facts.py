"""A fact the request asks the agent to remember, as the request states it: the one-step plan of
"remember that my favourite colour is green" (memory_add, to USER.md since it is about the
person), with no model call; and a fact of the person's said to have changed ("I don't eat pasta
anymore, I'm gluten free now"): the line of USER.md that shares its words becomes the new fact
(memory_replace), or, with no such line, the fact is added. Anything else (a request with more in
it, a fact to forget) is left to the proposer."""

from __future__ import annotations

import re
from pathlib import Path

from planner import own_objects, remembered
from planner import params as P
from planner.plan import Plan, parse
from planner.text import fold, whole

_REMEMBER = re.compile(
    r"^(?:please |per favore )?(?:remember|keep in mind|don'?t forget|note|ricorda(?:ti)?|tieni a mente|"
    r"non dimenticare|segnati|memorizza)\s+(?:that|che)\s+(?P<fact>[^\n]{3,300}?)[.!]?$",
    re.IGNORECASE,
)
# A fact about the person goes to USER.md; anything else to MEMORY.md.
_ABOUT_ME = re.compile(r"\b(?:i|i'm|im|my|me|mine|io|sono|mi|mio|mia|miei|mie|ho)\b")


def plan_for(text: str, *, tools: set[str], workspace: Path | None = None) -> Plan | None:
    """memory_add's plan when the request is only "remember that <fact>" and the tool is offered;
    a changed fact's plan (`changed`)."""
    match = _REMEMBER.match(text.strip())
    if match is None or "memory_add" not in tools:
        return changed(text, tools=tools, workspace=workspace)
    fact = match.group("fact").strip()
    target = "user" if _ABOUT_ME.search(fold(fact)) else "memory"
    return parse({"steps": [{"tool": "memory_add", "args": {"text": fact, "file": target}}], "final_message": ""})


_LEAD = re.compile(
    r"^(?:(?:correction|correzione|actually|in realta|anzi|no wait|no aspetta|guarda che|update your memory|"
    r"aggiorna la (?:tua )?memoria|fyi|btw)\b\s*[:,.]?\s*)+",
    re.IGNORECASE,
)
_FORGET = whole(r"forget|scratch|wipe|clear|erase|delete|remove|dimentica\w*|scordati|cancella\w*|togli\w*|elimina\w*")
_STOP = frozenset(
    "that this with from have been what your about anymore longer instead more than they them their there "
    "della delle degli sono anche ancora adesso prima invece posto quindi perche quello questa questo".split()
)


def changed(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    """A fact of the person's said to have changed: memory_replace of the one USER.md line that shares
    the most words with it, or memory_add when no line does. Not a fact to forget, not a pronoun."""
    folded = fold(text).strip()
    found = own_objects.find(folded, P.extract(text, workspace), definition=False)
    if found is None or found[0] != "memory_replace" or _FORGET.search(folded) or own_objects.bare_memory(folded):
        return None
    fact = _LEAD.sub("", text.strip()).strip().rstrip(".!")
    if len(fact) < 3 or not {"memory_replace", "memory_add"} <= tools:
        return None
    line = _closest(fact, workspace)
    if line is None:
        return parse({"steps": [{"tool": "memory_add", "args": {"text": fact, "file": "user"}}], "final_message": ""})
    step = {"tool": "memory_replace", "args": {"file": "user", "old": line, "new": fact}}
    return parse({"steps": [step], "final_message": ""})


def _closest(fact: str, workspace: Path | None) -> str | None:
    """The USER.md line (less its bullet) that shares the most words of four letters or more with the
    fact, when exactly one shares the most."""
    wanted = _stems(fact)
    scored = []
    for kept in remembered.lines(workspace, "USER.md"):
        line = kept.removeprefix("- ").strip()
        if line:
            scored.append((len(wanted & _stems(line)), line))
    best = max((score for score, _ in scored), default=0)
    lines = [line for score, line in scored if score == best]
    return lines[0] if best and len(lines) == 1 else None


def _stems(text: str) -> set[str]:
    return {word[:5] for word in re.findall(r"[a-z]{4,}", fold(text)) if word not in _STOP}
