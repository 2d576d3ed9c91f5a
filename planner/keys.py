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


def named(said: str, content: str) -> list[str]:
    """The file's keys that a word of `said` begins (its first four letters at least), in the
    file's order: «e cambia anche la porta, mettila a 8080» beside PORT=3000 → PORT."""
    words = {w[:4] for w in re.findall(r"[^\W\d_]{4,}", fold(said)) if w not in STOPWORDS}
    keys = dict.fromkeys(m.group("key") for m in _KEYS.finditer(content))
    return [k for k in keys if len(k) >= 4 and fold(k)[:4] in words and key_line(content, k)]
