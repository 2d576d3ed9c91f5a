"""Edits a request spells out in words, resolved against the file they change, so that they need no
model. The file is read here, and each edit must hold in it exactly, or there is none:
- a key set to a value: "set port to 9090 in app/config.ini", «nel file sito/config.json metti
  post_per_pagina a 5», «cambia il titolo in "Diario"» (one line of the file gives the key a value,
  `key = v` or `"key": v`; the value keeps the file's quoting);
- a replacement without quotes: «cambia 20 risme in 30 risme» (the old text once, as whole words);
- items added to a list: "add a light jacket to my packing list (trip/packing.md)" (after its last
  item, with its bullet); an item taken off: «toglili da scuola/compiti.md» (the one item holding
  the request's words), or «togli la zia Anna, tanto …» after a turn on the list; one ticked off a
  checklist (planner.checklist).
Each is an `edit_file` step, validated, approved and undone like any other. Read by the engine
and by the follow-up layer (the last turn's file: "change it to 9090", "add my Kindle to it")."""

from __future__ import annotations

import re
from pathlib import Path

from planner import checklist, corrections, retype, sorting, stock, switches, tables, the_list
from planner import params as P
from planner.keys import key_line as _key_line
from planner.keys import named as _keys_named
from planner.keys import versioned
from planner.keys import with_value as _with_value
from planner.plan import Plan, of_steps
from planner.text import STOPWORDS, fold, language, stems, words
from planner.workspace import read

_HERE = "\u00a7"  # where the request named the file
_WHERE = checklist.WHERE  # where the answer names the file edited

# What ends a value: punctuation, politeness, or the file named after it.
_END = (
    rf"\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:please|per favore|grazie|thanks)\b|"
    rf"\s(?:in|nel|nella|of|del|della|inside|dentro)\s+(?:the\s+|il\s+|la\s+)?(?:file\s+)?{_HERE})"
)
_ARTICLE = r"(?:(?:also|anche)\s+)?(?:(?:the|il|lo|la|i|gli|le)\s+|l'\s*)?"
_SET = re.compile(
    r"\b(?:(?:set|change|update|put|make|switch|bump|upgrade|downgrade|metti|imposta|cambia|aggiorna|porta|modifica)\s+"
    + _ARTICLE
    + r"(?P<key>[\w.-]+(?:\s+[\w.-]+)?)|(?P<clitic>metti|imposta|cambia|aggiorna|porta|modifica)(?:lo|la))"
    r"\s+(?:to|=|:|a|in|at|al|alla|as|come)\s+(?P<value>.+?)" + _END,
    re.IGNORECASE,
)
_MAKE_IT = re.compile(r"\b(?P<verb>make|set|put)\s+(?:it|that)\s+(?=[\d\"'])", re.IGNORECASE)
_PRONOUNS = frozenset("it that this its lo la questo questa quello quella".split())
_REPLACE = re.compile(r"\b(?:change|replace|substitute|swap|correct|cambia|sostituisci|rimpiazza|correggi|modifica)"
                      r"\s+(?P<rest>.+)$", re.IGNORECASE)  # fmt: skip
