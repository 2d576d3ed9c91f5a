"""The cold path's arguments (planner/coldpath.py): how each argument of a tool binds from what the
request types (planner.cold_request): by its schema `format` (file, folder, path, glob,
uri), arrays of them, "first/last N lines", a quoted text to write, a compute expression, a time
zone, a move's source and destination, an edit's old and new text, a folder to make. `Ambiguous`
when an argument could take two values: the cold path never guesses."""

from __future__ import annotations

import itertools
import re

from planner import object_kinds, terms
from planner.canonical_data import zones
from planner.cold_request import INSIDE, TIME_ZONES, Ambiguous, Option, Request, merged, one
from planner.expressions import AmbiguousExpression, expression
from planner.text import fold

_APPEND = re.compile(r"\b(?:append|add|aggiungi|appendi|accoda)\b")
_HEAD, _TAIL = "head_lines", "tail_lines"
_LINES = (  # (pattern, which end; a group "n" or "m" is the count, else one line)
    (r"\b(?:first|top|initial)\s+(?P<n>\d+)\s+lines?\b|\b(?:first|top)\s+line\b", _HEAD),
    (r"\b(?:last|bottom|final)\s+(?P<n>\d+)\s+lines?\b|\b(?:last|bottom|final)\s+line\b", _TAIL),
    (r"\b(?:prim[eia])\s+(?P<n>\d+)\s+righe\b|\b(?P<m>\d+)\s+prime\s+righe\b|\bprima\s+riga\b", _HEAD),
    (r"\b(?:ultim[eia])\s+(?P<n>\d+)\s+righe\b|\b(?P<m>\d+)\s+ultime\s+righe\b|\bultima\s+riga\b", _TAIL),
)
_SOME_LINES = re.compile(
    r"\b(?:first|last|top|bottom|initial|final|prim[eia]|primi|ultim[eia]|ultimi)\s+(?:\w+\s+)?(?:lines?|righe|riga)\b"
)


# Arguments that need more than a format: each returns the option, or None when the request does
# not give it.


def _lines(req: Request, end: str) -> Option | None:
    """ "the last 2 lines" → 2, "the first line" → 1; "the last lines" gives no count, and reading
    the whole file instead would not be what was asked."""
    exact = [m.span() for pattern, _ in _LINES for m in re.finditer(pattern, req.text)]
    for vague in _SOME_LINES.finditer(req.text):
        if not any(start <= vague.start() and vague.end() <= stop for start, stop in exact):
            raise Ambiguous
    options = []
    for pattern, which in _LINES:
        if which != end:
            continue
        for match in re.finditer(pattern, req.text):
            group = next((g for g in ("n", "m") if g in match.groupdict() and match.group(g)), None)
            if group is None:
                options.append(Option(1, frozenset()))
                continue
            at = match.start(group)
            number = next((v for v in req.of("number") if v.start == at), None)
            if number is None or not isinstance(number.value, int):
                raise Ambiguous
            options.append(Option(number.value, frozenset({number.name})))
    return one(merged(options))


def _content(req: Request) -> Option | None:
    return one([Option(q.text, frozenset({q.name})) for q in req.of("quoted")])


def _append(req: Request) -> Option | None:
    return Option(True, frozenset()) if _APPEND.search(req.folded) else None


def _pattern(req: Request) -> Option | None:
    """What to search for: a quoted text, one identifier (`TODO`, `user_id`) or a bare word after
    a search verb; never for files found by their names."""
    if terms.BY_NAME.search(req.folded):
        return None
    options = [Option(v.text, frozenset({v.name})) for v in req.values if v.type in ("quoted", "identifier")]
    options += [Option(re.escape(req.term), frozenset({f"term:{req.term}"}))] if req.term else []
    return one(options)


def _name_glob(req: Request) -> Option | None:
    """A glob written out or given in words, or, for files found by their names, *name*."""
    globs = req.of_format("glob")
    if not globs and req.shared:  # «trovami le fatture»: the files whose names hold the word
        return Option(f"*{req.shared[1]}*", frozenset({f"shared:{req.shared[0]}"}))
    if globs or not terms.BY_NAME.search(req.folded):
        return one(globs)
    return one([Option(f"*{v.text}*", frozenset({v.name})) for v in req.values if v.type in ("quoted", "identifier")])


def _time_zone(req: Request) -> Option | None:
    """An IANA name written out, or a city or zone of the table; two of them: ambiguous."""
    options = [Option(p.text, frozenset({p.name})) for p in req.of("path") if p.text in zones()]
    for ident in req.of("identifier"):
        if fold(ident.text) in TIME_ZONES:
            options.append(Option(TIME_ZONES[fold(ident.text)], frozenset({ident.name})))
    for name, zone in TIME_ZONES.items():
        if re.search(rf"\b{name}\b", req.folded) and not any(fold(i.text) == name for i in req.of("identifier")):
            options.append(Option(zone, frozenset()))
    return one(merged(options))


