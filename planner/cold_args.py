"""The cold path's arguments (planner/coldpath.py): what a request types, read once (`Request`),
and how each argument of a tool binds from it: by its schema `format` (file, folder, path, glob,
uri), arrays of them, "first/last N lines", a quoted text to write, a compute expression, a time
zone, a move's source and destination, an edit's old and new text, a folder to make. `Ambiguous`
when an argument could take two values: the cold path never guesses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from zoneinfo import available_timezones

from planner import object_kinds, terms
from planner import params as P
from planner.expressions import OPERATIONS, AmbiguousExpression, expression
from planner.text import fold, stems, words

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
_TIME_ZONES = object_kinds.time_zones()  # planner/object_kinds.yaml


# Words a binding accounts for beyond the intent's lexicons (as planner.params.signature stems them).
_KNOWN_WORDS = (
    " ".join(OPERATIONS) + " " + " ".join(_TIME_ZONES)
    + " percent per cento of x times plus minus divided multiplied moltiplicato diviso over piu meno"
    + " first last top bottom initial final prima prime primi ultima ultime ultimi few"
    + " replace change substitute swap correct fix sostituisci cambia correggi rimpiazza with con"
    + " everything recursively recursive content tutto contenuto ricorsivamente suo sua"
    + " under inside within sotto dentro called named chiamata chiamato nome"
    + " fammi vedere mostrami cosa c'e inside contents"
    + " two three four five due tre quattro cinque folders directories cartelle"
    + " name names nomi scritto scritta also too anche ancora still word parola"
)  # fmt: skip
_KNOWN_STEMS = frozenset(min(stems(w)) for w in words(_KNOWN_WORDS)) | {"c'e"}


class Ambiguous(Exception):
    """An argument could take more than one value: the cold path does not guess."""


@dataclass(frozen=True)
class Option:
    value: object
    uses: frozenset[str]  # the request's values it stands for (their names; "derived:N" for words)


@dataclass(frozen=True)
class Request:
    text: str  # lowercase, with quoted spans blanked out
    folded: str
    values: tuple[P.Value, ...]
    derived: tuple[object_kinds.Derived, ...]
    workspace: Path | None
    masked: str = ""  # the request with its typed values as <type:n> slots
    # Plain words that name what the workspace holds ("under data", «nella cartella ricette»): (word, "file"|"dir").
    named: tuple[tuple[str, str], ...] = ()
    # The name a new folder is given ("a folder called reports", «una cartella chiamata fatture»).
    fresh: tuple[str, ...] = ()
    # A bare word to search for: "cerca Giulia in contatti.txt", «quali file hanno scritto bozza?».
    term: str | None = None

    @property
    def unexplained(self) -> set[str]:
        """Words that are none of: a verb or an object the intent knows, a typed value, a value given
        in words, an operation, a zone, a line count, politeness. "delegate to a subagent: find the
        .md files" or "read a.md in full" say something a one-step binding would drop."""
        masked = re.sub(r"'(?:s|re|ll|d|m|ve)\b", " ", self.masked)
        tokens = {t for t in P.signature(masked) if ":" not in t and not t.startswith("<") and t != "not"}
        spoken = [w for d in self.derived for w in words(d.phrase)] + [w for w, _ in self.named] + list(self.fresh)
        spoken += [fold(self.term)] if self.term else []
        return tokens - _KNOWN_STEMS - {min(stems(w)) for w in spoken if stems(w)}

    @property
    def everything(self) -> frozenset[str]:
        return (
            frozenset(v.name for v in self.values)
            | {f"derived:{i}" for i in range(len(self.derived))}
            | {f"named:{w}" for w, _ in self.named}
            | {f"fresh:{w}" for w in self.fresh}
            | ({f"term:{self.term}"} if self.term else set())
        )

    def of(self, kind: str) -> list[P.Value]:
        return [v for v in self.values if v.type == kind]

    def _exists(self, path: str, test: str) -> bool:
        return self.workspace is not None and getattr(self.workspace / path, test)()

    def of_format(self, fmt: str) -> list[Option]:
        """What the request names of one JSON Schema `format`: a file has an extension or exists as
        a file; a folder ends with "/" or exists as one; "my files" is the root folder."""
        paths = self.of("path")
        files = [Option(p.text, frozenset({p.name})) for p in paths
                 if _is_file(p.text) or self._exists(p.text, "is_file")]  # fmt: skip
        folders = [Option(p.text, frozenset({p.name})) for p in paths
                   if p.text.endswith("/") or self._exists(p.text.strip("./") or ".", "is_dir")]  # fmt: skip
        files += [Option(w, frozenset({f"named:{w}"})) for w, kind in self.named if kind == "file"]
        folders += [Option(w, frozenset({f"named:{w}"})) for w, kind in self.named if kind == "dir"]
        root = [Option(d.value, frozenset({f"derived:{i}"})) for i, d in enumerate(self.derived) if d.kind == "root"]
        globs = [Option(g.text, frozenset({g.name})) for g in self.of("glob")]
        globs += [Option(f"*{e.text}", frozenset({e.name})) for e in self.of("ext")]
        globs += [Option(d.value, frozenset({f"derived:{i}"})) for i, d in enumerate(self.derived) if d.kind == "glob"]
        options = {
            "file": files,
            "folder": folders + root,
            "path": files + folders + root,
            "glob": globs,
            "uri": [Option(u.text, frozenset({u.name})) for u in self.of("url")],
        }.get(fmt, [])
        return _merged(options)


