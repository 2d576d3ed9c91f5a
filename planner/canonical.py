"""Plan memory's canonical form of a request: what it asks, as canonical tokens, so that requests
that ask the same thing in other words share one stage-1 key and no embedding is needed.

    "can you show me what's in config/logging.yaml"  → v:read <file>
    "print out config/settings.yaml"                 → v:read <file>
    «che file ci sono in musica/?»                   → v:list <dir>
    "how many markdown files do I have?"            → v:count <glob>
    "what is seven times eight?" / «quanto fa 7 x 8» → <number> <op> <number>
    "show all but the first 3 lines of README.md"    → v:read m:except m:first <number> o:lines <file>

The request is first rewritten (planner.spelled: numbers, operators, schedules, kinds of file,
facts); its values are extracted from that text with two more types, `op` (an arithmetic
operator between two numbers) and `schedule` ("every day at 09:00"), and masked. The masked words
then become tokens: a verb or object phrase its label (planner/canonical.yaml, shared with the
intent extractor), a modifier its class ("m:except": never noise, planner.memory.probe.admit), a
noun that only names the kind of value beside it nothing («la cartella foto/» is <dir>), a
stop-word or filler nothing, any other word its stem. A path is typed by how it is written: a
folder ends with "/", a file has an extension. What is shown depends on what is shown (a folder
is listed, files of a kind are found, a page is fetched), and a request that names a place but no
verb asks what is there: "the last ten lines of b.log" reads it, «quali file json ci sono?» finds them.

The key hashes the tokens as a set, the values as a multiset, and, in order, the verbs and the
values of a type that occurs more than once: "move a.md to b/ and delete c.md" is not "delete
a.md and move c.md to b/", while "in a.md replace 'x' with 'y'" is "replace 'x' with 'y' in a.md"."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from planner import lexicon, object_kinds, spelled, spoken_values
from planner import params as P
from planner.canonical_data import EVERY, ROOT, _Data, zones
from planner.canonical_data import data as _data
from planner.intent import _OBJECT_STEMS, _VERB_STEMS
from planner.text import STOPWORDS, fold, stems

# The value types only plan memory extracts (planner.params.extract's `extra`): a folder named by a
# bare word, a schedule, an operator.
_CLOCK = r"\d{1,2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?"
_UNITS = (
    r"(?:\d+ )?(?:minutes|hours|days|weeks|months|years)|minute|hour|day|weekday|week|month|year|morning|evening"
    r"|night|afternoon|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
# A folder named by a bare word beside its noun: "in the src folder", «nella cartella config»,
# "a folder called logs". A path, so that a plan for one folder serves another.
_NOT_A_NAME = (
    r"(?!(?:a|an|the|my|new|same|other|root|current|whole|entire|parent|main|top|first|last|next|previous|"
    r"empty|old|that|this|these|those|workspace|home|called|named|chiamata|di|del|della|in|on|to|and|e|for|"
    r"per|with|con|che|where|dove|please|una|la|nuova|stessa|altra|principale|vuota|questa|quella|"
    r"folder|folders|directory|cartella|cartelle|at|under|inside|sotto)\b)"
)
_FOLDER_NAME = re.compile(
    r"(?:(?<=\bfolder )|(?<=\bdirectory )|(?<=\bcartella )|(?<=\bfolder called )|(?<=\bfolder named )|"
    r"(?<=\bcartella chiamata )|(?<=\bcartella di nome )|(?<=\bdirectory called )|(?<=\bdirectory named ))"
    rf"{_NOT_A_NAME}[A-Za-z0-9_][\w.-]*(?![\w/])(?<!\.)|"
    r"(?:(?<=\bthe )|(?<=\bmy )|(?<=\byour )|(?<=\ba ))(?!the\b)"
    rf"{_NOT_A_NAME}[A-Za-z0-9_][\w.-]*(?= (?:folder|directory)\b)",
    re.IGNORECASE,
)
EXTRA_TYPES = (
    ("command", spoken_values.COMMAND, "path"),
    ("quoted", spoken_values.REPLACED, "quoted"),
    ("quoted", spoken_values.SEARCHED_WORD, "quoted"),
    ("identifier", spoken_values.TASK_NAME, "identifier"),
    ("path", spoken_values.FOLDERS, "path"),
    ("path", _FOLDER_NAME, "path"),
    ("numbers", re.compile(rf"\[{P.NUMBER}(?:, {P.NUMBER})+\]"), "number"),  # planner.spelled's lists
    ("schedule", re.compile(rf"\bevery (?:{_UNITS})\b(?: at {_CLOCK}(?![\w:]))?"), "datetime"),
    ("op", re.compile(r"(?<=[\d)]\s)(\*\*|[-+*/%^])(?=\s[-\d(])|(?<=[\d)])(\*\*|[-+*/%^])(?=[-\d(])"), "number"),
)
_SLOT = re.compile(r"<(\w+):\d+>")
_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "**": "pow", "^": "pow"}
# A verb's own words before anyone's stems: «conta» counts, though «contengono» shares its stem.
_VERB_WORDS = {fold(t): label for label, terms in lexicon.verbs().items() for t in terms if t.isalpha()}
# Italian object pronouns glued to a verb: «mostrami», «contali»; «contarli», «aprirlo» (the
# infinitive loses its final -e).
_PRONOUNS = "mi|ti|ci|vi|lo|la|li|le|ne|gli|melo|mela|meli|mele|celo|cela|glielo"
_CLITICS = (
    (re.compile(rf"^(\w{{3,}}?[aei])(?:{_PRONOUNS})$"), ""),
    (re.compile(rf"^(\w{{3,}}?[aei]r)(?:{_PRONOUNS})$"), "e"),
)
_PATHS = ("<path>", "<file>", "<dir>")
_LOCATIONS = frozenset({*_PATHS, "<url>"})


@dataclass(frozen=True)
class Canonical:
    text: str  # the request as planner.spelled wrote it
    extraction: P.Extraction  # its values, with operators and schedules
    tokens: tuple[str, ...]  # in order

    @property
    def signature(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.tokens)))

    @property
    def key(self) -> str:
        return key(self.tokens)


# The clock and the calendar: get_time answers both.
CLOCK = frozenset({"o:time", "o:date"})


def key(tokens: tuple[str, ...]) -> str:
    """Stage 1's fingerprint (see the module's docstring). The clock and the calendar share one:
    get_time answers both, and a plan whose answer picks one is served the other with its answer
    made from the result (planner.memory.probe.admit)."""
    tokens = tuple("o:time" if t == "o:date" else t for t in tokens)
    slots = [t for t in tokens if t.startswith("<")]
    kinds = Counter(_kind(t) for t in slots)
    order: list[str] = []
    for t in tokens:
        # each verb once, where it first comes («conta gli elementi … e metti il numero in n.txt»)
        if t.startswith("v:") and t in order:
            continue
        # with two numbers, where each stands: "from line 100, 50 lines" is not "100 lines from line 50"
        ranged = t.startswith("m:") and kinds["number"] > 1
        if (t.startswith("v:") or ranged or (t.startswith("<") and kinds[_kind(t)] > 1)) and order[-1:] != [t]:
            order.append(t)
    # "in a.md, change 'x' to 'y'" = "change 'x' to 'y' in a.md": a place before the first verb is its last
    first = next((i for i, t in enumerate(order) if t.startswith("v:")), 0)
    first = first if all(t in _PATHS for t in order[:first]) else 0  # numbers keep their places
    rest = order[first:]
    end = next((i for i, t in enumerate(rest) if i and t.startswith("v:")), len(rest))
    order = [*rest[:end], *order[:first], *rest[end:]]
    shape = [sorted({t for t in tokens if not t.startswith("<")}), sorted(slots), order]
    return hashlib.sha256(json.dumps(shape).encode()).hexdigest()


def modifiers(signature) -> frozenset[str]:
    """The modifiers a request carries ("m:not", "m:except", "m:if", "m:first", …) and its schedule."""
    return frozenset(t for t in signature if t.startswith("m:") or t == "<schedule>")


def of(text: str, workspace: Path | None = None) -> Canonical:
    rewritten = without_asides(spelled.rewrite(text, workspace), workspace)
    rewritten = spoken_values.COUNTED_FOLDERS.sub("", rewritten)
    extraction = P.extract(rewritten, workspace, EXTRA_TYPES)
    found = tokens(extraction, workspace)
    if (retyped := spoken_values.searched_as_quoted(extraction, found)) is not extraction:  # "grep FIXME"
        extraction, found = retyped, tokens(retyped, workspace)
    return Canonical(rewritten, extraction, found)


def without_asides(text: str, workspace: Path | None) -> str:
    """The request without its sentences that only say why ("what's 20% of 85? it's for my shop",
    «quanto fa 9 per 7? è per i compiti di mia nipote»): no verb, object, modifier or value in them.
    "In binary." is a modifier (m:format), so it stays."""
    parts = re.split(r"(?<=[?.!])\s+(?=\S)", text)
    if len(parts) < 2:
        return text
    kept = [p for p in parts if any(t[0] == "<" or ":" in t for t in tokens(P.extract(p, workspace, EXTRA_TYPES)))]
    return " ".join(kept) if kept else text


def _kind(slot: str) -> str:
    return "path" if slot in _PATHS else slot.strip("<>")


def _slot(value: P.Value, workspace: Path | None = None) -> str:
    """A path is typed by how it is written (a folder ends with "/", a file has an extension),
    and one written neither way by what the workspace holds under that name: "list the files in
    docs" and «che file ci sono dentro documenti/fatture?» both name a folder there."""
    if value.type != "path":
        return f"<{value.type}>"
    if value.text.endswith("/"):
        return "<dir>"
    suffix = Path(value.text).suffix
    if suffix and object_kinds.is_file_extension(suffix):
        return "<file>"
    relative = Path(value.text)
    if workspace is not None and not relative.is_absolute() and ".." not in relative.parts:
        target = workspace / relative
        if target.is_dir():
            return "<dir>"
        if target.is_file():
            return "<file>"
    # a time zone ("what time is it in Tokyo?" reads "… in Asia/Tokyo") is not a place in the workspace
    return "<tz>" if value.text in zones() else "<path>"


