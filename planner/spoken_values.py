"""Values a request gives without marking them, which only plan memory extracts (planner.canonical's
extra types): the command after "run" («esegui git status», "execute `uptime` in the shell"), the
two texts of a replacement written bare ("replace localhost with 10.0.0.5 in a.ini", «cambia bozza
in finale»), the folders of a list («crea le cartelle musica e video») and a bare word searched for
("does contract.txt mention penalty?"). Each is a value like a quoted one or a path, so a plan
learned with one serves another."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from planner import params as P

# What follows a command and is not part of it: where it runs, politeness, the end of the request.
_COMMAND_ENDS = (
    r"(?=\s+(?:in the shell|in the terminal|in a shell|on the shell|from the shell|nel terminale|nella shell|"
    r"dalla shell|dal terminale|for me|per me|please|per favore|now|adesso|again|di nuovo)\b|\s*[?.!,;]?\s*$)"
)
_NOT_A_COMMAND = (
    r"(?!(?:the|a|an|my|this|that|these|those|it|again|now|please|il|lo|la|i|gli|le|un|una|uno|questo|questa|"
    r"quel|quello|quella|comando|command|script|di nuovo|every|ogni)\b)"
)
COMMAND = re.compile(
    r"(?:(?<=\brun )|(?<=\bexecute )|(?<=\besegui )|(?<=\blancia )|(?<=\bthe command )|(?<=\bil comando )"
    rf"|(?<=\bcomando ))[`'\"]?{_NOT_A_COMMAND}([a-z][\w.-]*(?: +-{{0,2}}[\w./=:+-]+)*?)[`'\"]?{_COMMAND_ENDS}",
    re.IGNORECASE,
)
_BARE = r"(?![`'\"«“])([^\s'\"«»“”`]+?)"
_REPLACED = re.compile(
    r"\b(?:replace|substitute|swap|change|sostituisci|cambia|rimpiazza|sostituire|cambiare)\s+"
    rf"(?!the\b|il\b|la\b|lo\b|all\b|every\b|tutti\b|tutte\b|ogni\b){_BARE}\s+(?:with|to|by|for|into|con|in)\s+"
    rf"(?![\w.-]*/)(?![\w-]+\.[A-Za-z]{{1,5}}\b){_BARE}(?=\s+(?:in|nel|nella|nei|nelle|on|everywhere|ovunque|"
    r"throughout|dappertutto|and|e|then|poi)\b|\s*[?.!,;]?\s*$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Found:
    """One value of a match that holds two, as planner.params.extract reads a match."""

    text: str
    start: int

    def groups(self) -> tuple[str]:
        return (self.text,)

    def span(self) -> tuple[int, int]:
        return self.start, self.start + len(self.text)

    def group(self, _: int = 0) -> str:
        return self.text


class _Replaced:
    """The old and the new text of "replace X with Y", as two values."""

    def finditer(self, text: str):
        for match in _REPLACED.finditer(text):
            for group in (1, 2):
                yield _Found(match.group(group), match.start(group))


REPLACED = _Replaced()


# Folders named in a list after their plural noun: «crea le cartelle musica e video», "make the
# folders src, tests and docs", «due nuove cartelle: lavoro e svago».
_NAME = (
    r"(?<![\w./-])(?!(?:a|an|the|new|and|e|ed|or|o|in|into|inside|dentro|nella|nel|con|with|called|named|chiamate)"
    r"(?![\w./-]))[\w][\w./-]*(?<![./])"
)
_FOLDER_LIST = re.compile(
    r"\b(?:folders|directories|dirs|cartelle)(?:\s+(?:called|named|chiamate|di nome))?\s*:?\s+"
    rf"({_NAME}(?:\s*,\s*{_NAME})*\s*,?\s+(?:and|e|ed)\s+{_NAME})(?![\w/])",
    re.IGNORECASE,
)
# The count before such a list says nothing the names do not: «due nuove cartelle: lavoro e svago».
COUNTED_FOLDERS = re.compile(
    r"\b(?:\d+|two|three|four|five|due|tre|quattro|cinque)\s+(?=(?:new\s+|nuove\s+)?(?:folders|directories|cartelle)\b"
    rf"(?:\s+(?:called|named|chiamate|di nome))?\s*:?\s+{_NAME}(?:\s*,\s*{_NAME})*\s*,?\s+(?:and|e|ed)\s)",
    re.IGNORECASE,
)


class _Folders:
    """Each folder of such a list, as a path value."""

    def finditer(self, text: str):
        for match in _FOLDER_LIST.finditer(text):
            for name in re.finditer(_NAME, match.group(1), re.IGNORECASE):
                yield _Found(name.group(0), match.start(1) + name.start())


FOLDERS = _Folders()


# A bare word searched for: "look up the word deadline in plans.md", "does contract.txt mention
# penalty anywhere?", «cerca la parola scadenza». A word in capitals is an identifier already.
SEARCHED_WORD = re.compile(
    r"(?:(?<=\bthe word )|(?<=\bthe term )|(?<=\bla parola )|(?<=\bil termine )|(?<=\bmention )|(?<=\bmentions )"
    r"|(?<=\bmenziona )|(?<=\bmenzionano )|(?<=\bcita )|(?<=\bcitano ))"
    r"(?!(?:the|a|an|any|it|them|this|that|of|il|la|lo|le|gli|un|una|questo|quella)\b)([a-z][a-z-]*[a-z])\b(?![./])"
)
# A recurring task's name given as a plain word: "name it hydrate", «chiamalo posta», «task forno»,
# «nome del task: treni» (a hyphenated name is an identifier already, planner.params).
TASK_NAME = re.compile(
    r"(?:(?<=\bname it )|(?<=\bcall it )|(?<=\bchiamalo )|(?<=\bchiamala )|(?<=\btask )|(?<=\bjob )"
    r"|(?<=\bnome del task: )|(?<=\bnome del task ))"
    r"(?!(?:that|which|to|for|every|called|named|the|a|per|che|di|ogni|il|la|chiamato|chiamata|list|lists|lista|"
    r"liste|manager|board|name|names|nome)\b)"
    r"([A-Za-z][\w]{2,})(?=\s*[,.:;!?]|\s*$|\s+(?:that|che|which|every|ogni|for|per|to)\b)",
    re.IGNORECASE,
)


# A word searched for written bare, as code is: "grep FIXME in lib", «cerca legacy_mode in src»,
# "where does `user_id` show up". Not a name with hyphens (a task's) or a word with digits (girasole42).
_BARE_TERM = re.compile(r"[A-Z]{2,}[A-Z0-9]*|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")


def searched_as_quoted(extraction: P.Extraction, tokens: tuple[str, ...]) -> P.Extraction:
    """For a search that quotes nothing (`tokens`: planner.canonical's), the extraction with its
    bare terms typed as the quoted text they stand for, so that a plan learned for "search 'TODO'
    in src" serves "search FIXME in lib"; else the extraction itself."""
    if not ({"v:find", "v:count"} & set(tokens) and "<identifier>" in tokens and "<quoted>" not in tokens):
        return extraction
    text = extraction.text
    bare = {v for v in extraction.values if v.type == "identifier"
            and (_BARE_TERM.fullmatch(v.text) or text[v.start : v.start + 1] == "`")}  # fmt: skip
    if not bare:
        return extraction
    counters: Counter[str] = Counter()
    values, masked, cursor = [], [], 0
    for value in extraction.values:
        kind = "quoted" if value in bare else value.type
        counters[kind] += 1
        values.append(replace(value, type=kind, index=counters[kind]))
        masked += [text[cursor : value.start], f"<{kind}:{counters[kind]}>"]
        cursor = value.end
    masked.append(text[cursor:])
    return P.Extraction(text, tuple(values), "".join(masked))
