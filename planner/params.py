"""Typed values in a request, and plans parametrized by them: what lets plan memory serve
"read notes/b.md" with the plan it learned on "read notes/a.md" and read the right file.

    extract("read notes/a.md and show the last 2 lines", ws)
      → values path_1 = "notes/a.md", number_1 = 2
      → masked "read <path:1> and show the last <number:1> lines"
    parametrize(plan, extraction)
      → {"paths": ["${PARAM:path_1}"], "tail_lines": "${PARAM:number_1}"} and the slots' types
    fill(slots, probe extraction) → the values for a new request, or None when types and counts do
      not line up unambiguously (a miss: never guess).

Types: url, email, quoted (a quoted string), glob, path (a workspace path: a name with a file
extension or a slash, or a word naming something that exists in the workspace), datetime (an
explicit date or time; "today" stays a word, so it is part of what the request means),
ext (".md"), identifier (`backticked`, snake_case, ALLCAPS, letters with digits) and number.
Values are found in that order; a span taken by one type is not looked at again."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner import lexicon
from planner.intent import _OBJECT_PHRASES, _OBJECT_STEMS, _VERB_PHRASES, _VERB_STEMS
from planner.plan import PLACEHOLDER
from planner.text import STOPWORDS, fold, may_name_a_place, stems

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto"
    r"|settembre|ottobre|novembre|dicembre)"
)
PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("url", re.compile(r"https?://[^\s'\"<>]+[^\s'\"<>.,;:!?)]")),
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?<![.])")),
    ("quoted", re.compile(
        r"(?<!\w)'((?:[^'\n]|(?<=\w)'(?=\w)){1,500})'(?!\w)|\"([^\"\n]{1,500})\"|\u201c([^\u201d\n]{1,500})\u201d|«([^»\n]{1,500})»"
    )),
    # A glob never ends with "?": "e per *.py?" asks about *.py.
    ("glob", re.compile(r"(?<![\w/])(?=\S*[\w.])((?:[\w.-]+/)*[\w.-]*\*[\w.*?/-]*(?<!\?))")),
    ("datetime", re.compile(  # not inside a name: meeting-2024-03-04.md is a file
        r"(?<![\w-])\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b(?!\.\w|-)"
        r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}\b"
        rf"|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTHS}\b(?: \d{{4}})?"
        rf"|\b{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?\b(?:,? \d{{4}})?",
        re.IGNORECASE,
    )),
    ("path", re.compile(
        r"(?<![\w/.:@-])(~?(?:[\w.-]+/)+[\w.-]*|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/])"
    )),
    ("ext", re.compile(r"(?:(?<=\s)|^|(?<=[(\[]))(\.[A-Za-z][A-Za-z0-9]{0,5})\b")),
    ("identifier", re.compile(
        r"`([^`\n]{1,200})`|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[A-Z]{2,}[A-Z0-9]*\b|\b([A-Z]{4,}[A-Z0-9]*)s\b|\b[A-Za-z]+\d+[A-Za-z0-9]*\b"
    )),
    ("number", re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]|\.\d)")),
)  # fmt: skip
TYPES = tuple(name for name, _ in PATTERNS)
# Negations and exclusions (planner/canonical.yaml's modifiers): "don't read" is not "read".
_NEGATIONS = lexicon.negations()
# Politeness and words whose presence does not change what a plan does.
_FILLERS = frozenset(
    """tell give let me please kindly could would you can now thanks dimmi fammi have has got hai ho
    there exist exists text content contents ones entries items every each currently right all
    tutti tutte ogni contenuto testo qual""".split()
)
# Words that change what a step does, folded onto one token per meaning (first, last).
_MODIFIERS = {word: label for word, label in lexicon.modifier_words().items() if label in ("first", "last")}
# Operations that one intent verb covers but a plan does not (computing a sum is not an average,
# writing is not appending): each keeps a token of its own, in either language.
_OPERATIONS = {
    "sum": "sum", "sums": "sum", "total": "sum", "somma": "sum", "sommare": "sum", "sommi": "sum", "totale": "sum",
    "average": "mean", "mean": "mean", "avg": "mean", "media": "mean",
    "multiply": "product", "product": "product", "moltiplica": "product", "prodotto": "product",
    "divide": "quotient", "dividi": "quotient", "quotient": "quotient", "quoziente": "quotient",
    "max": "max", "maximum": "max", "largest": "max", "massimo": "max",
    "min": "min", "minimum": "min", "smallest": "min", "minimo": "min",
    "append": "append", "add": "append", "aggiungi": "append", "appendi": "append", "accoda": "append",
}  # fmt: skip


@dataclass(frozen=True)
class Value:
    type: str
    text: str  # as written in the request (quotes stripped)
    value: Any  # typed: int/float for numbers, str otherwise
    start: int
    end: int
    index: int  # 1-based, per type, in order of appearance

    @property
    def name(self) -> str:
        return f"{self.type}_{self.index}"


@dataclass(frozen=True)
class Extraction:
    text: str
    values: tuple[Value, ...]
    masked: str

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(v.type for v in self.values))

    def by_name(self) -> dict[str, Value]:
        return {v.name: v for v in self.values}

    @property
    def key(self) -> str:
        """Stage 1's fingerprint: a hash of the normalized masked request."""
        return hashlib.sha256(normalize(self.masked).encode()).hexdigest()


