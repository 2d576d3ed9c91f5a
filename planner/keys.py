"""The keys of a settings file (`key = v`, `key: v`, `"key": v`): the one line that gives a key its
value, and the keys a message names by their first letters ("la porta" → PORT, "the db pool size"
→ pool_size is not: a word must begin the key). Read by planner.edits."""

from __future__ import annotations

import re

from planner.text import STOPWORDS, fold

_KEYS = re.compile(r"^[ \t]*[\"']?(?P<key>[A-Za-z_][\w.-]*)[\"']?[ \t]*[:=]", re.MULTILINE)


def key_line(content: str, key: str) -> re.Match | None:
    """The one line that gives `key` a value (`key = v`, `key: v`, `"key": v`), or None."""
    if len(key) < 2 or fold(key) in STOPWORDS:
        return None
    at = rf"^(?P<pre>[ \t]*(?P<q>[\"']?)(?P<key>{re.escape(key)})(?P=q)[ \t]*[:=][ \t]*)"
    pattern = at + r"(?P<val>.*?)(?P<post>[ \t]*,?[ \t]*)$"
    found = list(re.finditer(pattern, content, re.MULTILINE | re.IGNORECASE))
    return found[0] if len(found) == 1 else None


def with_value(line: re.Match, value: str) -> str:
    """The line of `key_line` with `value` in place of its own: a comment stays, quoting kept."""
    old, post = line.group("val"), line.group("post")
    if comment := re.search(r"\s+[#;].*$", old):  # `port = 8080  # default`: the comment stays
        old, post = old[: comment.start()], comment.group(0) + post
    if re.fullmatch(r"-?\d+(?:\.\d+)?", old.strip()) and (unit := re.fullmatch(r"(-?\d+(?:\.\d+)?)\s+[^\W\d]+", value)):
        value = unit.group(1)  # "45 seconds" for a number of seconds
    if re.fullmatch(r"=\s*[\w.*+-]+", old.strip()) and line.group("pre").rstrip().endswith("="):
        value = "=" + value  # a pin, "requests==2.31.0": the version after "=="
    quote = old[0] if len(old) > 1 and old[0] in "\"'" and old[-1] == old[0] else ""
    if not quote and line.group("q") == '"' and not re.fullmatch(r"-?\d+(?:\.\d+)?|true|false|null", value):
        quote = '"'  # JSON: a text value is a string
    if quote:
        value = quote + value.replace(quote, "\\" + quote) + quote
    return line.group("pre") + value + post


def named(said: str, content: str) -> list[str]:
    """The file's keys that a word of `said` names, in the file's order: a word that begins the key
    or one part of it (its first four letters at least: «e cambia anche la porta» beside PORT=3000,
    "retries" beside MAX_RETRIES), a word that is the key ("ttl"), or the Italian for a common key
    («il livello» beside level)."""
    said_words = _words(said, 2)
    starts = {w[:4] for w in said_words if len(w) >= 4} | {_ENGLISH[w][:4] for w in said_words if w in _ENGLISH}
    keys = dict.fromkeys(m.group("key") for m in _KEYS.finditer(content))
    return [
        k
        for k in keys
        if (fold(k) in said_words or any(len(part) >= 4 and part[:4] in starts for part in _PARTS.split(fold(k))))
        and key_line(content, k)
    ]


def _words(said: str, shortest: int) -> list[str]:
    """The words of `said` that may name something: letters only, folded, no stop-words."""
    return [w for w in re.findall(rf"[^\W\d_]{{{shortest},}}", fold(said)) if w not in STOPWORDS]


_PARTS = re.compile(r"[_.-]")
# Italian words for the keys settings files use, which share no first letters with them.
_ENGLISH = {
    "livello": "level",
    "utente": "user",
    "tentativi": "retries",
    "lingua": "language",
    "tema": "theme",
    "carattere": "font",
    "dimensione": "size",
    "scadenza": "expires",
    "indirizzo": "address",
    "percorso": "path",
    "attivo": "enabled",
    "abilitato": "enabled",
}


def versioned(about: str, content: str) -> tuple[str, str] | None:
    """ "bump it to 16" after "which postgres version is docker-compose.yml using?": the one line
    where a word of the question stands right before a version in a value ("image: postgres:15",
    "FROM python:3.11", "node v18"), as (the line, the version). None for none or several."""
    said_words = set(_words(about, 3))
    found: dict[int, tuple[str, str]] = {}
    for word in said_words:
        pattern = rf"(?<![\w-]){re.escape(word)}(?:[:@=]|\s+v?|-v?)(\d+(?:\.\d+)*)(?![\w.])"
        for match in re.finditer(pattern, content, re.IGNORECASE):
            start = content.rfind("\n", 0, match.start()) + 1
            end = content.find("\n", match.end())
            found[match.start(1)] = (content[start : end if end >= 0 else len(content)], match.group(1))
    return next(iter(found.values())) if len(found) == 1 else None
