"""Values a request gives without marking them, which only plan memory extracts (planner.canonical's
extra types): the command after "run" («esegui git status», "execute `uptime` in the shell") and
the two texts of a replacement written bare ("replace localhost with 10.0.0.5 in a.ini", «cambia
bozza in finale»). Each is a value like a quoted one, so a plan learned with one serves another."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
