"""The object kinds of planner/object_kinds.yaml: which words in a request stand for workspace
objects, and which values they stand for ("markdown files" → `*.md`, "my files" → the root)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from planner.text import fold

DATA_FILE = Path(__file__).resolve().parent / "object_kinds.yaml"


@dataclass(frozen=True)
class Derived:
    """A value a request gives in words: `phrase` as written (folded), `value` what it stands for."""

    kind: str  # "glob" | "root"
    phrase: str
    value: str


@dataclass(frozen=True)
class _Kinds:
    file_nouns: frozenset[str]
    globs: tuple[tuple[str, str], ...]  # (folded word or phrase, glob)
    root: str
    root_phrases: tuple[str, ...]
    extensions: frozenset[str]
    web_domains: frozenset[str]
    time_zones: dict[str, str]  # folded city or zone name → IANA name


@lru_cache(maxsize=1)
def _kinds() -> _Kinds:
    data = yaml.safe_load(DATA_FILE.read_text())
    globs = tuple((fold(word), kind["glob"]) for kind in data["file_kinds"] for word in kind["words"])
    return _Kinds(
        file_nouns=frozenset(fold(n) for n in data["file_nouns"]),
        globs=globs,
        root=data["root"],
        root_phrases=tuple(fold(p) for p in data["root_phrases"]),
        extensions=frozenset(fold(e) for e in data["file_extensions"]),
        web_domains=frozenset(data["web_domains"]),
        time_zones={fold(name): zone for name, zone in data["time_zones"].items()},
    )


# Kinds whose name alone, in the plural, means files of that kind ("the logs" may be a folder).
_BARE_KINDS = frozenset("pdf csv tsv json xml yaml png jpg jpeg gif svg docx xlsx pptx mp3 mp4 ipynb html".split())
_PLURAL_EN = r"(?:my|our|the|all(?: (?:the|my|our))?|which|what|any|some|how many)"
_PLURAL_IT = r"(?:i miei|i nostri|tutti i|quali|quanti|che|i|dei|gli)"
_PLACE_AFTER = re.compile(r"\s+(?:in|inside|under|within|nel|nella|nello|nei|dentro|sotto)\s+(?!(?:it|there|here)\b)\w")


def _whole(phrase: str, text: str) -> re.Match | None:
    return re.search(rf"(?<![\w.*]){re.escape(phrase)}(?![\w])", text)


def derived(text: str) -> list[Derived]:
    """The values the request gives in words, in order of appearance: a kind of file next to a
    file noun ("the markdown files", "i file python") and the workspace root ("my files")."""
    folded = fold(text)
    kinds = _kinds()
    found: list[tuple[int, Derived]] = []
    nouns = "|".join(sorted(map(re.escape, kinds.file_nouns), key=len, reverse=True))
    for word, glob in kinds.globs:
        if word not in folded:  # both patterns below hold the word as written: most kinds stop here
            continue
        w = re.escape(word)
        # not a file's name: «il file c.md» is not the C files
        pattern = rf"(?<![\w.*])(?:{w}\s+(?:{nouns})|(?:{nouns})\s+(?:in\s+|di\s+)?{w})(?!\w|\.\w)"
        match = re.search(pattern, folded)
        if match:
            found.append((match.start(), Derived("glob", match.group(0), glob)))
        # "my pdfs", «quali csv ho?», «tutti i pdf»: a kind of file in the plural, with no file noun
        bare = re.search(rf"(?<![\w.*])(?:{_PLURAL_EN}\s+{w}s|{_PLURAL_IT}\s+{w})(?![\w.])", folded)
        if match is None and bare and word in _BARE_KINDS:
            found.append((bare.start(), Derived("glob", bare.group(0), glob)))
    for phrase in kinds.root_phrases:
        match = _whole(phrase, folded)
        if match and not _PLACE_AFTER.match(folded, match.end()):  # "my files in notes/": notes/
            found.append((match.start(), Derived("root", phrase, kinds.root)))
    seen: set[str] = set()
    ordered = []
    for _, item in sorted(found, key=lambda pair: pair[0]):
        if item.value not in seen:
            seen.add(item.value)
            ordered.append(item)
    return ordered


def derived_values(text: str) -> set[str]:
    """The values a plan may use because the request gives them in words."""
    return {item.value for item in derived(text)}


def time_zones() -> dict[str, str]:
    """Cities and zones a time question names, folded → IANA: "tokyo" → Asia/Tokyo."""
    return _kinds().time_zones


def is_file_extension(ext: str) -> bool:
    return fold(ext.lstrip(".")) in _kinds().extensions


def is_web_address(name: str) -> bool:
    """A host, or a page on one, written without a scheme: "example.com/privacy", "www.ansa.it"."""
    host = fold(name).split("/", 1)[0]
    labels = host.split(".")
    if len(labels) < 2 or not all(re.fullmatch(r"[a-z0-9-]+", label) for label in labels):
        return False
    return labels[0] == "www" or labels[-1] in _kinds().web_domains


# "create two folders: src and tests", «crea le cartelle foto e video»: the names listed after the noun.
_LISTED_FOLDERS = re.compile(
    r"\b(?:folders|directories|dirs|cartelle|sottocartelle|subfolders|sub-folders|subdirectories)"
    r"(?:\s+(?:called|named|chiamate|di nome))?\s*[:,]?\s+"  # «… due sottocartelle, foto e appunti»
    r"([a-z0-9][\w/-]*(?:\s*(?:,|,?\s*(?:and|e|ed)\s)\s*[a-z0-9][\w/-]*)+)(?=\s*$|[.!?])"
)


def listed_folders(text: str) -> list[str]:
    """The folder names a request lists after the plural noun (lowercase text), in order."""
    match = _LISTED_FOLDERS.search(text)
    if match is None:
        return []
    return [n for n in re.split(r"\s*,\s*(?:and\s+|e\s+|ed\s+)?|\s+(?:and|e|ed)\s+", match.group(1)) if n]
