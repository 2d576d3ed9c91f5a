"""The words of planner/canonical.yaml, loaded once: the intent's verbs and objects, the
modifiers, numbers and operators in words, schedules, and plan memory's canonical phrases. Data,
not code, so that English and Italian grow by editing one file that every reader shares."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from planner.text import fold

DATA_FILE = Path(__file__).resolve().parent / "canonical.yaml"
KINDS_FILE = Path(__file__).resolve().parent / "object_kinds.yaml"  # read by planner.object_kinds too
# How a phrase is cut into words: folded, apostrophes and punctuation are breaks («c'è» is «c e»),
# a value written as <type> is one word.
_TOKEN = re.compile(r"<[a-z*]*>|[a-z0-9]+|[<>+*/%^=-]+")


def tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(fold(text)))


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    return yaml.safe_load(DATA_FILE.read_text())


@lru_cache(maxsize=1)
def kinds() -> dict[str, Any]:
    """planner/object_kinds.yaml: file nouns, kinds of file and their globs."""
    return yaml.safe_load(KINDS_FILE.read_text())


def verbs() -> dict[str, tuple[str, ...]]:
    return {label: tuple(terms) for label, terms in data()["verbs"].items()}


def objects() -> dict[str, tuple[str, ...]]:
    return {label: tuple(terms) for label, terms in data()["objects"].items()}


@lru_cache(maxsize=1)
def modifier_words() -> dict[str, str]:
    """Single-word modifiers: {word: class}, for the signature of planner.params."""
    out: dict[str, str] = {}
    for label, phrases in data()["modifiers"].items():
        for phrase in phrases:
            words = tokens(str(phrase))
            if len(words) == 1:
                out.setdefault(words[0], label)
    return out


def negations() -> frozenset[str]:
    """The words that say not or except: a request with one is never the request without it."""
    return frozenset(word for word, label in modifier_words().items() if label in ("not", "except"))