NUMBER = r"-?\d+(?:\.\d+)?"  # a number as written: planner.spelled, planner.canonical


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def extract(text: str, workspace: Path | None = None, extra: tuple = ()) -> Extraction:
    """The request's typed values. `extra`: (type, pattern, before_type) triples of types only some
    readers want (plan memory's operators and schedules, planner.canonical), each looked for just
    before `before_type`."""
    taken: list[tuple[int, int, str, str]] = []  # start, end, type, text

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _, _ in taken)

    patterns: list[tuple[str, re.Pattern]] = []
    for kind, pattern in PATTERNS:
        patterns += [(k, p) for k, p, before in extra if before == kind]
        patterns.append((kind, pattern))
    for kind, pattern in patterns:
        for match in pattern.finditer(text):
            group = next((g for g in match.groups() if g), None) if match.groups() else None
            start, end = match.span()
            if not free(start, end):
                continue
            value = group if group is not None else match.group(0)
            if kind == "path":
                value = value.rstrip(".")
                end = start + len(match.group(0).rstrip("."))
            taken.append((start, end, kind, value))
    for match in _HYPHENATED.finditer(text):  # a name: "the nightly-backup task", «riattiva report-mensile»
        if free(*match.span()) and _a_name(match.group(0)):
            taken.append((match.start(), match.end(), "identifier", match.group(0)))
    if workspace is not None:  # a plain word that names something in the workspace is a path
        for match in re.finditer(r"(?<![\w./-])[\w-]{2,}(?![\w/])", text):
            word, span = match.group(0), match.span()
            caps = (*span, "identifier", word)  # "HR": a folder named in capitals
            if (free(*span) or caps in taken) and may_name_a_place(text, *span) and (workspace / word).exists():
                taken = [t for t in taken if t != caps] + [(*span, "path", word)]
    taken.sort()
    counters: Counter[str] = Counter()
    values = []
    for start, end, kind, raw in taken:
        counters[kind] += 1
        typed = _number(raw) if kind == "number" else raw
        values.append(Value(kind, raw, typed, start, end, counters[kind]))
    masked, cursor = [], 0
    for v in values:
        masked += [text[cursor : v.start], f"<{v.type}:{v.index}>"]
        cursor = v.end
    masked.append(text[cursor:])
    return Extraction(text, tuple(values), "".join(masked))


# Words joined by hyphens, as names are ("nightly-backup", "report-mensile"); not the common
# compounds of English ("follow-up" has a short part; "real-time" is in the list), nor a number.
_HYPHENATED = re.compile(r"(?<![\w./-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w/-]|\.\w)")
_COMPOUNDS = frozenset(
    "well-known real-time long-term short-term self-hosted step-by-step day-to-day end-to-end year-end "
    "state-of-the-art open-source non-empty read-only full-text multi-step one-off high-level low-level first-class "
    "third-party so-called left-hand right-hand all-time part-time full-time case-sensitive case-insensitive".split()
)
_TENS = re.compile(r"^(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)-")


def _a_name(word: str) -> bool:
    parts = word.lower().split("-")
    long_parts = sum(1 for p in parts if len(p) >= 3)
    return long_parts >= 2 and word.lower() not in _COMPOUNDS and not _TENS.match(word.lower())


def normalize(masked: str) -> str:
    return re.sub(r"\s+", " ", fold(masked)).strip(" ?!.,;:")


_SLOT_TOKEN = re.compile(r"<(\w+):\d+>")