def _move(req: Request, part: str) -> Option | None:
    """ "move a.txt to archive/", "rinomina a.txt in b.txt", «sposta a.txt e b.txt dentro fatture»:
    the last path, after "to / in / into / dentro / nella", is where; the ones before it, joined by
    "and" or commas, move (several only into a folder)."""
    paths = req.of("path")
    # «il file documenti/cv.txt in documenti, chiamalo …»: the folder said after the file it holds is no source
    said = [p for i, p in enumerate(paths)
            if 0 < i < len(paths) - 1 and paths[i - 1].text.startswith(p.text.rstrip("/") + "/")]  # fmt: skip
    *sources, where = [p for p in paths if p not in said] or [None]
    joined = all(re.fullmatch(r"\s*(?:,|and|e|ed|&)?\s*(?:and|e)?\s*", req.text[a.end : b.start])
                 for a, b in itertools.pairwise(sources))  # fmt: skip
    into = sources and re.search(
        r"\b(?:to|into|in|as|a|nella|nel|nello|come|dentro|inside|within|sotto|chiamal[oa]|call it|name it)\b",
        req.text[sources[-1].end : where.start],
    )
    folder = where is not None and (where.text.endswith("/") or req._exists(where.text, "is_dir"))
    if not sources or not joined or not into or (len(sources) > 1 and not folder):
        return None
    if part == "paths":
        return Option([s.text for s in sources], frozenset(s.name for s in [*sources, *said]))
    if _RENAME.search(req.folded) and len(sources) == 1 and "/" in sources[0].text and "/" not in where.text:
        # "rename docs/draft.md to final.md": a new name, in the folder it is in
        return Option(f"{sources[0].text.rsplit('/', 1)[0]}/{where.text}", frozenset({where.name, sources[0].name}))
    return Option(where.text, frozenset({where.name}))


_RENAME = re.compile(r"\b(?:rename|renamed|rinomina\w*|chiamal[oa]|call it|name it)\b")


# "replace 'teh' with 'the'", «sostituisci 'a' con 'b'», "change 'x' to 'y'": the first quote goes, the second comes.
_REPLACEMENT = re.compile(r"\b(?:replace|change|substitute|swap|correct|fix|sostituisci|cambia|correggi|rimpiazza)\b")
_BETWEEN_QUOTES = re.compile(r"^\s*(?:with|to|by|into|for|con|in|per)\s*$")


def _edit(req: Request, part: str) -> Option | None:
    quoted = req.of("quoted")
    if len(quoted) != 2 or not _REPLACEMENT.search(req.folded):
        return None
    if not _BETWEEN_QUOTES.match(req.text[quoted[0].end + 1 : quoted[1].start - 1]):
        return None
    chosen = quoted[0] if part == "old" else quoted[1]
    return Option(chosen.text, frozenset({chosen.name}))


_RECURSIVE = re.compile(
    r"\b(?:recursive(?:ly)?|and everything in it|with everything|with all (?:its|of its) content|and all its content|"
    r"con tutto(?: il contenuto| quello che contiene| cio che contiene)?|e tutto (?:il )?(?:suo )?contenuto|"
    r"(?:e|con) (?:tutto )?il suo contenuto|"
    r"ricorsivamente|"
    # "remove the journal/foto folder", «elimina la cartella foto»: a folder named as one goes whole
    # (the approval asks first, and /undo puts its files back)
    r"folder|directory|cartella)\b"
)


def _recursive(req: Request) -> Option | None:
    return Option(True, frozenset()) if _RECURSIVE.search(req.folded) else None


def _nested(req: Request, name: str) -> Option:
    inside = re.search(rf"\b{re.escape(name)}{INSIDE}", req.folded)
    word = inside.group(1).rstrip("/") if inside else ""
    use = next((f"named:{w}" for w, kind in req.named if kind == "dir" and w == word), None) or next(
        (v.name for v in req.of("path") if v.text.rstrip("/") == word), f"fresh:{word}" if word in req.fresh else None
    )
    fresh = frozenset({f"fresh:{name}"})
    return Option([f"{word}/{name}"], fresh | {use}) if use else Option([name], fresh)


_SUBFOLDERS = re.compile(r"\b(?:sottocartelle|subfolders|sub-folders|subdirectories)\b")