def _raw(extraction: P.Extraction, workspace: Path | None = None) -> list[str]:
    """The masked request as words and typed slots, in order."""
    out: list[str] = []
    values = iter(extraction.values)
    for index, part in enumerate(_SLOT.split(extraction.masked)):
        if index % 2 == 0:
            out += [w for t in lexicon.tokens(part) if (w := _data().same.get(t, t))]
        else:
            out.append(_slot(next(values), workspace))
    return out


def _typed_by_nouns(raw: list[str]) -> list[str]:
    """«la cartella foto/», "the reports/ folder", "the word 'x'", "the page at <url>": the noun
    only says what the value beside it is. A folder or file noun types a path written without
    an ending: «crea la cartella progetti/casa» makes <dir>."""
    data = _data()
    out = list(raw)
    for i, value in enumerate(out):
        if value == "<path>" and i and out[i - 1] in data.typers:
            out[i] = value = data.typers[out[i - 1]]
        if not value.startswith("<"):
            continue
        for side in (-1, 1):
            j = i + side
            while 0 <= j < len(out) and out[j] in data.joins:
                j += side
            for noun, slot in data.slot_nouns:
                span = range(j - len(noun) + 1, j + 1) if side < 0 else range(j, j + len(noun))
                if span.start < 0 or span.stop > len(out) or tuple(out[k] for k in span) != noun:
                    continue
                fits = slot == value or (value == "<path>" and slot in ("<dir>", "<file>"))
                fits |= slot == "<quoted>" and value == "<identifier>"
                if fits:
                    out[i] = slot if value == "<path>" else value
                    for k in [*span, *range(min(i, j) + 1, max(i, j))]:  # the noun and any "called"
                        out[k] = ""
                    break
    return [t for t in out if t]