def signature(masked: str) -> tuple[str, ...]:
    """What the request asks, as a sorted set of tokens: intent verbs and objects as their labels,
    modifiers (last/first) folded, negations kept, slots as their type, the rest as stems, with
    stop-words and politeness dropped. Two requests reuse one plan only with equal signatures:
    "the first 3 lines" never gets the plan for "the last 3 lines", "don't read" never gets
    "read"'s, and an extra constraint ("… and count the words") is an extra token."""
    text = " " + _SLOT_TOKEN.sub(lambda m: f" slot{m.group(1)} ", fold(masked)) + " "
    text = re.sub(r"n't\b", " not", text)
    tokens: set[str] = set()
    for phrases, prefix in ((_VERB_PHRASES, "v"), (_OBJECT_PHRASES, "o")):
        for phrase, label in phrases:
            if f" {phrase} " in text:
                text = text.replace(f" {phrase} ", " ")
                tokens.add(f"{prefix}:{label}")
    for operator in re.findall(r"[+*/\u00d7\u00f7^%=<>]|(?<![\w-])-(?![\w-])", text):
        tokens.add(f"op:{operator}")  # "<number:1> * <number:2>" is not "<number:1> + <number:2>"
    for word in re.findall(r"[a-z0-9']+", text):
        if word.startswith("slot"):
            tokens.add(f"<{word[4:]}>")
        elif word in _NEGATIONS:
            tokens.add("not")
        elif word in _MODIFIERS:
            tokens.add(f"m:{_MODIFIERS[word]}")
        elif word in STOPWORDS or word in _FILLERS or word.isdigit():
            continue
        else:
            variants = stems(word)
            verb = _VERB_STEMS.get("=" + word) or next((_VERB_STEMS[s] for s in variants if s in _VERB_STEMS), None)
            obj = next((_OBJECT_STEMS[s] for s in variants if s in _OBJECT_STEMS), None)
            if word in _OPERATIONS:  # the operation's own token (and its verb's label, when it is one)
                tokens.update({f"f:{_OPERATIONS[word]}", *([f"v:{verb}"] if verb else [])})
                continue
            tokens.add(f"v:{verb}" if verb else f"o:{obj}" if obj else min(variants))
    return tuple(sorted(tokens))


class NotLearnable(ValueError):
    """The plan cannot be remembered safely (a value the request gave is not used, or one
    literal could come from two values)."""


def _slots_at(haystack: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\$\{[^}]*\}", haystack)]


