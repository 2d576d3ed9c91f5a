"""The data of plan memory's canonical form (planner.canonical), loaded once from
planner/canonical.yaml and planner/object_kinds.yaml: phrases longest first, the nouns that only
type a value, verbs that depend on the value after them, fillers and modifiers."""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass
from functools import lru_cache

from planner import lexicon
from planner.intent import _OBJECT_PHRASES, _VERB_PHRASES
from planner.text import fold

# Every occurrence replaced, not one: a modifier of a replacement ("replace every 'x'", «ovunque»).
EVERY = re.compile(r"\b(?:every|all|ogni|tutte|tutti|everywhere|ovunque|dappertutto|occurrences|occorrenze)\b")
ROOT = "r:root"  # a phrase naming the workspace root; dropped once it has typed the verb


@dataclass(frozen=True)
class _Data:
    phrases: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]  # first word → (phrase, out), longest first
    slot_nouns: tuple[tuple[tuple[str, ...], str], ...]  # (noun words, the slot they name)
    joins: frozenset[str]
    typers: dict[str, str]
    slot_verbs: dict[str, dict[str, str]]
    fillers: frozenset[str]
    sources: frozenset[str]
    same: dict[str, str]
    words: dict[str, str]
    modifiers: dict[str, str]  # single words
    contains: frozenset[str]  # finding verbs that only say what a place holds


@lru_cache(maxsize=1)
def data() -> _Data:
    spec = lexicon.data()
    same = spec["same_words"]

    def words(phrase) -> tuple[str, ...]:  # as the request's words are: «nella» is «in»
        return tuple(w for t in lexicon.tokens(str(phrase)) if (w := same.get(t, t)))

    table: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for label, phrases in spec["modifiers"].items():
        table += [(words(p), (f"m:{label}",)) for p in phrases if len(words(p)) > 1]
    for out, phrases in spec["phrases"].items():
        table += [(words(p), tuple(out.split())) for p in phrases]
    table += [(words(p), (f"v:{label}",)) for p, label in _VERB_PHRASES]
    table += [(words(p), (f"o:{label}",)) for p, label in _OBJECT_PHRASES]
    # "my files", "my workspace", «i miei file»: the workspace root, which tools take by default.
    table += [(words(p), (ROOT,)) for p in lexicon.kinds()["root_phrases"]]
    phrases: dict[str, list] = {}
    for phrase, out in table:
        phrases.setdefault(phrase[0], []).append((phrase, out))
    for entries in phrases.values():
        entries.sort(key=lambda entry: -len(entry[0]))  # stable: at one length, the earlier source wins
    sources = [words(s) for s in spec["sources"]]
    phrases.update({s[0]: [*phrases.get(s[0], []), (s, ("@from",))] for s in sources if len(s) > 1})
    return _Data(
        phrases=phrases,
        slot_nouns=tuple(
            sorted(
                [(words(n), slot) for slot, nouns in spec["slot_nouns"].items() for n in nouns]
                + [(words(n), "<glob>") for n in lexicon.kinds()["file_nouns"]],  # "*.py script"
                key=lambda pair: -len(pair[0]),  # "web page" before "page"
            )
        ),
        joins=frozenset(w for j in spec["slot_noun_joins"] for w in lexicon.tokens(j)),
        typers=spec["slot_typers"],
        slot_verbs={lexicon.tokens(k)[0] if not k.startswith("v:") else k: v for k, v in spec["slot_verbs"].items()},
        fillers=frozenset(lexicon.tokens(" ".join(spec["fillers"]))),
        sources=frozenset(s[0] for s in sources if len(s) == 1),
        same=same,
        words=spec["words"],
        modifiers=lexicon.modifier_words(),
        contains=frozenset(fold(w) for w in spec["contains"]),
    )


@lru_cache(maxsize=1)
def zones() -> frozenset[str]:
    """The IANA time zones (read from disk once): a city in a time question is written as one
    (planner.spelled), and a path value that is one is a time zone (planner.canonical, planner.cold_args)."""
    return frozenset(zoneinfo.available_timezones())
