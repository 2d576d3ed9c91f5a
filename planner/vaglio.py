"""The vaglio: the guard that screens every step before it runs (hard blocks, then a judge's score).

1. The guard is binary and does not relax. It blocks a step when any argument mentions a
   forbidden path (~/.ssh, /etc/passwd|shadow|sudoers, /root, /boot, /sys, /proc, /dev/sd*,
   /dev/nvme*, ~/.aws/credentials, ~/.config/*/credentials.env, ~/.gnupg), when a path argument
   resolves outside the workspace (a path argument: one so named, or one whose schema has a path
   format, at any depth), and, for executors with the code:exec capability, when the
   command is destructive (rm -rf / or ~, mkfs, dd of=/dev/…, a fork bomb, recursive chmod/chown
   of /) or names a path outside the workspace. A write (fs:write) may change a file or folder
   that already exists only when the request names it as a destination ("to notes/b.md", "update
   notes/b.md", "delete a.md and b.md", "move old/ into archive/"); "a summary of notes/b.md"
   names it as a source, so it is not overwritten.
2. The judge scores the step in [0, 1] with documented rules and blocks it below the threshold
   (METNOS_JUDGE_THRESHOLD, 0.30):
   - base 0.7;
   - +0.2 when the user's request names the executor or its verb (explicit intent);
   - -0.3 when an argument contains `..` (possible traversal, even if it resolves inside);
   - -0.2 when an argument key is not a plain identifier (an anomaly);
   - -0.2 for code:exec steps whose verb the request does not name (running code unasked).
Verdicts are logged with the argument keys only, never their values."""

from __future__ import annotations

import logging
import os
import re
import shlex
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from django.conf import settings

from planner import name_share, object_kinds
from planner import params as P
from planner.catalog import Executor
from planner.plan import strings
from planner.text import fold
from planner.validator import PATH_FORMATS
from planner.workspace import OutsideWorkspace, resolve

logger = logging.getLogger("metnos.vaglio")

FORBIDDEN_PATHS = [
    re.compile(p)
    for p in (
        r"~/\.ssh\b",
        r"/\.ssh\b",
        r"/etc/(passwd|shadow|sudoers)\b",
        r"(^|[\s'\"=])/root(/|\b)",
        r"(^|[\s'\"=])/boot(/|\b)",
        r"(^|[\s'\"=])/sys(/|\b)",
        r"(^|[\s'\"=])/proc(/|\b)",
        r"/dev/(sd[a-z]|nvme\d)",
        r"\.aws/credentials\b",
        r"\.config/[^/\s]+/credentials\.env\b",
        r"\.gnupg\b",
    )
]
DESTRUCTIVE_SHELL = [
    re.compile(p)
    for p in (
        r"\brm\s+(-[a-zA-Z]*\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*\s+)(-[a-zA-Z]*\s+)*(/|~|\$HOME)(\s|$|/\*)",
        r"\bmkfs(\.\w+)?\b",
        r"\bdd\b[^\n]*\bof=/dev/",
        r":\(\)\s*\{\s*:\|:&\s*\};\s*:",
        r"\bch(mod|own)\s+-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)",
        r">\s*/dev/(sd[a-z]|nvme)",
    )
]
PATH_ARGS = {"path", "paths", "src", "dst", "dir", "directory", "file", "files"}
# Absolute paths a shell command may name: the system's programs and the null device.
SHELL_ALLOWED_ABSOLUTE = ("/usr/", "/bin/", "/dev/null", "/dev/stdout", "/dev/stderr")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
UNNAMED_TARGET = "it would change a file that the request does not name as a destination"
# Words that, right before a path in the request, make it the destination of a write.
_DESTINATION = re.compile(
    r"\b(to|into|onto|as|over|overwrite|update|edit|modify|change|replace|fix|rewrite|append|save|write|"
    r"delete|remove|erase|rm|move|rename|create|make|mkdir|get rid of|throw away|butta via|"
    r"sovrascrivi|aggiorna|modifica|cambia|correggi|riscrivi|salva|scrivi|aggiungi|nel|nella|sul|sulla|"
    # «rinominami il file …»: a clitic after the verb
    r"elimina|cancella|rimuovi|sposta|rinomina|crea|metti|sort|ordina|riordina)(?:mi|ci|melo|mela|meli|mele)?"
    r"\s+(?:(?:the|file|files|folder|folders|directory|il|la|lo|i|le|gli|in|a|an|un|una|uno|new|nuova|nuovo|"
    r"cartella|cartelle)\s+)*(?:(?:called|named|chiamat[ao]|di nome)\s+)?[`'\"]?$",  # "a folder called …"
    re.IGNORECASE,
)
# The thing first, then a changing verb whose pronoun is that thing: «bozze/finale.txt spostala in …».
_CLITIC_AFTER = re.compile(
    r"^[`'\"]?\s*,?\s*(?:(?:e|ora|pure|poi)\s+)?(?:sposta|rinomina|cancella|elimina|rimuovi|togli|modifica|"
    r"aggiorna|correggi|sovrascrivi|butta)(?:mi|ce|me)?(?:lo|la|li|le)\b",
    re.IGNORECASE,
)
# «aggiungi 'uova' a lista.txt», "add 'x' to the end of log.md": after an adding verb, "a"/"to" too.
_ADD_TO = re.compile(
    r"\b(append|add|aggiungi|accoda|appendi)\b.*\b(to|onto|a|al|alla|allo|in|nel|nella|in fondo a|"
    r"at the end of|to the end of)\s+(?:(?:the|file|il|la|lo)\s+)*[`'\"]?$",
    re.IGNORECASE | re.DOTALL,
)
# "fix the typo in notes/b.md": after an editing verb, "in" also names the destination.
_EDIT_IN = re.compile(
    r"\b(fix|edit|update|change|replace|correct|modify|rename|insert|move|remove|delete|set|"
    r"correggi|modifica|aggiorna|cambia|sostituisci|sposta|rimuovi|elimina|cancella|metti|imposta)\b"
    r".*\b(in|inside|within|nel|nella|dentro)\s+(?:(?:the|file|folder|il|la|lo|cartella)\s+)*[`'\"]?$",
    re.IGNORECASE | re.DOTALL,
)
# "remove the last line from notes/b.md": after a removing verb, "from" names what changes.
_REMOVE_FROM = re.compile(
    r"\b(remove|delete|drop|strip|erase|(?:rimuovi|elimina|cancella|togli)(?:lo|la|li|le|ne)?)\b"
    r".*\b(from|da|dal|dalla|dallo)\s+(?:(?:the|file|il|la|lo)\s+)*[`'\"]?$",
    re.IGNORECASE | re.DOTALL,
)
# "delete a.md, b.md and c.md": the earlier names of a list, skipped back to the verb before them.
_LISTED = re.compile(r"[`'\"]?[\w./*~-]+[`'\"]?\s*(?:,|\band\b|\be\b|&)\s*(?:(?:the|il|la|lo|i|le|gli)\s+)?[`'\"]?$")


