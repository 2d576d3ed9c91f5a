"""The pre_fastpath layer: greetings, thanks and goodbyes (English and Italian) get their
reply at once, with no model and no plan."""

from __future__ import annotations

import re

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|ciao|salve|buongiorno|buonasera|thanks|thank you|grazie|"
    r"grazie mille|ok|okay|bye|goodbye|arrivederci)[\s!.,]*$",
    re.IGNORECASE,
)


def reply(text: str) -> str | None:
    match = _GREETING.match(text)
    if not match:
        return None
    word = match.group(1).lower()
    if word in ("thanks", "thank you", "grazie", "grazie mille"):
        return "You're welcome." if not word.startswith("grazie") else "Prego."
    if word in ("bye", "goodbye", "arrivederci"):
        return "Goodbye." if word != "arrivederci" else "Arrivederci."
    if word in ("ok", "okay"):
        return "OK."
    return "Ciao! Cosa posso fare?" if word in ("ciao", "salve", "buongiorno", "buonasera") else "Hello! What can I do?"