def _is_file(path: str) -> bool:
    return not path.endswith("/") and bool(Path(path).suffix)


def _merged(options: list[Option]) -> list[Option]:
    """One option per value: "*.md" written out and "markdown files" are one glob."""
    merged: dict[str, Option] = {}
    for o in options:
        key = str(o.value)
        merged[key] = Option(o.value, merged[key].uses | o.uses) if key in merged else o
    return list(merged.values())


def _one(options: list[Option]) -> Option | None:
    if len(options) > 1:
        raise Ambiguous
    return options[0] if options else None


def request_of(text: str, workspace: Path | None) -> Request:
    found = P.extract(text, workspace)
    quoted = [(v.start, v.end) for v in found.values if v.type == "quoted"]
    plain = list(text)
    for start, end in quoted:  # what a quote says is content, not what the request asks
        plain[start:end] = " " * (end - start)
    unquoted = "".join(plain).lower()
    # A value given in words that also holds a typed one ("my notes" where a notes folder exists) is
    # that typed value: it names the thing more precisely.
    typed = {fold(v.text) for v in found.values}
    derived = tuple(
        d for d in object_kinds.derived(unquoted) if not any(re.search(rf"\b{re.escape(t)}\b", d.phrase) for t in typed)
    )
    spans = [(v.start, v.end) for v in found.values]
    plain_words = [
        (m.group(0), m.start()) for m in re.finditer(r"[\w][\w.-]*", unquoted)
        if not any(start <= m.start() < end for start, end in spans)
    ]  # fmt: skip
    named_folders = [*object_kinds.listed_folders(unquoted), *(m.group(1) for m in _FRESH_FOLDER.finditer(unquoted))]
    fresh = tuple(dict.fromkeys(n for n in named_folders if workspace is None or not _entry(workspace, n)))
    named = []
    if workspace is not None:
        for word, _ in plain_words:
            if len(word) > 1 and word not in fresh and _entry(workspace, word):
                named.append((word, _entry(workspace, word)))
    term = terms.bare_term(text, spans)
    named = [(w, kind) for w, kind in named if w != (term or "").lower()]
    named_ = tuple(dict.fromkeys(named))
    return Request(unquoted, fold(unquoted), found.values, derived, workspace, found.masked, named_, fresh, term)


# "a folder called reports", «una cartella chiamata fatture», «crea la cartella diario».
_FRESH_FOLDER = re.compile(
    r"\b(?:folder|directory|dir|cartella)\s+(?:(?:called|named|chiamata|di nome|dal nome)\s+)?"
    r"(?!(?:with|for|in|of|and|con|per|di|e|a|the|la|il|that|che)\b)([a-z0-9][\w-]*)(?=\s|$|[.,!?])"
)


def _entry(workspace: Path, word: str) -> str | None:
    try:
        path = workspace / word
        return "dir" if path.is_dir() else "file" if path.is_file() else None
    except (OSError, ValueError):
        return None


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
    return _one(_merged(options))


def _content(req: Request) -> Option | None:
    return _one([Option(q.text, frozenset({q.name})) for q in req.of("quoted")])


def _append(req: Request) -> Option | None:
    return Option(True, frozenset()) if _APPEND.search(req.folded) else None


def _pattern(req: Request) -> Option | None:
    """What to search for: a quoted text, one identifier (`TODO`, `user_id`) or a bare word after
    a search verb; never for files found by their names."""
    if terms.BY_NAME.search(req.folded):
        return None
    options = [Option(v.text, frozenset({v.name})) for v in req.values if v.type in ("quoted", "identifier")]
    options += [Option(re.escape(req.term), frozenset({f"term:{req.term}"}))] if req.term else []
    return _one(options)


def _name_glob(req: Request) -> Option | None:
    """A glob written out or given in words, or, for files found by their names, *name*."""
    globs = req.of_format("glob")
    if globs or not terms.BY_NAME.search(req.folded):
        return _one(globs)
    return _one([Option(f"*{v.text}*", frozenset({v.name})) for v in req.values if v.type in ("quoted", "identifier")])