def _in_slot(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether `at` falls inside a ${...} placeholder: the "2" of "${PARAM:number_2}" is no value."""
    return any(start <= at < end for start, end in spans)


def _bounded(haystack: str, needle: str) -> list[int]:
    """Where needle occurs in haystack with no letter or digit glued to either side, outside the
    placeholders already put in."""
    found, slots = [], _slots_at(haystack)
    for match in re.finditer(re.escape(needle), haystack):
        if _in_slot(slots, match.start()):
            continue
        before = haystack[match.start() - 1] if match.start() else " "
        after = haystack[match.end()] if match.end() < len(haystack) else " "
        if not (before.isalnum() or after.isalnum()):
            found.append(match.start())
    return found


def _between_numbers(haystack: str, operator: str) -> list[int]:
    """Where an arithmetic operator occurs between two operands (a number, a slot, a bracket):
    the "/" of "${PARAM:number_1} / 8", never the one in "notes/a.md" or a "**bold**" word."""
    found, slots = [], _slots_at(haystack)
    for match in re.finditer(re.escape(operator), haystack):
        if _in_slot(slots, match.start()):
            continue
        before, after = haystack[: match.start()].rstrip(), haystack[match.end() :].lstrip()
        if before[-1:] in ("*", "/") or after[:1] in ("*", "/"):
            continue  # part of a longer operator ("**", "//")
        if re.search(r"(?:[\d)]|\})$", before) and re.match(r"[\d(]|\$\{PARAM:", after):
            found.append(match.start())
    return found


def parametrize(plan: dict, extraction: Extraction) -> tuple[dict, dict[str, dict]]:
    """The plan with the request's values replaced by ${PARAM:type_i} slots, and the slots'
    specs {name: {"type", "cast"}}. Constants the model chose stay. Raises NotLearnable."""
    # Longest first; operators last, once the numbers around them are slots.
    values = sorted(extraction.values, key=lambda v: (v.type == "op", -len(v.text)))
    used: set[str] = set()
    slots: dict[str, dict] = {}

    def whole(value: Any) -> Any:
        matches = [v for v in extraction.values if _same(v, value)]
        capital = not matches and [v for v in extraction.values if _capitalized(v, value)]  # "The wifi …"
        matches = matches or capital or []
        if len({(v.type, v.text) for v in matches}) > 1:
            raise NotLearnable(f"{value!r} could come from more than one value of the request")
        if matches:  # one value, or one named twice ("read a.txt … in a.txt"): fill wants the others equal
            v, equal = matches[0], {"equals": [m.name for m in matches[1:]]} if matches[1:] else {}
            used.update(m.name for m in matches)
            slots[v.name] = {
                "type": v.type,
                "cast": type(value).__name__,
                **equal,
                **({"capital": True} if capital else {}),
            }
            return f"${{PARAM:{v.name}}}"
        return value

    def inside(text: str) -> str:
        out = text
        for v in values:
            if len(v.text) < 2 and v.type not in ("number", "op"):
                continue
            if v.type == "numbers":  # a list as planner.spelled writes it: "[4,8, 15]" is "[4, 8, 15]"
                out = re.sub(r"\[\s*-?\d[\d.,\s-]*\]", lambda m: "[" + ", ".join(re.findall(NUMBER, m[0])) + "]", out)
            spots = _between_numbers(out, v.text) if v.type == "op" else _bounded(out, v.text)
            if not spots:
                continue
            twins = sorted((other for other in values if other.text == v.text), key=lambda other: other.index)
            verbatim = text.replace(" ", "") in extraction.text.replace(" ", "")  # a twin: "what's 12 * 12?"
            if len(twins) > 1 and not (v.type in ("number", "op") and len(spots) == len(twins) and verbatim):
                raise NotLearnable(f"{v.text!r} appears more than once in the request")
            for at, twin in reversed(list(zip(spots, twins if len(twins) > 1 else [v] * len(spots), strict=True))):
                out = out[:at] + f"${{PARAM:{twin.name}}}" + out[at + len(v.text) :]
                used.add(twin.name)
                slots.setdefault(twin.name, {"type": v.type, "cast": "str"})
        return out

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, bool):
            return node
        if isinstance(node, int | float):
            return whole(node)
        if isinstance(node, str):
            if PLACEHOLDER.fullmatch(node):
                return node
            replaced = whole(node)
            return replaced if replaced is not node else _inside_keeping_placeholders(node, inside)
        return node

    learned = copy.deepcopy(plan)
    learned["steps"] = [{**step, "args": walk(step.get("args", {}))} for step in learned.get("steps", [])]
    missing = [v.name for v in extraction.values if v.name not in used]
    if missing:
        raise NotLearnable(f"the plan does not use {', '.join(missing)} from the request")
    for key in ("final_message",):
        if isinstance(learned.get(key), str):
            learned[key] = _inside_keeping_placeholders(learned[key], inside)
    if isinstance(learned.get("fillers"), dict):
        learned["fillers"] = walk(learned["fillers"])
    return learned, slots


def _same(v: Value, literal: Any) -> bool:
    if isinstance(literal, bool):
        return False
    if isinstance(literal, int | float):
        return v.type == "number" and v.value == literal
    return literal == v.text and v.type != "number"


def _capitalized(v: Value, literal: Any) -> bool:
    """A quoted text the plan writes with a capital: «remember that the wifi …» → "The wifi …"."""
    return (
        v.type == "quoted"
        and isinstance(literal, str)
        and v.text[:1].islower()
        and literal == v.text[:1].upper() + v.text[1:]
    )


def _inside_keeping_placeholders(text: str, inside) -> str:
    """Replace values inside `text` but never inside an existing ${...} placeholder."""
    parts = re.split(r"(\$\{[^}]*\})", text)
    return "".join(part if part.startswith("${") else inside(part) for part in parts)


def fill(slots: dict[str, dict], probe: Extraction, learned_counts: dict[str, int]) -> dict[str, Any] | None:
    """Values for the slots from a new request, or None: the probe must give exactly as many
    values of each type as the learned request did, and every slot must be there."""
    if probe.counts != learned_counts:
        return None
    found = probe.by_name()
    params: dict[str, Any] = {}
    for name, spec in slots.items():
        value = found.get(name)
        if value is None or value.type != spec["type"]:
            return None
        if any(getattr(found.get(other), "text", None) != value.text for other in spec.get("equals", ())):
            return None  # the learned request named one value twice; this one names two
        if spec["cast"] in ("int", "float"):
            if value.type != "number" or (spec["cast"] == "int" and not float(value.value).is_integer()):
                return None  # an int slot takes only a whole number
            params[name] = int(value.value) if spec["cast"] == "int" else float(value.value)
        else:
            params[name] = value.text[:1].upper() + value.text[1:] if spec.get("capital") else value.text
    return params


def plan_hash(plan: dict) -> str:
    return hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()