_INTO = re.compile(r"\s(?:to|with|into|by|for|con|in|per)\s", re.IGNORECASE)
_ADD = re.compile(r"\b(?:add|append|put|include|aggiungi|metti|inserisci)\s+", re.IGNORECASE)
_TO = re.compile(r"\s+(?:to|in|on|into|onto|a|al|alla|allo|all'|nel|nella|nello|su|dentro)\s+", re.IGNORECASE)
_REMOVE = re.compile(
    r"\b(?:remove|delete|take|cross|strike|drop|togli|rimuovi|cancella|elimina|depenna|leva)(?:lo|la|li|le|ne)?\b"
    r"(?P<what>.*?)(?:\s+(?:off|out))?\s+(?:from|off|da|dal|dalla|dallo|dai|dalle|dagli)\s+"
    r"(?:(?:the|my|il|la|mio|mia|list|lista|elenco|file)\s+)*" + _HERE,
    re.IGNORECASE,
)
_ITEM = re.compile(r"^(?P<lead>[ \t]*(?:[-*+]|(?P<n>\d+)[.)])(?P<box>[ \t]+\[[ xX]\])?[ \t]+)(?P<text>\S.*)$")
_SPLIT = re.compile(r"\s*,\s*(?:and\s+|e\s+|ed\s+)?|\s+(?:and|e|ed|&)\s+", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:(?:a|an|the|some|my|also|un|uno|una|il|lo|la|i|gli|le|del|dello|della|dei|degli|delle|anche)\s+|"
    r"(?:l|un|dell)'\s*)",
    re.IGNORECASE,
)
# What an item is not: a reference to something else ("put the result in out.txt").
_NOT_ITEMS = frozenset(
    "it that this them those result answer output text risultato risposta testo questo quello tutto everything".split()
)
_NOT_CONTENT = STOPWORDS | frozenset(
    "line lines item items entry riga righe voce voci list lista elenco done finished finito finita fatto fatta "
    "bought comprato comprata please thanks grazie ok".split()
)


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    """The edit of the one existing text file the request names, or None."""
    if workspace is None or not {"edit_file", "write_files"} & tools:
        return None
    values = P.extract(text, workspace).values
    paths = [v for v in values if v.type == "path" and re.search(r"[^\W\d_]", v.text)]  # not a date: 9/6
    if len(paths) != 1 or any(v.type in ("glob", "url") for v in values):
        return None
    content = read(workspace, paths[0].text)
    if content is None:
        return None
    said = text[: paths[0].start] + _HERE + text[paths[0].end :]
    said = re.sub(rf"\(\s*{_HERE}\s*\)", f" {_HERE}", said)
    if (line := _LINE_AFTER.search(said)) and "write_files" in tools:  # "add a line to § : Carla is out sick"
        added, listed = line.group("text").strip(), _ITEM.match(content.rstrip("\n").rsplit("\n", 1)[-1])
        if listed and not listed.group("n"):  # a bulleted list goes on with its bullet
            added = re.sub(r"\[[xX]\]", "[ ]", listed.group("lead")) + added
        added += "\n" if content.endswith("\n") else ""  # the file's lines end as they did
        return of_steps(("write_files", {"path": paths[0].text, "content": added, "append": True}))
    change = change_in(said, content) if "edit_file" in tools else None
    return step(paths[0].text, change, text) if change else None


# A line to add, after a colon that follows the file: «aggiungi una riga a § : Carla è malata».
_LINE_AFTER = re.compile(
    rf"^[^:]*\b(?:add|append|write|aggiungi|accoda|scrivi)\b[^:]*{_HERE}[^:\w]*:\s+(?P<text>[^\n]{{1,300}})$",
    re.IGNORECASE,
)


# (old, new, what the answer says in English and in Italian, or None: the edit's own sentence)
Change = tuple[str, str, tuple[str, str] | None]


def change_in(said: str, content: str, about: str = "") -> Change | None:
    """The one edit `said` spells out in `content`; `about`: the request the last turn answered,
    where "it" in "change it to 9090" gets its key."""
    for form in _FORMS:
        found = form(said, content, about)
        if found is not None:
            return found
    return None


def step(path: str, change: Change, request: str) -> Plan | None:
    old, new, said = change
    final = said[language(request) == "it"].replace("$", "").replace(_WHERE, "${step1.path}") if said else ""
    return of_steps(("edit_file", {"path": path, "old": old, "new": new}), final=final)


