"""What a request types, read once for the cold path (planner/coldpath.py, planner/cold_args.py):
its typed values, the values it gives in words, the plain words that name what the workspace
holds, a new folder's name, a bare word it searches for, and the words no binding explains.
`Ambiguous` when an argument could take two values: the cold path never guesses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from planner import name_share, object_kinds, terms
from planner import params as P
from planner.expressions import OPERATIONS
from planner.text import fold, stems, words

TIME_ZONES = object_kinds.time_zones()  # planner/object_kinds.yaml


# Words a binding accounts for beyond the intent's lexicons (as planner.params.signature stems them).
_KNOWN_WORDS = (
    " ".join(OPERATIONS) + " " + " ".join(TIME_ZONES)
    + " percent per cento of x times plus minus divided multiplied moltiplicato diviso over piu meno"
    + " first last top bottom initial final prima prime primi ultima ultime ultimi few"
    + " replace change substitute swap correct fix sostituisci cambia correggi rimpiazza with con"
    + " subtract sottrai from da"
    + " everything recursively recursive content tutto contenuto ricorsivamente suo sua"
    + " under inside within sotto dentro called named chiamata chiamato nome"
    + " fammi vedere mostrami cosa c'e inside contents"
    + " two three four five due tre quattro cinque folders directories cartelle sottocartelle subfolders"
    + " name names nomi scritto scritta also too anche ancora still word parola left rimasti rimaste adesso ora"
    + " comment comments commento commenti title titolo heading intestazione same stessa stesso folder cartella"
    + " ok allora quindi new nuova nuovo make"
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
    # A word the names of some files share, in a request that names nothing else: «trovami le fatture» (word, name).
    shared: tuple[str, str] | None = None

    @property
    def unexplained(self) -> set[str]:
        """Words that are none of: a verb or an object the intent knows, a typed value, a value given
        in words, an operation, a zone, a line count, politeness. "delegate to a subagent: find the
        .md files" or "read a.md in full" say something a one-step binding would drop."""
        masked = re.sub(r"'(?:s|re|ll|d|m|ve)\b", " ", self.masked)
        tokens = {t for t in P.signature(masked) if ":" not in t and not t.startswith("<") and t != "not"}
        spoken = [w for d in self.derived for w in words(d.phrase)] + [w for w, _ in self.named] + list(self.fresh)
        spoken += [fold(self.term)] if self.term else []
        spoken += self.shared[0].split() if self.shared else []
        return tokens - _KNOWN_STEMS - {min(stems(w)) for w in spoken if stems(w)}

    @property
    def everything(self) -> frozenset[str]:
        return (
            frozenset(v.name for v in self.values)
            | {f"derived:{i}" for i in range(len(self.derived))}
            | {f"named:{w}" for w, _ in self.named}
            | {f"fresh:{w}" for w in self.fresh}
            | ({f"term:{self.term}"} if self.term else set())
            | ({f"shared:{self.shared[0]}"} if self.shared else set())
        )

    def of(self, kind: str) -> list[P.Value]:
        return [v for v in self.values if v.type == kind]

    def _exists(self, path: str, test: str) -> bool:
        return self.workspace is not None and getattr(self.workspace / path, test)()

    def _placed(self, paths: list[P.Value]) -> list[Option]:
        """A file name the request puts in a folder it names: «nella cartella tesi/capitoli crea il
        file intro.md», "create notes.md in the docs folder" → tesi/capitoli/intro.md (a name the
        workspace's root does not hold)."""
        bare = [p for p in paths if "/" not in p.text and is_file(p.text) and not self._exists(p.text, "exists")]
        folders = [p for p in paths if p.text.endswith("/") or self._exists(p.text.strip("/"), "is_dir")]
        if (
            len(bare) != 1
            or len(folders) != 1
            or not re.search(
                rf"\b(?:in|into|inside|under|nella|nel|dentro|sotto)\s+(?:the\s+|la\s+)?(?:(?:folder|cartella)\s+)?"
                rf"{re.escape(self.text[folders[0].start : folders[0].end])}",
                self.text,
            )
        ):
            return []
        return [Option(f"{folders[0].text.rstrip('/')}/{bare[0].text}", frozenset({bare[0].name, folders[0].name}))]

    def of_format(self, fmt: str) -> list[Option]:
        """What the request names of one JSON Schema `format`: a file has an extension or exists as
        a file; a folder ends with "/" or exists as one; "my files" is the root folder."""
        paths = self.of("path")
        files = [Option(p.text, frozenset({p.name})) for p in paths
                 if is_file(p.text) or self._exists(p.text, "is_file")]  # fmt: skip
        folders = [Option(p.text, frozenset({p.name})) for p in paths
                   if p.text.endswith("/") or self._exists(p.text.strip("./") or ".", "is_dir")]  # fmt: skip
        files += [Option(w, frozenset({f"named:{w}"})) for w, kind in self.named if kind == "file"]
        if placed := self._placed(paths):  # the name goes in the folder: not in the root as well
            files = [o for o in files if not o.uses <= placed[0].uses] + placed
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
        return merged(options)