def _new_folders(req: Request) -> Option | None:
    """The folders to make: paths ending in "/", the name after "folder"/«cartella» (inside the
    folder named after it), or the names listed after "folders"/«cartelle» ("create two folders:
    src and tests")."""
    nested = [_nested(req, name) for name in req.fresh]
    parents = {use for o in nested if "/" in o.value[0] for use in o.uses}  # what goes inside another
    options = [o for o in nested if "/" in o.value[0] or not o.uses <= parents]
    options += [Option([p.text], frozenset({p.name})) for p in req.of("path") if p.text.endswith("/")
                and p.name not in parents]  # fmt: skip
    for value in req.values:
        before = req.folded[: value.start].rstrip()
        if value.type in ("identifier", "path", "quoted") and re.search(
            r"\b(?:folder|directory|dir|cartella)(?:\s+(?:called|named|chiamata|di nome))?$", before
        ):
            options.append(Option([value.text], frozenset({value.name})))
    listed = [n for n in object_kinds.listed_folders(req.folded) if n in req.fresh]
    parent = [p for p in req.of("path") if p.text not in listed]
    if len(listed) > 1 and _SUBFOLDERS.search(req.folded) and len(parent) == 1:
        # «una cartella progetti/sito-web con dentro tre sottocartelle: css, js e img»: inside it
        uses = {f"fresh:{n}" for n in listed} | {parent[0].name}
        return Option([f"{parent[0].text.rstrip('/')}/{n}" for n in listed], frozenset(uses))
    if len(listed) > 1:  # one option, for the whole list
        options = [o for o in options if not set(o.value) <= set(listed)]
        uses = {f"fresh:{n}" for n in listed} | {v.name for v in req.values if v.text in listed}
        options.append(Option(listed, frozenset(uses)))
    return one(merged(options))


# "lines 1-6", "from line 10 to 20", «righe 3-8», «dalla riga 2 alla 5» (planner.copies reads it too).
LINE_RANGE = re.compile(
    r"\b(?:lines?|righe|riga)\s+(?:from\s+|da\s+|dalla\s+)?(?P<a>\d+)\s*(?:-|\u2013|to|through|a|alla|fino alla)\s*"
    r"(?P<b>\d+)\b|"
    r"\b(?:from line|dalla riga)\s+(?P<c>\d+)\s+(?:to|alla)\s+(?:line\s+|riga\s+)?(?P<d>\d+)\b"
)


def bounds(match: re.Match) -> tuple[str, str]:
    """A LINE_RANGE match's first and last line, as written."""
    return (match.group("a"), match.group("b")) if match.group("a") else (match.group("c"), match.group("d"))


def _range(req: Request, part: str) -> Option | None:
    match = LINE_RANGE.search(req.text)
    if match is None:
        return None
    first, last = bounds(match)
    starts = {v.start: v for v in req.of("number")}
    a = starts.get(match.start("a" if match.group("a") else "c"))
    b = starts.get(match.start("b" if match.group("a") else "d"))
    if a is None or b is None or int(last) < int(first):
        return None
    uses = frozenset({a.name, b.name})
    # The limit comes from the same two numbers: the offset accounts for them.
    return Option(int(first), uses) if part == "offset" else Option(int(last) - int(first) + 1, frozenset())


def _expression(req: Request) -> Option | None:
    try:
        found = expression(req.of("number"), req.folded)
    except AmbiguousExpression:
        raise Ambiguous from None
    return Option(*found) if found else None


_SPECIAL = {
    ("read_files", "offset"): lambda req: _range(req, "offset"),
    ("read_files", "limit"): lambda req: _range(req, "limit"),
    ("compute", "expression"): _expression,
    ("move_files", "paths"): lambda req: _move(req, "paths"),
    ("move_files", "to"): lambda req: _move(req, "to"),
    ("edit_file", "old"): lambda req: _edit(req, "old"),
    ("edit_file", "new"): lambda req: _edit(req, "new"),
    ("delete_files", "recursive"): _recursive,
    ("make_dirs", "paths"): _new_folders,
    ("write_files", "content"): _content,
    ("write_files", "append"): _append,
    ("grep_files", "pattern"): _pattern,
    ("find_files", "pattern"): _name_glob,
    ("get_time", "tz"): _time_zone,
}
# Arguments whose value is the tool's own object: enough evidence on their own, even where the
# request has no verb ("what is 17 * 23?", "what is the date in UTC?").
OWN_OBJECT = {("compute", "expression"), ("get_time", "tz"), ("get_urls", "urls")}


def bind_arg(tool: str, name: str, spec: dict, req: Request) -> Option | None:
    if (tool, name) in _SPECIAL:
        return _SPECIAL[(tool, name)](req)
    if name in (_HEAD, _TAIL) and spec.get("type") == "integer":
        return _lines(req, name)
    if spec.get("type") == "string" and spec.get("format"):
        return one(req.of_format(spec["format"]))
    items = spec.get("items", {})
    if spec.get("type") == "array" and isinstance(items, dict) and items.get("format"):
        options = req.of_format(items["format"])
        if not options or len(options) > spec.get("maxItems", len(options)):
            return None
        return Option([o.value for o in options], frozenset().union(*(o.uses for o in options)))
    return None