@dataclass(frozen=True)
class Verdict:
    approved: bool
    reason: str
    score: float | None = None
    blocked_by: str | None = None  # guard | judge | access
    judge_kind: str = "rules"
    arg_keys: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "approved": self.approved,
            "reason": self.reason,
            "score": self.score,
            "blocked_by": self.blocked_by,
            "judge_kind": self.judge_kind,
            "arg_keys": list(self.arg_keys),
        }


def _path_values(executor: Executor, args: dict) -> list[str]:
    named = [s for key, value in args.items() if key in PATH_ARGS for s in strings(value)]
    return list(dict.fromkeys([*named, *_formatted(executor.args_schema, args)]))


def _formatted(schema: dict, value: object) -> list[str]:
    """The strings in `value` whose schema gives them a path format, however deep they sit."""
    if isinstance(value, str):
        return [value] if schema.get("format") in PATH_FORMATS else []
    if isinstance(value, list):
        return [s for item in value for s in _formatted(schema.get("items") or {}, item)]
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        return [s for key, item in value.items() for s in _formatted(properties.get(key) or {}, item)]
    return []


def _shell_paths(command: str) -> list[str]:
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    paths = []
    for token in tokens:
        for part in re.split(r"[=:]", token):
            if part.startswith(("/", "~", "..")) or "/../" in part:
                paths.append(part)
    return paths


def _named_as_destination(request_text: str, workspace: Path, target: Path) -> bool:
    rel = target.relative_to(workspace).as_posix()
    for candidate in {rel, f"./{rel}"}:
        for match in re.finditer(rf"(?<![\w./-]){re.escape(candidate)}(?![\w-]|/[\w.*-])", request_text):
            if _destination_before(request_text[: match.start()]) or _described(request_text[: match.start()]):
                return True
            if _WHERE_FIRST.match(request_text[: match.start()]) and _EDIT_AFTER.match(request_text[match.end() :]):
                return True  # «in progetto/db.py cambia 'a' in 'b'»: where first, then the edit
            if _CLITIC_AFTER.match(request_text[match.end() :]):
                return True  # «ok allora bozze/finale.txt spostala in definitivi/»: the thing, then its verb
    return _named_by_kind(request_text, rel, workspace)


def _named_by_kind(request_text: str, rel: str, workspace: Path) -> bool:
    """ "move every meeting-*.md file into meetings/", «cancella tutti i file pdf»: a file of the
    kind the request's acting verb names, by a glob or in words (planner.object_kinds), or by a
    word their names share («mettici dentro i due capitoli», planner.name_share)."""
    folded = request_text.lower()
    kinds = [(v.start, v.text) for v in P.extract(request_text).values if v.type == "glob"]
    kinds += [(folded.find(d.phrase), d.value) for d in object_kinds.derived(folded) if d.kind == "glob"]
    name = rel.rsplit("/", 1)[-1]

    def acted_on(at: int, glob: str) -> bool:
        before = _EVERY.sub(" ", _EVERY.sub(" ", request_text[:at]))  # «mettici dentro i due …»
        return at >= 0 and (fnmatch(rel, glob) or fnmatch(name, glob)) and _destination_before(before)

    if any(acted_on(at, glob) for at, glob in kinds):
        return True
    folded = fold(request_text)  # only now the workspace's names: a walk of it
    shared = name_share.shared(folded, workspace, looking=False)
    said = shared and re.search(rf"(?<![\w/.-]){re.escape(shared[0].split()[0])}(?![\w/.-])", folded)
    return bool(said) and acted_on(said.start(), f"*{shared[1]}*")  # the word itself, not inside a path


