"""A setting turned on or off in words, resolved against the file: "turn debug off", "disable the
cache in app.ini", «disattiva il debug», «spegnilo», "turn it on" (after a question about that
key). The key's line must hold a value that is a switch (true/false, on/off, yes/no, 1/0,
enabled/disabled); the new value is its opposite, written as the file writes it ("DEBUG=true" →
"DEBUG=false", "cache: On" → "cache: Off"). Already as asked, or no such key: no edit. Read by
planner.edits, for a request that names the file and for the follow-up on the last turn's file."""

from __future__ import annotations

import re

from planner.checklist import WHERE
from planner.keys import key_line, named, with_value
from planner.text import fold

_OFF_VERBS = r"disable|deactivate|disattiva|disabilita|spegni"
_ON_VERBS = r"enable|activate|attiva|abilita|accendi"
_ARTICLE = r"(?:the\s+|il\s+|la\s+|lo\s+|l'\s*)?"
_SWITCH = re.compile(
    rf"\b(?P<verb>{_OFF_VERBS}|{_ON_VERBS})(?P<clitic>lo|la)?\b(?:\s+{_ARTICLE}(?P<key>[\w.-]+))?"
    rf"|\b(?:turn|switch|set|put)\s+{_ARTICLE}(?P<key2>[\w.-]+)\s+(?P<state>on|off)\b"
    rf"|\b(?:turn|switch)\s+(?P<state2>on|off)\s+{_ARTICLE}(?P<key3>[\w.-]+)",
    re.IGNORECASE,
)
_PRONOUNS = frozenset("it that this lo la questo questa".split())
# Each switch value and its opposite; the first of a pair is "on".
_PAIRS = (("true", "false"), ("on", "off"), ("yes", "no"), ("1", "0"), ("enabled", "disabled"), ("si", "no"))


def change(said: str, content: str, about: str) -> tuple[str, str, tuple[str, str]] | None:
    """(old line, new line, what the answer says in English and Italian), or None."""
    match = _SWITCH.search(said)
    if match is None:
        return None
    verb, state = fold(match.group("verb") or ""), fold(match.group("state") or match.group("state2") or "")
    on = state == "on" or (bool(verb) and re.fullmatch(_ON_VERBS, verb) is not None)
    key = match.group("key") or match.group("key2") or match.group("key3") or ""
    if match.group("clitic") or not key or fold(key) in _PRONOUNS:
        keys = named(about, content)  # «spegnilo», "turn it off": the key the last request asked about
    else:
        keys = [k for k in (key, key.upper()) if key_line(content, k)] or named(key, content)
    lines = {line.span(): line for k in dict.fromkeys(keys) if (line := key_line(content, k))}
    if len(lines) != 1:
        return None
    line = next(iter(lines.values()))
    value = line.group("val").strip().strip("\"'")
    pair = next((p for p in _PAIRS if fold(value) in p), None)
    if pair is None or fold(value) == pair[0 if on else 1]:
        return None  # not a switch, or already as asked
    new = pair[0 if on else 1]
    new = new.upper() if value.isupper() else new.capitalize() if value[:1].isupper() else new
    name, (en, it) = line.group("key"), ("on", "attivato") if on else ("off", "disattivato")
    return line.group(0), with_value(line, new), (f"Turned {name} {en} in {WHERE}.", f"Ho {it} {name} in {WHERE}.")