def is_file(path: str) -> bool:
    return not path.endswith("/") and bool(Path(path).suffix)


def merged(options: list[Option]) -> list[Option]:
    """One option per value: "*.md" written out and "markdown files" are one glob."""
    merged: dict[str, Option] = {}
    for o in options:
        key = str(o.value)
        merged[key] = Option(o.value, merged[key].uses | o.uses) if key in merged else o
    return list(merged.values())


def one(options: list[Option]) -> Option | None:
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
    # «una cartella foto dentro viaggi»: the folder it goes in is new too when the workspace lacks it
    inside = (re.search(rf"\b{re.escape(n)}{INSIDE}", unquoted) for n in list(named_folders))
    named_folders += [m.group(1) for m in inside if m and "/" not in m.group(1)]
    fresh = tuple(dict.fromkeys(n for n in named_folders if workspace is None or not _entry(workspace, n)))
    named = []
    if workspace is not None:
        for word, _ in plain_words:
            if len(word) > 1 and word not in fresh and _entry(workspace, word):
                named.append((word, _entry(workspace, word)))
    term = terms.bare_term(text, spans)
    named = [(w, kind) for w, kind in named if w != (term or "").lower()]
    named_ = tuple(dict.fromkeys(named))
    # «in quali ricette della cartella ricette»: the same name twice is one value
    values = tuple({(v.type, fold(v.text).rstrip("/")): v for v in reversed(found.values)}.values())[::-1]
    nothing_else = not (values or derived or named_ or fresh or term)
    shared = name_share.shared(fold(unquoted), workspace) if nothing_else else None
    return Request(unquoted, fold(unquoted), values, derived, workspace, found.masked, named_, fresh, term, shared)


# Right after a new folder's name, the folder it goes in: «una cartella gamma dentro progetti».
INSIDE = r"\s+(?:inside|in|within|under|into|dentro|sotto|nella)\s+(?:the |la |il )?(?:folder |cartella )?([\w./-]+)"
# "a folder called reports", «una cartella chiamata fatture», «crea la cartella diario».
_FRESH_FOLDER = re.compile(
    r"\b(?:folder|directory|dir|cartella)(?:\s+(?:nuova|new))?(?:\s*,)?\s+"
    r"(?:(?:called|named|chiamata|di nome|dal nome)\s+)?"
    r"(?!(?:with|for|in|of|and|con|per|di|e|a|the|la|il|that|che|containing|contenente|which|where|dove|nuova|new|"
    r"called|named|chiamata|chiamato)\b)"
    r"([a-z0-9][\w-]*)(?=\s|$|[.,!?])"
)


def _entry(workspace: Path, word: str) -> str | None:
    try:
        path = workspace / word
        return "dir" if path.is_dir() else "file" if path.is_file() else None
    except (OSError, ValueError):
        return None
