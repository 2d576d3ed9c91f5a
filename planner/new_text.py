"""A new file's text typed without quotes, so that it needs no model:
    "create a file shopping.txt with eggs, milk and bread"  → write_files shopping.txt "eggs\\nmilk\\nbread\\n"
    «crea il file todo.md con dentro comprare il pane»     → write_files todo.md "comprare il pane"
    "write hello world to hello.txt", «scrivi ciao mondo in saluto.txt» ("put …" is left: "put just
    the error lines in errors.log" describes the text, it does not give it)
A list of three or more short items is written one item a line, so that "add butter to it" and
"how many items?" then work on lines. Only text that is plainly literal: a text that names a file,
starts with an article or a possessive ("with a summary of …", "with my notes"), asks for
something to be worked out (a date, a list, a copy), or goes on to another action is left to the
other layers and the proposer. A quoted text is the cold path's (planner.coldpath)."""

from __future__ import annotations

import re
from pathlib import Path

from planner.plan import Plan, of_steps
from planner.workspace import exists

_PATH = r"(?P<path>[\w./-]*\w\.[A-Za-z0-9]{1,5})"
_CREATE = re.compile(
    r"^(?:please\s+|per favore\s+)?(?:create|make|start|crea|creami|fai|fammi)\s+(?:me\s+)?"
    r"(?:(?:a|an|the|un|uno|il|lo)\s+)?(?:(?:new|nuovo)\s+)?(?:(?:text\s+)?file\s+|file\s+di\s+testo\s+)?"
    r"(?:(?:called|named|chiamato|di nome)\s+)?" + _PATH + r"\s+"
    r"(?:with(?:\s+the\s+(?:text|content|words|lines))?|containing|that says|saying|"
    r"con(?:\s+(?:dentro(?:\s+scritto)?|scritto|su scritto|il testo|le righe|righe))?|che contiene|che dice|"
    r"contenente)\s*:?\s+(?P<text>[^'\"\u201c\u201d\u00ab\u00bb`]+?)\s*[.!]?\s*$",
    re.IGNORECASE,
)
_WRITE = re.compile(
    r"^(?:please\s+|per favore\s+)?(?:write|scrivi)\s+(?P<text>[^'\"\u201c\u201d\u00ab\u00bb`]+?)\s+"
    r"(?:to|in|into|inside|nel|nella|dentro)\s+(?:(?:a|the|un|il)\s+)?(?:(?:new|nuovo)\s+)?(?:file\s+)?"
    + _PATH
    + r"\s*[.!]?\s*$",
    re.IGNORECASE,
)
# What makes a text something to work out or to look up rather than the words to write.
_NOT_LITERAL = re.compile(
    r"^(?:a|an|the|some|my|your|its|this|that|these|those|it|un|uno|una|il|lo|la|i|gli|le|l'|dei|degli|delle|"
    r"mio|mia|miei|mie|questo|questa|quello|quella|qualcosa|something|me|mi)\b"
    r"|\b(?:then|and then|after that|e poi|poi|dopo|date|time|today|tomorrow|now|data|ora|oggi|domani|adesso|"
    r"summary|riassunto|list|lista|elenco|result|risultato|output|content|contenuto|copy|copia|files?|lines?|"
    r"rows?|entries|items?|words?|parts?|section|errors?|totals?|righe|riga|voci|parole|parte|sezione|errori|totale|"
    r"current|attuale|answer|risposta|poem|poesia|story|storia|haiku|joke|barzelletta)\b"
    r"|[\w-]\.[A-Za-z0-9]{1,5}\b|[/*?]",
    re.IGNORECASE,
)
_ITEMS = re.compile(r"\s*,\s*(?:and\s+|e\s+|ed\s+)?|\s+(?:and|e|ed)\s+", re.IGNORECASE)


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    """A write_files step with the text the request types, or None."""
    if "write_files" not in tools or workspace is None:
        return None
    match = _CREATE.match(text.strip()) or _WRITE.match(text.strip())
    if match is None or _NOT_LITERAL.search(match.group("text")):
        return None
    path = match.group("path")
    if exists(workspace, path, "is_dir"):
        return None
    return of_steps(("write_files", {"path": path, "content": _content(match.group("text"))}))


def _content(said: str) -> str:
    """One item a line for a list of three or more short items ("eggs, milk and bread"), else the text."""
    items = [item for item in _ITEMS.split(said) if item]
    if "," in said and len(items) >= 3 and all(len(item.split()) <= 3 for item in items):
        return "".join(f"{item}\n" for item in items)
    return said