def _word(word: str, data: _Data) -> tuple[str, ...]:
    if word.startswith("<"):
        return (word,)
    if word in data.words:
        return (data.words[word],)
    if word in data.modifiers:
        return (f"m:{data.modifiers[word]}",)
    if word in data.sources:
        return ("@from",)
    if word in STOPWORDS or word in data.fillers or len(word) < 2 or not word.isalnum():
        return ()
    variants = stems(word)
    verb = _VERB_WORDS.get(word) or _VERB_STEMS.get("=" + word) or _bare_verb(word)
    verb = verb or next((_VERB_STEMS[s] for s in variants if s in _VERB_STEMS), None)
    operation = P._OPERATIONS.get(word) or P._OPERATIONS.get(_bare(word) or "")  # «aggiungilo» appends
    if operation:  # the operation's own token (a sum is not a mean), and its verb's
        return (f"f:{operation}", *([f"v:{verb}"] if verb else []))
    if verb:
        return (f"v:{verb}",)
    obj = next((_OBJECT_STEMS[s] for s in variants if s in _OBJECT_STEMS), None)
    return (f"o:{obj}",) if obj else (min(variants),)


def _bare_verb(word: str) -> str | None:
    """The verb of an Italian verb with a pronoun suffix, by its bare form before any stem: «contami»
    counts, «leggimi» reads, «contarli» counts (as «contare»), though «contengono» shares their stem."""
    bare = _bare(word)
    return (_VERB_WORDS.get(bare) or _VERB_STEMS.get("=" + bare)) if bare else None