def _set_key(said: str, content: str, about: str) -> Change | None:
    said = _MAKE_IT.sub(r"\g<verb> it to ", said)  # "make it 5": "make it to 5"
    for match in _SET.finditer(said):
        phrase = match.group("key") or ""
        value = _unquoted(match.group("value"))
        if not value:
            continue
        if match.group("clitic") or fold(phrase) in _PRONOUNS:  # «mettila a 8080»: the key said, else the last one
            rest = said[: match.start()] + said[match.end() :]  # not «portalo» for PORT
            keys = _keys_named(rest, content)
            if not keys and _VERSION.fullmatch(value) and (at := versioned(about, content)):
                line, old = at  # "bump it to 16" after "which postgres version …?": postgres:15 → postgres:16
                new = re.sub(rf"(?<![\d.]){re.escape(old)}(?![\d.])", value.lstrip("v"), line, count=1)
                said = (f"Set the version to {value} in {_WHERE}.", f"Versione portata a {value} in {_WHERE}.")
                return line, new, said
            keys = keys or [k for k in _keys_named(about, content) if _numeric_or_not(k, content, value)]
        else:
            keys = [k for k in (phrase, phrase.replace(" ", "_"), *phrase.split()[::-1]) if _key_line(content, k)]
            keys = keys or _keys_named(phrase, content)  # "the timeout" beside TIMEOUT_SECONDS
        lines = {line.span(): line for k in keys if (line := _key_line(content, k))}
        if len(lines) == 1:
            line = next(iter(lines.values()))
            key, where = line.group("key"), _WHERE
            said = (f"Set {key} to {value} in {where}.", f"Impostato {key} a {value} in {where}.")
            return line.group(0), _with_value(line, value), said
    return None


_VERSION = re.compile(r"v?\d+(?:\.\d+)*")  # a number or a version: 16, 2.32.3, v18


def _numeric_or_not(key: str, content: str, value: str) -> bool:
    """A number set on a key the last question named only where the key holds a number: "bump it to
    16" after "which postgres version…?" is never POSTGRES_PASSWORD: example."""
    line = _key_line(content, key)
    return not _VERSION.fullmatch(value) or bool(line and re.search(r"\d", line.group("val")))


def _key_named(said: str, content: str, about: str) -> Change | None:
    """ "il trimestrale adesso costa 125, me lo aggiorni in §": one key of the file named, one number."""
    folded = fold(said.replace(_HERE, " "))
    numbers = re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])", folded)
    if len(numbers) != 1 or not _NOW.search(folded):
        return None
    keys = re.findall(r"^[ \t]*[\"']?([^\W\d][\w .-]*?)[\"']?[ \t]*[:=]", content, re.MULTILINE)
    named = {k for k in keys if re.search(rf"(?<!\w){re.escape(fold(k))}(?!\w)", folded)}
    line = _key_line(content, next(iter(named))) if len(named) == 1 else None
    if line is None or not re.fullmatch(r"\s*-?\d+(?:[.,]\d+)?\s*(?:[#;].*)?", line.group("val")):
        return None  # no key, two of them, or a value that is not a number
    key, value = line.group("key"), numbers[0]
    return (
        line.group(0),
        _with_value(line, value),
        (f"Set {key} to {value} in {_WHERE}.", f"Impostato {key} a {value} in {_WHERE}."),
    )


# Asked to write the new value: «il trimestrale adesso costa 125, me lo aggiorni?», "update it".
_NOW = re.compile(r"\b(?:update|aggiorn\w*|change|cambia\w*|correggi\w*|correct|fix|set|imposta\w*)\b")


def _instead(said: str, content: str, about: str) -> Change | None:
    """ "ah no, il giorno è lunedì, non venerdì: correggilo", "it's at 3pm, not 2pm, fix it": the
    words after "not" stand once in the file, and the as many words before it replace them."""
    match = _NOT_BUT.search(said)
    if match is None or not _FIX.search(fold(said)):
        return None
    before, after = match.group("new").split(), match.group("old").split()
    for size in range(1, min(3, len(before), len(after)) + 1):
        new, old = " ".join(before[-size:]), " ".join(after[:size])
        at = [m for m in re.finditer(rf"(?<!\w){re.escape(old)}(?!\w)", content, re.IGNORECASE)]
        if len(at) == 1 and fold(new) != fold(old):
            written = at[0].group(0)
            new = new[:1].upper() + new[1:] if written[:1].isupper() and new[:1].islower() else new
            said = (f"Changed \u201c{written}\u201d to \u201c{new}\u201d in {_WHERE}.",
                    f"Cambiato \u201c{written}\u201d in \u201c{new}\u201d in {_WHERE}.")  # fmt: skip
            return written, new, said
    return None


