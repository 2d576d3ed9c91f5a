"""A file of the user's named by words of its name, not by its name: «leggimi le prime 3 righe del
diario» beside diario/2024.txt, "take bread off my shopping list" beside lists/shopping.md,
«chi è il nuovo amministratore secondo il verbale del condominio?» beside riunioni/condominio.txt,
«quanto mascarpone ci vuole per il tiramisù? la ricetta sta in ricette» beside ricette/tiramisu.txt.

When exactly one file of the workspace holds more of the request's words in its path (its name's
words and its folders') than any other, the request is read as if it had typed that path: the
words become the path (`rewrite`), and every later layer (the follow-ups, the route decision, the
cold path, plan memory, the engine) sees a named file. Only a request that reads, asks about or
changes something does this, never one that asks for a piece of writing ("write a poem about the
sea" beside sea.txt), and never one that types a file already. It is never a guess between two
files: a tie names nothing.

A short question right after a question about one file asks of the same file (`asked_again`): "and
the db pool size?", «e di savoiardi?» after «quanto mascarpone ci vuole per il tiramisù?». And one
file of the last listing is named by a word of its name alone (`one_listed`): «cancella la v1»
after bozze/ holds lettera_v1.txt and lettera_v2.txt, "rename the april one to 2024-04.pdf"; and a
verb's pronoun is the one file the last turn was on (`the_last`): «ora copiala in archivio/x.txt».
Last, a personal question asked of no file goes to the one file holding its words (`mine`:
"when's my flight home?", planner.personal)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from planner import dropped, name_share, personal
from planner import params as P
from planner.intent import _OBJECT_STEMS, _VERB_STEMS
from planner.text import STOPWORDS, fold, stems, whole
from planner.workspace import exists, read

# What makes a request one about a file's content: reading it, asking of it, changing a line of it.
_ABOUT_CONTENT = whole(
    r"read|show|open|display|first|last|lines?|how many|how much|what|which|who|when|where|is there|"
    r"add|append|remove|take|delete|change|replace|mark|tick|set|update|put|rename|move|copy|"
    r"rinomina\w*|sposta\w*|copia\w*|chiamal\w*|"
    r"leggi\w*|mostra\w*|fammi vedere|apri\w*|prim[ie]|ultim[ie]|righe|riga|quant[oaie]|qual[ei]?|chi|quando|"
    r"dove|cosa|che cosa|c'e|aggiungi\w*|togli\w*|rimuovi\w*|cancella\w*|elimina\w*|cambia\w*|sostituisci\w*|"
    r"segna\w*|spunta\w*|metti\w*|imposta\w*|aggiorna\w*|correggi\w*|trov\w*"
)
# What a folder holds: asked of a folder, it is its listing.
_LISTING = whole(
    r"cosa c'e (?:in|dentro|nel|nella|nello)|che c'e (?:in|dentro|nel|nella)|what(?:'s| is) in(?:side)?|"
    r"contents? of|contenuto (?:di|del|della)|list|elenca\w*|which files|quali file|che file|cosa contiene"
)
# A piece of writing asked for: its topic is not a file.
_WRITING = whole(
    r"write|compose|draft|invent|poem|story|essay|explain|tell me about|tell me a|"
    r"scrivi\w*|componi\w*|inventa\w*|poesia|storia|racconta\w*|spiega\w*|tema su"
)
_NOT_NAMES = frozenset(
    "file files folder folders document documents documento documenti cartella cartelle directory all tutti tutte "
    "tutto every ogni some alcuni alcune list lista elenco note notes appunti text testo line lines riga righe "
    "first last prime ultime primi ultimi".split()
)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# Where a word names a place the request reads or changes: "nella rubrica", "del diario", "off my
# shopping list", «dei regali di natale» (at the end of the text before the word).
_PLACED = re.compile(
    r"\b(?P<prep>file|in|into|inside|from|of|off|to|on|onto|nel|nella|nello|nei|negli|nelle|del|della|dello|dei|degli|"
    r"delle|dal|dalla|dallo|dai|dagli|dalle|al|alla|allo|ai|agli|alle|sul|sulla|sullo|secondo|dentro)"
    r"(?: (?:the|my|our|il|la|lo|i|gli|le|mio|mia|miei|mie|nostro|nostra)|(?: l'))?"
    # a word for what holds it between: «nella lista dei», «secondo il verbale del», "in my notes on"
    r"(?: (?:lista|elenco|list|file|document|documento|verbale|notes?|nota|appunti|registro|log|ricetta|recipe|"
    r"diary|tabella|table|foglio|sheet|report|rapporto)"
    r"(?: (?:di|dei|del|della|delle|degli|dello|of|of the|on|for|about|sul|sulla|per))?)? $"
)
# The preposition before the path, as the later layers read a named destination («nel file X»).
_PREPOSITIONS = {
    "file": "file",
    **dict.fromkeys("in into inside".split(), "in"),
    "of": "of",
    "to": "to",
    "onto": "to",
    **dict.fromkeys("from off".split(), "from"),
    "on": "on",
    **dict.fromkeys("nel nella nello nei negli nelle dentro".split(), "nel file"),
    **dict.fromkeys("del della dello dei degli delle".split(), "del file"),
    **dict.fromkeys("al alla allo ai agli alle".split(), "al file"),
    **dict.fromkeys("dal dalla dallo dai dagli dalle".split(), "dal file"),
    **dict.fromkeys("sul sulla sullo".split(), "sul file"),
    "secondo": "secondo il file",
}


@dataclass(frozen=True)
class Named:
    text: str  # the request with the words that named the file replaced by its path
    path: str
    words: tuple[str, ...]

    def to_trace(self) -> dict:
        return {"path": self.path, "words": list(self.words)}


def resolve(text: str, previous: dict, workspace: Path | None) -> Named | None:
    """The request with the one file its words name typed in (any of the ways above), or None."""
    if workspace is None:
        return None
    if (gone := dropped.rewrite(text, workspace)) is not None:  # «la cartella foto non mi serve, toglila»
        return Named(gone[0], gone[1], ())
    typed = _typed(text, workspace)  # the request's typed paths, read once for every form
    return (
        in_folder(text, workspace)
        or in_named_folder(text, workspace, typed)
        or rewrite(text, workspace, typed)
        or asked_again(text, previous, workspace, typed)
        or one_listed(text, previous, workspace, typed)
        or the_last(text, previous, workspace, typed)
        or mine(text, workspace, typed)
    )


def mine(text: str, workspace: Path, typed: list) -> Named | None:
    """A personal question asked of no file, with the one file holding its words (planner.personal)."""
    folders = [v for v in typed if v.type == "path" and exists(workspace, v.text, "is_dir")]  # a folder may be said,
    files = [v for v in typed if v not in folders]
    paths = [v for v in folders if "/" in v.text]  # and a folder's path typed is not the question's words
    path = personal.about(_without(text, paths), workspace, files)
    asked = text.rstrip()
    end = "?" if asked.endswith("?") else ""
    return Named(f"{asked.rstrip('?').rstrip()} (in {path}){end}", path, ()) if path else None


def _without(text: str, values: list) -> str:
    """The text with these typed values cut out."""
    for value in sorted(values, key=lambda v: v.start, reverse=True):
        text = f"{text[: value.start]}{text[value.end :]}"
    return text


# A verb whose object is the file the last turn was on: «copiala in archivio/», "rename it to b.md".
_ON_IT = re.compile(
    r"\b(?:(?P<clitic>copia|sposta|rinomina|duplica|archivia|comprimi)(?:me|ce)?(?:lo|la)|"
    r"(?P<verb>copy|move|rename|duplicate|archive|copia|sposta|rinomina|duplica|archivia)\s+"
    r"(?:it|that|that file|this file|the file|il file|questo file|quel file)|"
    # «fanne anche una copia in candidature/», "make a copy of it in backup/"
    r"(?:fanne|fammene)(?: anche| pure)? (?P<copy>una copia)|make a copy of (?:it|that))\b",
    re.IGNORECASE,
)


def the_last(text: str, previous: dict, workspace: Path | None, typed: list | None = None) -> Named | None:
    """The request with "it" (a verb's pronoun) written as the one file the last turn was on."""
    files = (previous or {}).get("files") or []
    match = _ON_IT.search(text) if workspace is not None and len(files) == 1 else None
    if match is None or previous.get("plan_is_last") is False or not _is_file(workspace, files[0]):
        return None
    if any(v.type == "path" and _is_file(workspace, v.text) for v in _typed(text, workspace, typed)):
        return None  # a file of its own
    verb = match.group("clitic") or match.group("verb") or ("copia" if match.group("copy") else "copy")
    return Named(f"{text[: match.start()]}{verb} {files[0]}{text[match.end() :]}", files[0], (match.group(0),))


# A file and the folder it is in, said apart: «il file .env della cartella app», "the .env file in
# the app folder", "config.yaml in folder deploy".
_IN_FOLDER = re.compile(
    r"(?<![\w./-])(?P<name>[\w.-]*\.[\w-]+)(?:\s+file)?\s+(?:della|nella|dalla|dentro la|in|of|from|inside)\s+"
    r"(?:(?:the|my|la)\s+)?(?:(?:cartella|folder|directory|dir)\s+(?P<folder>[\w./-]+)|(?P<before>[\w./-]+)\s+"
    r"(?:folder|directory|dir))\b",
    re.IGNORECASE,
)


def in_folder(text: str, workspace: Path | None) -> Named | None:
    """The request with "NAME in the FOLDER folder" written as FOLDER/NAME, when that file exists."""
    match = _IN_FOLDER.search(text) if workspace is not None else None
    if match is None:
        return None
    folder = (match.group("folder") or match.group("before")).strip("/")
    path = f"{folder}/{match.group('name')}"
    if not _is_file(workspace, path):
        return None
    return Named(f"{text[: match.start()]}{path}{text[match.end() :]}", path, (match.group("name"), folder))


# A folder named by its own name alone, before or after a new file's: «dentro appunti mettici un file
# semina.md» beside progetti/orto/appunti/, "save notes.md in the drafts folder".
_INTO_FOLDER = re.compile(
    r"\b(?:dentro|in|inside|into|nella|to)\s+(?:(?:the|my|la|cartella|folder)\s+)*(?P<folder>[^\W\d_][\w-]*)"
    r"(?:\s+(?:folder|directory|dir))?(?![\w./-])",
    re.IGNORECASE,
)


def in_named_folder(text: str, workspace: Path, typed: list | None = None) -> Named | None:
    """The request with a new file's bare name written inside the one nested folder its words name."""
    names = [v for v in _typed(text, workspace, typed) if v.type == "path" and "/" not in v.text]
    if len(names) != 1 or exists(workspace, names[0].text):
        return None
    found = [
        (match, nested)
        for match in _INTO_FOLDER.finditer(text)
        if fold(match.group("folder")) not in ("folder", "cartella", "directory", "file", "files")
        for nested in name_share.folders(workspace)
        if "/" in nested and nested.rsplit("/", 1)[1] == match.group("folder")
    ]
    if len(found) != 1:
        return None
    (match, folder), name = found[0], names[0]
    start, end = match.span()
    if not (end <= name.start or start >= name.end):
        return None
    path = f"{folder}/{name.text}"
    pieces = sorted([(start, end, ""), (name.start, name.end, path)], reverse=True)
    out = text
    for a, b, new in pieces:
        out = out[:a] + new + out[b:]
    return Named(re.sub(r"\s{2,}", " ", out).strip(), path, (match.group("folder"), name.text))


def rewrite(text: str, workspace: Path | None, typed: list | None = None) -> Named | None:
    """The request with the one file its words name typed in, or None."""
    if workspace is None or len(text) > 400:
        return None
    folded = fold(text)
    if not _ABOUT_CONTENT.search(folded) or _WRITING.search(folded):
        return None
    typed = _typed(text, workspace, typed)
    if any(v.type != "path" or _is_file(workspace, v.text) for v in typed):
        return None  # a file typed already (a folder, or a name to give, may go with the one named)
    nested = [v for v in typed if "/" in v.text.strip("/")]  # a folder said alone may name the file
    wanted = _wanted(fold(_without(text, nested)))  # a word of a path typed does not: "… in logs/errors.log"
    if not wanted:
        return None
    scored = []
    for path in name_share.files(workspace):
        own = _path_words(path)
        hits = tuple(w for w in wanted if wanted[w] & own)
        if hits:
            scored.append((len(hits), path, hits))
    if not scored:
        return None
    scored.sort(key=lambda s: -s[0])
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None  # two files hold as many of its words: which one is not said
    _, path, hits = scored[0]
    name = _path_words(path.rsplit("/", 1)[-1])
    if _LISTING.search(folded) and not any(wanted[w] & name for w in hits):
        return None  # «cosa c'è in progetti?» beside progetti/a.txt: the folder's listing, not its one file
    if not any(_PLACED.search(folded, 0, m.start()) for m in _TOKEN.finditer(folded) if m.group(0) in hits):
        return None  # "la spesa più alta": a word of the name, but not where a file is named
    rewritten = _replaced(text, path, hits, nested)
    return Named(rewritten, path, hits) if rewritten != text else None


# A question that leans on the last one: "and the …?", «e di …?», "what about …?".
_AGAIN = re.compile(r"^\s*(?:and|e|ed|what about|how about|also|anche|invece)\b.*\?\s*$", re.IGNORECASE | re.S)


def asked_again(text: str, previous: dict, workspace: Path | None, typed: list | None = None) -> Named | None:
    """The request asking of the file the last turn was on, with that file typed in, or None: after
    a question about it, a short one that leans on it ("and …?"); after any turn on it, a question
    with a word the file holds («quand'è che sono andato a Bologna?» after reading the diary)."""
    asking = text.rstrip().endswith("?") or _ASKING.match(fold(text))  # "when's the flight home btw"
    if workspace is None or not previous or len(text.split()) > 12 or not asking:
        return None
    files = previous.get("files") or []
    if len(files) != 1 or previous.get("plan_is_last") is False or not _is_file(workspace, files[0]):
        return None
    if _typed(text, workspace, typed):
        return None  # a file of its own
    if other := sibling_file(text, files[0], workspace):  # "and april, total?" beside expenses/april.csv
        at = next(m for m in _TOKEN.finditer(text) if fold(m.group(0)) == fold(Path(other).stem))
        return Named(f"{text[: at.start()]}{other}{text[at.end() :]}", other, (at.group(0),))
    path = files[0]
    leans = (_AGAIN.match(text) and "?" in (previous.get("request") or "")) or _OF_THEM.match(fold(text))
    if not leans and _DEFINITION.match(fold(text)):
        return None  # "what is Python?": what a word means, not what the file says
    held = fold(read(workspace, path) or "")
    if not leans and not any(len(w) >= 4 and re.search(rf"\b{re.escape(w)}\b", held) for w in _wanted(fold(text))):
        return None
    return Named(f"{text.rstrip().rstrip('?').rstrip()} (in {path})?", path, ())


# A short question whose pronoun is what the last turn found: "what were they?", «quali erano?».
_OF_THEM = re.compile(
    r"^\s*(?:(?:and|so|ok|e|quindi|allora)[\s,]+)*(?:what|which|who|where|quali|quale|cosa|chi|dove)\b"
    r"(?:\s+\S+){0,3}?\s+(?:they|them|those|these|quelli|quelle|questi|queste|erano|sono)\s*\??\s*$"
)
_ASKING = re.compile(
    r"^\s*(?:(?:and|e|so|btw|quindi|allora|ok)[\s,]+)*(?:when|whens|what|whats|where|wheres|who|whos|which|how|"
    r"quando|cosa|che cosa|dove|chi|quale|qual|quanto|quanta|quanti|quante|come)\b"
)


def sibling_file(text: str, path: str, workspace: Path) -> str | None:
    """The one other file of `path`'s folder that a word of the text is the whole name of: "april"
    beside expenses/march.csv and expenses/april.csv."""
    folder = Path(path).parent
    said = set(_TOKEN.findall(fold(text)))
    try:
        others = [f for f in (workspace / folder).iterdir() if f.is_file() and f.name != Path(path).name]
    except OSError:
        return None
    named = [f for f in others if fold(f.stem) in said]
    return (folder / named[0].name).as_posix() if len(named) == 1 else None


_DEFINITION = re.compile(
    r"^\s*(?:what(?:'s| is| are)|cos'e|cosa e|cosa sono|che cos'e|explain|spiega\w*|define|definisci)\s+"
    r"(?:(?:a|an|the|un|una|uno|il|la|lo|l')\s*)?[^\W\d_]+\s*\?\s*$"
)


# A word after an article, alone or with "one": «la v1», "the april one", «quello di marzo».
_ONE_WORD = re.compile(
    r"\b(?:the|la|il|lo|l'|quell[oa](?: di| del| della)?|that)\s*(?P<word>[^\W_]{2,})(?:\s+(?:one|uno|file)\b)?"
    r"(?=\s*$|\s*[,.!?]|\s+(?:to|into|in|as|a|nella|nel|come|and|e)\b|\s+[^\W_]+(?:lo|la|li|le)\b)",
    re.IGNORECASE,
)


def one_listed(text: str, previous: dict, workspace: Path | None, typed: list | None = None) -> Named | None:
    """The request with the one file of the last listing its word names typed in, or None."""
    previous = previous or {}
    listed = [*previous.get("listing", []), *previous.get("files", []), *previous.get("earlier_listing", [])]
    if workspace is None or not listed or len(text.split()) > 14 or not _ABOUT_CONTENT.search(fold(text)):
        return None
    if any(_is_file(workspace, v.text) for v in _typed(text, workspace, typed)):
        return None
    for match in _ONE_WORD.finditer(text):
        word = fold(match.group("word"))
        if word in STOPWORDS or word in _NOT_NAMES:
            continue
        owners = {p for p in listed if word in re.split(r"[^a-z0-9]+", fold(Path(p).stem)) and _is_file(workspace, p)}
        if not owners and len(word) >= 4:  # «leggimi la ricetta» after hits in note/ricette/ and note/
            owners = {p for p in listed if set(stems(word)) & _path_words(p) and _is_file(workspace, p)}
        if len(owners) == 1:
            path = owners.pop()
            return Named(f"{text[: match.start()]}{path}{text[match.end() :]}", path, (word,))
    return None


def _wanted(folded: str) -> dict[str, set[str]]:
    """The request's words that may name a file, with their stems: a verb's or an object's word only
    where a file is named ("on my reading list"), a short one only with a digit ("la 3A")."""
    out = {}
    for match in _TOKEN.finditer(folded):
        word = match.group(0)
        if not _NAMING.fullmatch(word) or word.isdigit() or word in STOPWORDS or word in _NOT_NAMES:
            continue
        mine = set(stems(word))
        if any(s in _VERB_STEMS or s in _OBJECT_STEMS for s in mine) and not _PLACED.search(folded, 0, match.start()):
            continue
        out[word] = mine
    return out


_NAMING = re.compile(r"[^\W_]{4,}|[a-z]?\d+[a-z]+\d*|[a-z]+\d+[a-z]*")  # "diario", "3a", "v2"


def _path_words(path: str) -> set[str]:
    """The stems of a path's words: its folders' and its name's (not its extension)."""
    parts = [*path.split("/")[:-1], Path(path).stem]
    return {s for part in parts for t in _TOKEN.findall(fold(part)) if _NAMING.fullmatch(t) for s in stems(t)}


def _replaced(text: str, path: str, hits: tuple[str, ...], typed: list = ()) -> str:
    """The text with the words that named the file replaced by its path: a run of them ("regali di
    natale") as one, else the word of the file's own name (or of its folder). Never a word inside a
    path the request typed."""
    inside = [(v.start, v.end) for v in typed]
    tokens = [m for m in _TOKEN.finditer(text)
              if fold(m.group(0)) in hits and not any(a <= m.start() < b for a, b in inside)]  # fmt: skip
    if not tokens:
        return text
    first, last = tokens[0], tokens[-1]
    between = text[first.end() : last.start()]
    if len(_TOKEN.findall(between)) <= 2 and not re.search(r"[.?!:;,]", between):
        start, end = first.start(), last.end()
    else:
        stem = {s for t in re.findall(r"[a-z]+", fold(Path(path).stem)) for s in stems(t)}
        chosen = next((m for m in tokens if set(stems(fold(m.group(0)))) & stem), tokens[0])
        start, end = chosen.start(), chosen.end()
    if after := re.match(r"\s+(?:list|file|notes|document|log|diary|sheet)\b", text[end:], re.IGNORECASE):
        end += after.end()  # "my shopping list": the list is the file
    placed = _PLACED.search(text.lower()[:start])
    if placed is not None:  # "nella lista dei regali di natale" → "nel file regali/natale.md"
        start, path = placed.start(), f"{_PREPOSITIONS[placed.group('prep')]} {path}"
    return f"{text[:start]}{path}{text[end:]}"


def _is_file(workspace: Path, relative: str) -> bool:
    try:
        return (workspace / relative).resolve().is_relative_to(workspace.resolve()) and (workspace / relative).is_file()
    except (OSError, ValueError):
        return False


def _typed(text: str, workspace: Path, typed: list | None = None) -> list:
    """The paths, globs and URLs the request types (`typed`: as read already)."""
    return (
        typed
        if typed is not None
        else [v for v in P.extract(text, workspace).values if v.type in ("path", "glob", "url")]
    )