def _bare(word: str) -> str | None:
    """An Italian verb without its pronoun suffix, where it is a known one: «contarli» → «contare»."""
    for pattern, ending in _CLITICS:
        match = pattern.match(word)
        if match:
            bare = match.group(1) + ending
            if bare in _VERB_WORDS or "=" + bare in _VERB_STEMS or bare in P._OPERATIONS:
                return bare
    return None


def _phrased(raw: list[str]) -> list[tuple[str, str]]:
    """(token, word) pairs: phrases (longest first, at each position) and then single words."""
    data = _data()
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(raw):
        first = raw[i]
        candidates = [*data.phrases.get(first, ()), *data.phrases.get("<>", ())] if first[0] == "<" else []
        for phrase, tokens_ in candidates or data.phrases.get(first, ()):
            window = raw[i : i + len(phrase)]
            if len(window) == len(phrase) and all(
                p == w or (p == "<>" and w.startswith("<")) for p, w in zip(phrase, window, strict=True)
            ):
                said = " ".join(w for w in phrase if w != "<>")  # a verb phrase is not its first word
                out += [(t, said) for t in tokens_] + [(w, w) for w in window if w.startswith("<")]
                i += len(phrase)
                break
        else:
            out += [(t, raw[i]) for t in _word(raw[i], data)]
            i += 1
    return out


def _asked(resolved: list[tuple[str, str]], slots: set[str]) -> list[str]:
    """The verb a request asks with, where its words leave it open. A request that names a place
    and no verb asks what is there ("the last ten lines of b.log", «quali file json ci sono in
    config/?», "which markdown files do I have?"), or where a quoted text is, when it gives one.
    A place that "contains", with no text to look for, is shown: «quali file contiene
    documenti/?» lists it."""
    data = _data()
    tokens_ = [token for token, _ in resolved]
    located = bool({"<file>", "<dir>", "<glob>", "<url>"} & slots) or ROOT in tokens_
    searched = bool({"<quoted>", "<identifier>"} & slots)
    if located and not searched and "v:count" not in tokens_:
        tokens_ = ["v:show" if t == "v:find" and w in data.contains else t for t, w in resolved]
    if not located or "<op>" in slots or any(t.startswith(("v:", "f:")) for t in tokens_):
        return tokens_
    return ["v:find" if searched or "<glob>" in slots else "v:show", *tokens_]


def _shown(tokens_: list[str], slots: set[str]) -> list[str]:
    """What showing does depends on what is shown. A folder is listed (the root included: "what's
    in my workspace?"); files of a kind are found ("list the markdown files", «mostrami i file
    json» are "find the *.md files"; reading them stays a read); a page is fetched ("show me
    https://example.org"); anything else is read ("read the files in notes" too). The root is the
    tools' default: it leaves no token of its own. A later step of several shows what it names."""
    folder = ("<dir>" in slots or ROOT in tokens_) and "<file>" not in slots
    kind = "<glob>" in slots and not {"<file>", "<url>"} & slots
    page = "<url>" in slots and not {"<file>", "<dir>", "<glob>", "<path>"} & slots
    shown = "v:find" if kind else "v:list" if folder else "v:fetch" if page else "v:read"
    out = []
    for index, t in enumerate(tokens_):
        later = shown
        if t in ("v:show", "v:read") and sum(u.startswith("v:") for u in tokens_) > 1:
            after = next((u for u in tokens_[index + 1 :] if u.startswith(("<", "v:"))), "")
            later = "v:list" if after == "<dir>" and "<glob>" not in slots else shown
        read = t == "v:read" and (later == "v:fetch" or (later == "v:list" and "o:files" not in tokens_))
        if t == "v:show" or read or (t == "v:list" and kind):
            t = later
        if t != ROOT:
            out.append(t)
    return out