_EVERY = re.compile(
    r"(?:\b(?:all|every|each|tutti|tutte|ogni|both|entramb[ie])(?:\s+(?:the|i|le|gli))?|"
    r"\b(?:the|i|le|gli)\s+(?:two|three|due|tre))\s*$|(?<=ci) dentro\s*$",  # «mettici dentro i due …»
    re.IGNORECASE,
)


_WHERE_FIRST = re.compile(r"^\s*(?:in|inside|within|nel|nella|dentro)\s+(?:(?:the|file|il|lo|la)\s+)*[`'\"]?$", re.I)
_EDIT_AFTER = re.compile(
    r"^[`'\"]?[\s,:]+(?:please\s+|per favore\s+)?(?:change|replace|fix|correct|edit|update|modify|swap|"
    r"cambia|sostituisci|correggi|modifica|aggiorna|rimpiazza)\b",
    re.I,
)


def _described(before: str) -> bool:
    """ "add a jacket to my packing list (trip/packing.md)", «nella lettera al fornitore
    (ufficio/lettera.txt) cambia …»: a path in brackets names the words before it, so it is a
    destination where those words are one."""
    bracket = re.search(r"\(\s*[`'\"]?$", before)
    said = before[: bracket.start()].split() if bracket else []
    return any(_destination_before(" ".join(said[:-k]) + " ") for k in range(1, min(len(said), 5) + 1))


def _destination_before(before: str) -> bool:
    for _ in range(20):  # the most paths a step takes
        if (
            _DESTINATION.search(before)
            or _EDIT_IN.search(before)
            or _REMOVE_FROM.search(before)
            or _ADD_TO.search(before)
        ):
            return True
        listed = _LISTED.search(before)
        if listed is None:
            return False
        before = before[: listed.start()]
    return False


def _overwrites_unasked(executor: Executor, args: dict, workspace: Path, request_text: str) -> bool:
    if "fs:write" not in executor.capabilities:
        return False
    for value in _path_values(executor, args):
        target = resolve(workspace, value)
        if target.exists() and not _named_as_destination(request_text, workspace.resolve(), target):
            return True
    return False


def guard(executor: Executor, args: dict, workspace: Path, request_text: str = "") -> str | None:
    """The reason a step is forbidden, or None."""
    for text in strings(args):
        for pattern in FORBIDDEN_PATHS:
            if pattern.search(text):
                return "an argument names a forbidden path"
    for value in _path_values(executor, args):
        try:
            resolve(workspace, value)
        except OutsideWorkspace:
            return "a path argument leads outside the workspace"
    if "code:exec" in executor.capabilities:
        command = " ".join(strings(args))
        for pattern in DESTRUCTIVE_SHELL:
            if pattern.search(command):
                return "the command is destructive"
        for value in _shell_paths(command):
            if value.startswith("/") and value.startswith(SHELL_ALLOWED_ABSOLUTE):
                continue
            try:
                resolve(workspace, os.path.expanduser(value) if value.startswith("~") else value)
            except OutsideWorkspace:
                return "the command names a path outside the workspace"
    if _overwrites_unasked(executor, args, workspace, request_text):
        return UNNAMED_TARGET
    return None


def judge(executor: Executor, args: dict, request_text: str) -> float:
    text = request_text.lower()
    verb = executor.name.split("_", 1)[0]
    score = 0.7
    named = executor.name in text or re.search(rf"\b{re.escape(verb)}", text) is not None
    if named:
        score += 0.2
    if any(".." in s for s in strings(args)):
        score -= 0.3
    if any(not _IDENTIFIER.match(key) for key in args):
        score -= 0.2
    if "code:exec" in executor.capabilities and not named:
        score -= 0.2
    return round(max(0.0, min(1.0, score)), 3)


def examine(executor: Executor, args: dict, *, workspace: Path, request_text: str = "") -> Verdict:
    keys = tuple(sorted(args)) if isinstance(args, dict) else ()
    blocked = guard(executor, args, workspace, request_text)
    if blocked:
        verdict = Verdict(False, blocked, None, "guard", arg_keys=keys)
    else:
        score = judge(executor, args, request_text)
        threshold = settings.METNOS_JUDGE_THRESHOLD
        if score < threshold:
            verdict = Verdict(False, f"judge score {score} is below {threshold}", score, "judge", arg_keys=keys)
        else:
            verdict = Verdict(True, "approved", score, arg_keys=keys)
    logger.info(
        "vaglio %s %s keys=%s %s", executor.name, "ok" if verdict.approved else "BLOCKED", list(keys), verdict.reason
    )
    return verdict
