"""A piece of writing the request asks to sign: "… and sign it Tom", «firmala Luca». A small model
often drops the name; the answer (and the file it is kept in) ends with it, as asked."""

from __future__ import annotations

import re

_NAME = r"(?P<name>[A-ZÀ-Ý][\w'-]+(?: [A-ZÀ-Ý][\w'-]+)?)"
_SIGN = re.compile(
    r"\b(?:sign(?:ed)?(?: it| them| off)?(?: as| with| from)?|firma(?:la|lo|le|li)?(?: come| con)?|"
    rf"firmat[oa] (?:da|come)|from)\s+{_NAME}\s*(?:[.,!?;]|$)",
)
# "from" alone signs only a message: "a birthday message from Anna", not "a story from Rome".
_MESSAGE = re.compile(r"\b(?:message|note|card|letter|email|e-mail|mail|biglietto|lettera|messaggio)\b", re.I)


def signed(request: str, text: str) -> str:
    """`text`, ending with the name the request asks it to be signed with."""
    match = _SIGN.search(request)
    if match is None or not text.strip():
        return text
    if match.group(0).startswith("from") and not _MESSAGE.search(request):
        return text
    name = match.group("name")
    if name.lower() in text[-len(name) - 40 :].lower():
        return text  # signed already
    return f"{text.rstrip()}\n\n{name}"