_NOT_BUT = re.compile(
    r"(?P<new>[\w'\u2019]+(?: [\w'\u2019]+){0,2}),?\s+(?:non|not|instead of|invece di|anziche|anziché)\s+"
    r"(?P<old>[\w'\u2019]+(?: [\w'\u2019]+){0,2})",
    re.IGNORECASE,
)
_FIX = re.compile(
    r"\b(?:correggi\w*|correct|fix|cambia\w*|change|wrong|sbagliat\w*|actually|in realta|ah no|oops|scusa|sorry)\b"
)


def _counted(said: str, content: str, about: str) -> Change | None:
    """ "we just sold 10 pens, update §": a count in a table goes down or up (planner.stock)."""
    found = stock.change(said.replace(_HERE, " "), content)
    return (found[0], found[1], tuple(s.replace("<path>", _WHERE) for s in found[2])) if found else None


def _retyped(said: str, content: str, about: str) -> Change | None:
    found = retype.change(said.replace(_HERE, " "), content, about)
    if found is None:
        return None
    old, new, was, now = found
    return (
        old,
        new,
        (
            f"Changed \u201c{was}\u201d to \u201c{now}\u201d in {_WHERE}.",
            f"Cambiato \u201c{was}\u201d in \u201c{now}\u201d in {_WHERE}.",
        ),
    )


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] in "\"'\u201c\u00ab" and value[-1] in "\"'\u201d\u00bb":
        value = value[1:-1]
    return value.strip()


def _replace(said: str, content: str, about: str) -> Change | None:
    match = _REPLACE.search(said)
    if match is None:
        return None
    rest, found = match.group("rest"), set()
    for split in _INTO.finditer(rest):
        said_old = rest[: split.start()].strip()
        old = _unquoted(_LEADING.sub("", said_old))
        tail = re.match(r"(?P<new>.+?)" + _END, rest[split.end() :], re.IGNORECASE)
        if not old or fold(old) in _PRONOUNS or tail is None or _HERE in old or _key_line(content, old):
            continue
        new = _unquoted(tail.group("new"))  # «le cuffie con un gioco»: an article goes where the old one went
        new = _unquoted(_LEADING.sub("", new)) if old != said_old and old in content else new
        at = [m.group(0) for m in re.finditer(rf"(?<!\w){re.escape(old)}(?!\w)", content, re.IGNORECASE)]
        if len(at) == 1 and new and _HERE not in new:
            found.add((at[0], new[:1].upper() + new[1:] if at[0][:1].isupper() and new[:1].islower() else new))
    return (*found.pop(), None) if len(found) == 1 else None


def _items(content: str) -> list[re.Match]:
    """The list's items: its bulleted lines, or, in a file of short lines and nothing else (milk,
    eggs, bread; «luglio: 51»), every line."""
    bulleted = [m for line in content.splitlines() if (m := _ITEM.match(line))]
    if bulleted:
        return bulleted
    lines = [line for line in content.splitlines() if line.strip()]
    plain = [m for line in lines if (m := _PLAIN.match(line))]
    return plain if len(lines) >= 2 and len(plain) == len(lines) else []


_PLAIN = re.compile(r"^(?P<lead>)(?P<n>)(?P<box>)(?P<text>[^\s#>|`][^\t]{0,59})$")