def _time_zone(req: Request) -> Option | None:
    """An IANA name written out, or a city or zone of the table; two of them: ambiguous."""
    options = [Option(p.text, frozenset({p.name})) for p in req.of("path") if p.text in _zones()]
    for ident in req.of("identifier"):
        if fold(ident.text) in _TIME_ZONES:
            options.append(Option(_TIME_ZONES[fold(ident.text)], frozenset({ident.name})))
    for name, zone in _TIME_ZONES.items():
        if re.search(rf"\b{name}\b", req.folded) and not any(fold(i.text) == name for i in req.of("identifier")):
            options.append(Option(zone, frozenset()))
    return _one(_merged(options))


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _move(req: Request, part: str) -> Option | None:
    """ "move a.txt to archive/", "rinomina a.txt in b.txt": two paths, the first moves, the one
    after "to / in / into / a / nella" is where; any other count is not a move the request types."""
    paths = req.of("path")
    if len(paths) != 2 or not re.search(
        r"\b(?:to|into|in|as|a|nella|nel|nello|come)\b", req.text[paths[0].end : paths[1].start]
    ):
        return None
    chosen = paths[0] if part == "paths" else paths[1]
    return Option([chosen.text] if part == "paths" else chosen.text, frozenset({chosen.name}))


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
    r"ricorsivamente)\b"
)


def _recursive(req: Request) -> Option | None:
    return Option(True, frozenset()) if _RECURSIVE.search(req.folded) else None


# Right after a new folder's name, the folder it goes in: «una cartella gamma dentro progetti».
_INSIDE = r"\s+(?:inside|in|within|under|into|dentro|sotto|nella)\s+(?:the |la |il )?(?:folder |cartella )?([\w./-]+)"


def _nested(req: Request, name: str) -> Option:
    inside = re.search(rf"\b{re.escape(name)}{_INSIDE}", req.folded)
    word = inside.group(1).rstrip("/") if inside else ""
    use = next((f"named:{w}" for w, kind in req.named if kind == "dir" and w == word), None) or next(
        (v.name for v in req.of("path") if v.text.rstrip("/") == word), None
    )
    fresh = frozenset({f"fresh:{name}"})
    return Option([f"{word}/{name}"], fresh | {use}) if use else Option([name], fresh)


def _new_folders(req: Request) -> Option | None:
    """The folders to make: paths ending in "/", the name after "folder"/«cartella» (inside the
    folder named after it), or the names listed after "folders"/«cartelle» ("create two folders:
    src and tests")."""
    options = [_nested(req, name) for name in req.fresh]
    parents = {use for o in options for use in o.uses}
    options += [Option([p.text], frozenset({p.name})) for p in req.of("path") if p.text.endswith("/")
                and p.name not in parents]  # fmt: skip
    for value in req.values:
        before = req.folded[: value.start].rstrip()
        if value.type in ("identifier", "path", "quoted") and re.search(
            r"\b(?:folder|directory|dir|cartella)(?:\s+(?:called|named|chiamata|di nome))?$", before
        ):
            options.append(Option([value.text], frozenset({value.name})))
    listed = [n for n in object_kinds.listed_folders(req.folded) if n in req.fresh]
    if len(listed) > 1:  # one option, for the whole list
        options = [o for o in options if not set(o.value) <= set(listed)]
        uses = {f"fresh:{n}" for n in listed} | {v.name for v in req.values if v.text in listed}
        options.append(Option(listed, frozenset(uses)))
    return _one(_merged(options))


# "lines 1-6", "from line 10 to 20", «righe 3-8», «dalla riga 2 alla 5».
_RANGE = re.compile(
    r"\b(?:lines?|righe|riga)\s+(?:from\s+|da\s+|dalla\s+)?(?P<a>\d+)\s*(?:-|\u2013|to|through|a|alla)\s*(?P<b>\d+)\b|"
    r"\b(?:from line|dalla riga)\s+(?P<c>\d+)\s+(?:to|alla)\s+(?:line\s+|riga\s+)?(?P<d>\d+)\b"
)


def _range(req: Request, part: str) -> Option | None:
    match = _RANGE.search(req.text)
    if match is None:
        return None
    first, last = (match.group("a"), match.group("b")) if match.group("a") else (match.group("c"), match.group("d"))
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
        return _one(req.of_format(spec["format"]))
    items = spec.get("items", {})
    if spec.get("type") == "array" and isinstance(items, dict) and items.get("format"):
        options = req.of_format(items["format"])
        if not options or len(options) > spec.get("maxItems", len(options)):
            return None
        return Option([o.value for o in options], frozenset().union(*(o.uses for o in options)))
    return None
