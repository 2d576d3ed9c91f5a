"""Words a request searches for that are not typed values: a bare word after a search verb
("cerca Giulia in contatti.txt") or after what files contain («quali file hanno scritto bozza?»),
and files found by their names ("the files with 'report' in the name"). Read by the cold path
(planner.cold_args)."""

from __future__ import annotations

import re

from planner.text import fold

# Files found by their names: "the files with 'report' in the name", «che hanno 'fattura' nel nome».
BY_NAME = re.compile(r"\b(?:in|nel|nei) (?:the |their |its |loro |il )?(?:names?|nome|nomi)\b|\bwhose names?\b")


def bare_term(text: str, spans: list[tuple[int, int]]) -> str | None:
    """The bare word the request searches for, as written, or None; `spans`: where its typed
    values are (a quoted text or an identifier is a term already)."""
    for match in _TERM.finditer(text):
        group = next(g for g in ("term", "rows", "last", "there", "word") if match.group(g))
        word = match.group(group)
        if fold(word) not in _NOT_TERMS and not any(start <= match.start(group) < end for start, end in spans):
            return word
    return None


# "the lines with ERROR", «le righe che contengono TODO»: a search, whatever verb shows them.
_ROWS_WITH = r"\b(?:lines?|rows?|righe|riga)\s+(?:with|containing|that contain|con|che contengono|contenenti)\s+"
ROWS = re.compile(_ROWS_WITH)
_NOT_TERMS = frozenset("it that this them something files file questo quello qualcosa tutto everything".split())
# A bare word to search for: after a search verb and before where ("cerca Giulia in contatti.txt"),
# or last, after what files contain («quali file in capitoli hanno ancora scritto bozza?»).
_TERM = re.compile(
    r"\b(?:cerca|cercami|search for|look for|grep)\s+(?:(?:la parola|the word)\s+)?(?P<term>[^\W\d_][\w-]*)\s+"
    r"(?:in|nel|nella|nei|nelle|dentro|inside)\s|"
    # "the lines with ERROR in app.log", «le righe con ERROR in logs/app.log»
    + _ROWS_WITH
    + r"(?:(?:la parola|the word)\s+)?(?P<rows>[^\W\d_][\w-]*)\s+(?:in|of|nel|nella|di|del|della|dentro)\s|"
    r"\b(?:contain|contains|mention|mentions|contengono|contiene|menzionano|(?:hanno|ha|c'[eè]) (?:ancora )?scritto)\s+"
    r"(?:(?:la parola|the word)\s+)?(?P<last>[^\W\d_][\w-]*)\s*[?.!]*\s*$|"
    # «in quali ricette della cartella ricette c'è il guanciale?»: what some of them hold
    r"\b(?:quali|quale|which)\b.{0,60}\bc'[eè] (?:ancora )?(?:il |lo |la |l'|un |una |uno |del |della |dello )?"
    r"(?P<there>[^\W\d_][\w-]*)\s*[?.!]*\s*$|"
    # «in quali file compare la parola mascarpone?»: the word said to be one
    r"\b(?:la parola|the word|il termine|the term)\s+(?P<word>[^\W\d_][\w-]*)",
    re.IGNORECASE,
)
