"""The list of the last turn's file, in a follow-up that names no file (planner.edits): "add my
Kindle to it", «togli il latte dalla lista», "also add a hat", «aggiungi il burro», «togli la zia
Anna, tanto la vediamo a gennaio». The message comes back with the list written as `here`."""

from __future__ import annotations

import re

# The list of the last turn: named by a pronoun ("to it", «alla lista», "from the list"), or not at
# all when another item is added to it ("also add a hat", "add a charger too", «aggiungi anche X»).
_IT = re.compile(
    r"(?<=\s)(?P<prep>to|in|into|on|onto|from|off|a|al|alla|nella|nel|sulla|da|dalla|dal)\s+"
    r"(?:(?:the|my|that|la|mia|quella)\s+)?(?:it|list|file|lista|elenco)\b",
    re.IGNORECASE,
)
_ALSO = re.compile(
    r"^(?:(?:and|e|ok|now|ora|poi)[\s,]+)*(?:(?:also|please also)\s+(?=add\b)|"
    r"(?=add\b.*\s(?:too|as well|at the end|at the bottom|to the end)[.!]*$)|"
    r"(?:aggiungi(?:ci)?)\s+anche\s+|aggiungici\s+)",
    re.IGNORECASE,
)

_BARE_REMOVE = re.compile(
    r"^(?:(?:and|e|ok|now|ora|poi|also)[\s,]+)*(?P<verb>remove|drop|delete|togli|rimuovi|depenna|leva|cancella|"
    r"elimina)\s+(?P<what>[^,;:]+?)(?:\s+(?:too|as well|anche|pure))?(?:\s*[,;].*)?$|"
    r"^(?P<first>[^,;:]+?)[,;]?\s+(?:(?P<clitic>togli|rimuovi|cancella|elimina|depenna|leva)(?:lo|la|li|le)|"
    r"(?P<phrase>remove|delete|drop) (?:it|them)|take (?:it|them) off)\s*[.!]*$",
    re.IGNORECASE,
)

# An item added with no word for the list, and what such an item is not: a sum ("add 5 and 7"), a
# reminder or a task (a tool's own object), a file or a line (something to write).
_BARE_ADD = re.compile(
    r"^(?:(?:and|e|ok|now|ora|poi|please|per favore)[\s,]+)*(?:add|aggiungi)\s+(?P<what>[^;:?]+?)\s*[.!]*$",
    re.IGNORECASE,
)
_NOT_AN_ITEM = re.compile(
    r"\d|\b(?:reminders?|promemoria|tasks?|attivit[aà]|todos?|files?|folders?|cartell[ae]|lines?|rig(?:a|he)|notes?|"
    r"nota|note|memory|memoria|days?|hours?|minutes?|giorn[oi]|or[ae]|minuti?|it|that|this|questo|quello)\b",
    re.IGNORECASE,
)


def said(text: str, here: str) -> str:
    """The message with the list it means written as § (or "" when it means no list)."""
    if _IT.search(text := text.strip().rstrip(".!")):
        return _IT.sub(lambda m: f"{m.group('prep')} {here}", text, count=1)
    if bare := _BARE_REMOVE.match(text):  # «togli la zia Anna, tanto la vediamo a gennaio»
        verb = bare.group("verb") or bare.group("clitic") or "remove"
        return f"{verb} {bare.group('what') or bare.group('first')} from {here}"
    if (also := _ALSO.match(text)) is None:
        bare = _BARE_ADD.match(text)  # «aggiungi il burro», "add eggs and flour"
        return f"add {bare.group('what')} to {here}" if bare and not _NOT_AN_ITEM.search(bare.group("what")) else ""
    rest = re.sub(r"(?i)^add\s+|\s+(?:too|as well|at the end|at the bottom|to the end)$", "", text[also.end() :])
    return f"add {rest} to {here}" if rest else ""
