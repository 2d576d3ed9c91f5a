"""Follow-ups that name a file by where the last turn was (planner.followup runs them): "cancella il
leggimi.txt da lì" is the file in the folder the last turn listed or searched, «e mettici un
readme.md con scritto "# Gamma"» is a new file in the one folder the last turn made or named. Each
returns what it found, never a guess: a name that is in no such folder, or in two, is None."""

from __future__ import annotations

import os
import re

from planner import params as P
from planner.text import fold

# The words a follow-up may start with: "and …", "now …", «e poi …», «allora, …».
LEAD = (
    # a word said first, then the request: "bella! salvala in …", "perfetta, salvala", "great, copy it"
    r"^(?:[a-z']+(?: [a-z']+)?\s*[!,.]+\s+)?"
    r"(?:(?:and|now|ok|okay|then|so|please|e|ora|adesso|poi|allora|quindi|per favore)[,]?\s+)*"
)
_THERE = re.compile(
    LEAD + r"(?P<verb>open|read|show(?: me)?|delete|remove|apri|aprimi|leggi|leggimi|mostra|mostrami|cancella|"
    r"elimina|rimuovi)\s+(?:the\s+|il\s+|la\s+|lo\s+|l')?(?:file\s+)?(?P<name>[\w-]+\.\w+)\s+"
    r"(?:from there|in there|there|da li|di li|li dentro|la dentro|da la)\s*[.!?]*$"
)
# «e mettici un readme.md con scritto "# Gamma"», "and put a notes.md in it with 'x'".
_INTO = re.compile(
    LEAD + r"(?:(?:mettici|scrivici|creaci|aggiungici)\b|(?:put|create|add|write)\b.*\b(?:in it|in there|inside it))"
)


# "open the one about the condo", «apri quello del condominio»: the entry of the last listing whose
# path says the word.
_DESCRIBED = re.compile(
    LEAD + r"(?P<verb>open|read|show(?: me)?|delete|remove|apri|aprimi|leggi|leggimi|mostra|mostrami|cancella|"
    r"elimina)\s+(?:the one|that one|quello|quella|quel file)\s+(?:about|with|on|for|named|called|of|del|della|"
    r"dello|dell'|delle|dei|degli|di|su|sul|sulla|sulle|sui|con|che si chiama)\s*(?:the\s+|il\s+|la\s+|l')?"
    r"(?P<word>\w{3,})\s*[.!?]*$"
)


def paths_of(args: dict) -> list[str]:
    found = [args["path"]] if isinstance(args.get("path"), str) else []
    found += [p for p in args.get("paths") or [] if isinstance(p, str)]
    return found


def there(text: str, folded: str, previous: dict, workspace) -> tuple[str, str] | None:
    """(verb, path) for "delete X from there": X in the one folder of the last plan or listing."""
    match = _THERE.match(folded)
    if match is None or workspace is None:
        return None
    steps = (previous.get("plan") or {}).get("steps") or []
    folders = {p.rstrip("/") for step in steps for p in paths_of(step.get("args") or {}) if "." not in p}
    folders |= {p.rsplit("/", 1)[0] for p in previous.get("listing") or [] if "/" in p}
    name = next((v.text for v in P.extract(text).values if fold(v.text) == match.group("name")), None)
    found = [f"{f}/{name}" for f in sorted(folders) if name and (workspace / f / name).is_file()]
    return (match.group("verb"), found[0]) if len(found) == 1 else None


def into_folder(text: str, folded: str, previous: dict, workspace) -> tuple[str, str] | None:
    """(path, content) for «mettici un readme.md con scritto "x"»: a new file, named without a
    folder, in the one folder the last plan named (made, listed)."""
    if not _INTO.match(folded) or workspace is None:
        return None
    folders = [p.rstrip("/") for p in previous.get("files") or [] if (workspace / p).is_dir()]
    if len(folders) > 1:  # «una cartella sito con dentro css e js»: the folder they are in, named before
        common = os.path.commonpath(folders)
        folders = [common] if common and common in (previous.get("request") or "") else folders
    values = P.extract(text).values
    names = [v.text for v in values if v.type == "path" and "/" not in v.text]
    quoted = [v.text for v in values if v.type == "quoted"]
    typed = len(values)
    if not quoted and (said := _SAID.search(text)) and typed == 1:
        quoted, typed = [said.group("text")], 2  # «con scritto solo Ciao mondo»
    if len(folders) != 1 or len(names) != 1 or len(quoted) != 1 or typed != 2:
        return None
    return f"{folders[0]}/{names[0]}", quoted[0]


# What a new file says, written without quotes, to the end: «con scritto solo Ciao mondo».
_SAID = re.compile(
    r"\b(?:con scritto|con dentro|con il testo|che dice|with the text|containing|that says|saying)\s+"
    r"(?:solo\s+|only\s+|just\s+)?(?P<text>\S.{0,200}?)\s*[.!]*$",
    re.IGNORECASE,
)


def described(folded: str, previous: dict) -> tuple[str, str] | None:
    """(verb, path) for «apri quello del condominio»: the one entry of the last listing whose path
    holds the word."""
    match = _DESCRIBED.match(folded)
    listing = previous.get("listing") or previous.get("earlier_listing") or []
    if match is None:
        return None
    found = [p for p in listing if match.group("word") in fold(p)]
    return (match.group("verb"), found[0]) if len(found) == 1 else None