def _add_items(said: str, content: str, about: str) -> Change | None:
    verb = _ADD.search(said)
    here = said.find(_HERE, verb.end()) if verb else -1
    listed = _items(content)
    if here < 0 or not listed:
        return None
    for to in _TO.finditer(said, verb.end(), here + 1):
        said_items, target = said[verb.end() : to.start()], said[to.end() : here]
        # "add a jacket and a charger to my packing list §": the items end where the list is named
        ends_open = re.search(r"\b(?:and|e|ed)$", said_items)
        if not re.search(r"[,;!?]", target) and len(target.split()) <= 4 and not ends_open:
            break
    else:
        return None
    if re.search("(?:^|\\s)[\"'\u201c\u00ab]", said_items):
        return None  # a quoted text: written as it is (planner.coldpath)
    # an article goes, unless it begins a title: «aggiungi le uova» adds "uova", «Le città invisibili» stays
    items = [
        i.strip() if i.strip()[:1].isupper() else _LEADING.sub("", i.strip()) for i in _SPLIT.split(said_items.strip())
    ]
    if not 0 < len(items) <= 10 or any(not i or len(i.split()) > 8 or set(words(i)) & _NOT_ITEMS for i in items):
        return None
    last = listed[-1]
    if content.count(last.group(0)) != 1:
        return None
    lead, number = last.group("lead"), last.group("n")
    added = []
    for k, item in enumerate(items, start=1):
        if number:  # a numbered list goes on counting
            lead = last.group("lead").replace(number, str(int(number) + k), 1)
        if last.group("box"):
            lead = re.sub(r"\[[xX]\]", "[ ]", lead)
        added.append(lead + item)
    listed = [", ".join(items[:-1]) + f" {conj} " + items[-1] if len(items) > 1 else items[0] for conj in ("and", "e")]
    said = (f"Added {listed[0]} to {_WHERE}.", f"Aggiunto {listed[1]} a {_WHERE}.")
    return last.group(0), "\n".join([last.group(0), *added]), said


def _remove_item(said: str, content: str, about: str) -> Change | None:
    match = _REMOVE.search(said)
    listed = _items(content)
    if match is None or not listed:
        return None
    wanted = _content_words(match.group("what")) or _content_words(said[: match.start()])
    if not wanted:
        return None
    scored = sorted(((sum(1 for w in wanted if w & _stems_of(i.group("text"))), i) for i in listed), key=_first)
    if scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # no item holds those words, or two hold as many: which one is not certain
    line = scored[0][1].group(0)
    if content.count(line) != 1:
        return None
    at = content.index(line)
    end = at + len(line)
    item = scored[0][1].group("text")
    said = (f"Removed \u201c{item}\u201d from {_WHERE}.", f"Tolto \u201c{item}\u201d da {_WHERE}.")
    if content[end : end + 1] == "\n":
        return line + "\n", "", said
    return (content[at - 1 : end], "", said) if at and content[at - 1] == "\n" else None


def _first(scored: tuple[int, re.Match]) -> int:
    return -scored[0]


def _content_words(text: str) -> list[set[str]]:
    return [set(stems(w)) for w in words(text) if w not in _NOT_CONTENT and len(w) > 2 and not w.isdigit()]


def _stems_of(text: str) -> set[str]:
    return {s for w in words(text) for s in stems(w)}


def on_last_file(text: str, previous: dict, workspace: Path | None) -> tuple[str, Plan] | None:
    """ "change it to 9090", «e cambia il titolo in "Diario di cucina"» after a turn on one file:
    (that file, the plan of its edit). A key or a text the message names, or the key the last
    request asked about ("what port is the server on?")."""
    files, listing = previous.get("files") or [], previous.get("listing") or []
    named = files if files else listing
    if workspace is None or len(named) != 1 or previous.get("plan_is_last") is False:
        return None
    if any(v.type in ("path", "glob", "url") for v in P.extract(text, workspace).values):
        return None  # a file of its own: not this follow-up
    content = read(workspace, named[0])
    if content is None:
        return None
    about, text = previous.get("request") or "", checklist.by_ordinal(text, content)
    change = (
        checklist.tick(text, content, about)
        or switches.change(text, content, about)
        or _set_key(text, content, about)
        or tables.cell(text, content)
        or corrections.corrected(text, content)
        or _replace(text, content, "")
        or _instead(text, content, "")
        or _counted(text, content, "")
        or _retyped(text, content, about)
        or sorting.change(text, content)
    )
    if change is None and _items(content):  # "add my Kindle to it", «togli il latte dalla lista»
        said = the_list.said(text, _HERE)
        change = (_add_items(said, content, "") or _remove_item(said, content, "")) if said else None
    plan = step(named[0], change, text) if change else None
    return (named[0], plan) if plan else None


_FORMS = (checklist.tick, switches.change, _set_key, tables.cell, _replace, _instead, _counted, _key_named, _retyped,
          _add_items, _remove_item, corrections.corrected, sorting.change)  # fmt: skip
