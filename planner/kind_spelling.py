"""A kind of file named in words, written as the glob it stands for: "markdown files" → "*.md
files", «i file python» → «i file *.py», "every PDF" → "every *.pdf files" (planner.spelled's
rewrite, for plan memory; the words are planner/object_kinds.yaml's)."""

from __future__ import annotations

import re
from functools import lru_cache

from planner import lexicon
from planner.text import alternation, fold

_PLURALS = ("i", "le", "gli", "all", "miei", "mie", "every", "any", "tutti", "tutte")
_COUNTED = (*_PLURALS, "quanti", "quante", r"\d", r"\d\d", r"\d\d\d")  # «quanti pdf», «i primi 12 csv»


def _after(words) -> str:  # any of these words just before
    return "(?:" + "|".join(rf"(?<=\b{w} )" for w in words) + ")"


@lru_cache(maxsize=1)
def _kinds() -> tuple[dict[str, str], *tuple[re.Pattern, ...]]:
    spec = lexicon.kinds()
    globs = {fold(word): kind["glob"] for kind in spec["file_kinds"] for word in kind["words"]}
    nouns, kind = alternation(spec["file_nouns"]), alternation(globs)
    ext = r"\.([A-Za-z][A-Za-z0-9]{0,5})\b"
    formats = alternation(w for w, g in globs.items() if g == f"*.{w}")  # pdf, csv, json: also nouns
    return (
        globs,
        re.compile(rf"(?<![\w.*/])({kind})(\s+(?:{nouns})(?![\w]))", re.IGNORECASE),  # "markdown files"
        re.compile(rf"(?<![\w])((?:{nouns})\s+(?:(?:in|di)\s+)?)({kind})(?![\w.])", re.IGNORECASE),  # «file python»
        re.compile(rf"(?<![\w*]){ext}(?=\s+(?:{nouns})(?![\w]))", re.IGNORECASE),  # ".json files"
        re.compile(rf"(?<![\w])((?:{nouns})\s+(?:(?:in|di)\s+)?){ext}", re.IGNORECASE),  # «i file .json»
        # «dove sono i .png», "find all .log in var": an extension after a plural article is files of
        # that kind ("open the .env" is a file)
        re.compile(
            rf"{_after(_PLURALS)}{ext}(?![\w.*]|\s+(?:{nouns})(?![\w]))",
            re.IGNORECASE,
        ),
        # "the PDFs", «tutti i pdf», «quanti pdf»: a format's name as a plural noun (not a folder's:
        # «la cartella logs»)
        re.compile(
            r"(?<![\w.*/])(?<!\bcartella )(?<!\bfolder )(?<!\bdirectory )"
            rf"(?:({formats})s|{_after(_COUNTED)}({formats}))(?![\w.])",
            re.IGNORECASE,
        ),
        # "files ending in .md", "files with the .md extension", «file con estensione .md»
        re.compile(
            rf"(?<![\w])({nouns})\s+(?:ending\s+(?:in|with)|that\s+end\s+(?:in|with)|with\s+(?:the\s+|an?\s+)?"
            rf"(?:extension|suffix)|of\s+(?:the\s+)?type|con\s+(?:l\s*'\s*)?estensione|che\s+finiscono\s+(?:in|con|per)"
            rf"|(?:di|del)\s+tipo|in\s+formato)\s+"
            rf"(?:{ext}|({kind})(?![\w.]))|(?<![\w])({nouns})\s+with\s+(?:the\s+|an?\s+)?{ext}\s+"
            rf"(?:extension|suffix)(?![\w])",
            re.IGNORECASE,
        ),
    )


def spell_kinds(gap: str) -> str:
    """ "markdown files" → "*.md files", «i file python» → «i file *.py», ".json files" → "*.json
    files", "files ending in .md" → "files *.md", «quanti pdf» → «quanti *.pdf files»: a kind of
    file named in words is the glob it stands for."""
    globs, before, after, ext_before, ext_after, bare, plural, ending = _kinds()

    def glob(word: str) -> str:
        return globs[re.sub(r"\s+", " ", fold(word))]

    def ended(m: re.Match) -> str:
        noun, ext, kind, noun_, ext_ = m.groups()
        return f"{noun or noun_} " + (glob(kind) if kind else f"*.{ext or ext_}")

    gap = ending.sub(ended, gap)
    gap = before.sub(lambda m: glob(m.group(1)) + m.group(2), gap)
    gap = after.sub(lambda m: m.group(1) + glob(m.group(2)), gap)
    gap = ext_before.sub(r"*.\1", gap)
    gap = ext_after.sub(r"\1*.\2", gap)
    gap = bare.sub(r"*.\1 files", gap)
    return plural.sub(lambda m: glob(m.group(1) or m.group(2)) + " files", gap)