def tokens(extraction: P.Extraction, workspace: Path | None = None) -> tuple[str, ...]:
    data = _data()
    pairs = _phrased(_typed_by_nouns(_raw(extraction, workspace)))
    # A verb that depends on the value after it: "put 'x' in a.md" writes, "put a.md in b/" moves.
    pairs_ = []
    for index, (token, word) in enumerate(pairs):
        # what follows the word: «aggiungi» is two tokens (append, write), followed by one value
        following = next((t for t, w in pairs[index + 1 :] if w != word), "")
        table = data.slot_verbs.get(word) or data.slot_verbs.get(token) or {}
        if table and following.startswith("v:") and not token.startswith(("v:", "f:")):
            continue  # «fai una nuova cartella»: the generic verb adds nothing to the one after it
        token = table.get(following, token if token.startswith("v:") else table.get("*", token))
        if token:
            pairs_.append((token, word))
    if any(t == "v:set" for t, _ in pairs_):  # "replace every occurrence of 'x'" replaces, searching nothing
        pairs_ = [(t, w) for t, w in pairs_ if not (t == "v:find" and w.startswith(("occurr", "occorr")))]
    for i in range(len(pairs_) - 1):  # "save the output of 'df -h' to d.txt": it runs, then it is written
        if pairs_[i][0] == "v:write" and pairs_[i + 1][0] == "v:run" and "output" in pairs_[i + 1][1]:
            pairs_[i], pairs_[i + 1] = pairs_[i + 1], pairs_[i]
    slots = [t for t, _ in pairs_ if t.startswith("<")]
    if any(t == "v:find" for t, _ in pairs_) and {"<quoted>", "<identifier>"} & set(slots):
        pairs_ = [(t, w) for t, w in pairs_ if t != "v:show"]  # "search for X, show at most 5": the search shows
    if {"m:first", "m:last", "m:less"} & {t for t, _ in pairs_}:  # "list only the first 5 files": the range says which
        pairs_ = [(t, w) for t, w in pairs_ if t != "v:filter"]
    resolved = _shown(_asked(pairs_, set(slots)), set(slots))
    if "v:create" in resolved and {"<file>", "<quoted>"} <= set(slots):  # "create a.txt with 'hello'" writes it
        resolved = ["v:write" if t == "v:create" else t for t in resolved]
    if "p:end" in resolved and {"v:write", "f:append"} & set(resolved):  # writing at the end is appending
        resolved = ["f:append" if t == "p:end" else t for t in resolved if t != "f:append"]
    if "v:set" in resolved and EVERY.search(fold(extraction.masked)):  # "replace every 'x'", «ovunque»
        resolved.append("m:all")
    if "v:remember" in resolved:  # "save what it says to memory" remembers it
        resolved = [t for t in resolved if t != "v:write"]
    if "f:append" in resolved and "v:write" not in resolved:  # appending is writing («add … to»)
        at = resolved.index("f:append") + 1
        resolved = [*resolved[:at], "v:write", *resolved[at:]]
    if "v:count" in resolved:  # "how many lines does a.md contain": no search; "count the TODOs": the search counted
        resolved = ["v:count" if t == "v:find" else t for t in resolved]
    if "v:find" in resolved and {"<quoted>", "<identifier>"} & set(slots):  # the lines that mention X: a search
        resolved = [t for t in resolved if t != "o:lines"]
    # An expression written out is a computation, whatever the verb, and so are numbers with a
    # function or a percentage: «calcola il 22 per cento di 1250» is «quanto è il 15% di 300».
    # Asked of numbers alone, "find the mean of …", «se a 1000 tolgo 275» and "which number is
    # largest" ask the computation and no more: the verb, an "if" and the noun say nothing else.
    numeric = bool(slots) and set(slots) <= {"<number>", "<numbers>", "<op>"}
    functions = any(t.startswith("f:") for t in resolved)
    computed = {"<number>", "<numbers>"} & set(slots) and (functions or "o:numbers" in resolved)
    if "<op>" in slots or computed:  # "calcola il 20% di 90 e scrivilo" is «quanto è il 15% di 40? salvalo»
        dropped = {"v:compute", *(("v:find", "m:if", "o:numbers" if functions else "") if numeric else ())}
        resolved = [t for t in resolved if t not in dropped]
    # «guarda che ore sono», "what's the clock showing in Toronto": a look at the clock is the clock
    clock = CLOCK & set(resolved) and not set(slots) & {"<file>", "<dir>", "<glob>", "<url>"}
    resolved = [
        t
        for t, after in zip(resolved, [*resolved[1:], ""], strict=False)  # (a request of stop-words: none)
        if not (t in ("v:read", "v:show") and (clock or after in CLOCK))
    ]
    if {"v:list", "v:find", "v:count"} & set(resolved):  # listing, finding, counting: of files
        resolved = [t for t in resolved if t != "o:files"]
    if sum(t in _LOCATIONS for t in slots) < 2:  # "from" tells two places apart, or nothing
        resolved = [t for t in resolved if t != "@from"]
    out: list[str] = []
    for token in resolved:  # «che data è oggi»: one o:time; two paths stay two
        if out[-1:] != [token] or token.startswith("<"):
            out.append(token)
    # An operator is a modifier too: "17 plus 23" never reuses the plan of "17 times 23".
    return (*out, *sorted({f"m:op_{_OPS[v.text]}" for v in extraction.values if v.type == "op" and v.text in _OPS}))
