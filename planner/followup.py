"""Follow-ups resolved without a model: the layer before the route decision.

Most follow-ups name their referent, so they need no model. From what the session's last answered
turn left (TurnInput.previous: its request, its answer, the plan that ran, the paths its last
listing gave and the files it named; `facts` records them when a plan ends), in English and
Italian:
- same plan, new values: "do the same for notes/c.md", "now for *.py", "e per c.md?". The
  previous plan runs again with the value of the same type re-bound (the user's new value replaces
  the one the previous request typed);
- the previous answer as a value: "save that to b.md", «salvalo in b.md», "append it to log.md";
- ordinals and pronouns over the last result: "open the second one", "read the first 3",
  «apri il secondo», "delete it" (the last file named).
Each resolves to a plan and the request it stands for ("read notes/c.md"), which the validator
checks as for any plan; a follow-up that is not certain is left to the engine, which has the
history. It is never guessed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner import answers, copies, edits, named_answers, object_kinds, rebind, servings, spelled, tables, where
from planner import params as P
from planner.plan import Plan, PlanError, of_steps, parse
from planner.text import fold, whole
from planner.turn_facts import facts  # noqa: F401 (planner.engine and planner.react record them here)
from planner.where import LEAD as _LEAD
from planner.workspace import exists

MAX_PREVIOUS_ANSWER = 200_000


@dataclass(frozen=True)
class Resolved:
    kind: str  # same_plan | previous_answer | ordinal | pronoun | more
    plan: Plan | None  # None: the answer is already at hand (`answer`: the rest of the last listing)
    request: str  # what the follow-up stands for, as a request of its own
    evidence: str
    answer: str = ""

    def to_trace(self) -> dict:
        return {"kind": self.kind, "request": self.request, "evidence": self.evidence}


def resolve(text: str, previous: dict, workspace=None) -> Resolved | None:
    """The follow-up this message is, with its plan; None when it is not one, or not for sure."""
    if not previous:
        return None
    folded = fold(text).strip()
    if len(folded.split()) > 14:
        return None  # a request of its own, however it starts
    for attempt in (
        _more, _previous_answer, _named_answers, _ordinal, _pronoun, _where, _append_here, _lines, _edit_last,
        _table, _servings, _same_plan,
    ):  # fmt: skip
        found = attempt(text, folded, previous, workspace)
        if found is not None:
            return found
    return None


# "save that to b.md", «salvalo in b.md», "put it in out.txt", "append it to log.md".
_SAVE_ANSWER = re.compile(
    _LEAD + r"(?:(?P<verb>save|write|put|store|copy|append|add|salva|scrivi|metti|copia|aggiungi|accoda)"
    r"(?:\s+(?:that|it|this|them|those|these|the answer|the result|the results|the text|this answer|quello|questo|"
    r"questa|quelli|quelle|la risposta|il risultato|i risultati|il testo))?|"
    r"(?P<clitic>salva|scrivi|metti|copia|aggiungi|accoda)(?:lo|la|li|le)|"
    # "save a copy of it in b.md", «salvane una copia in b.md», «fanne una copia in b.md»
    r"(?P<copy>save|make|salvane|fanne|creane|salva|fai|crea) (?:a|una) (?:copy|copia)(?: of (?:it|that|this))?)"
    r"\s+(?:(?:to|in|into|as|on|at the end of|at the bottom of|in fondo a|nel|nella|nello|in|su|come|a)\s+)?"
    r"(?:the file\s+|il file\s+|file\s+)?(?P<path>\S+?)"
    # "write them into proj/TODO.md as a checklist": the lines of the answer, one item each
    r"(?:\s+(?:as|come)\s+(?:a |an |una |un )?(?P<form>checklist|to-?do list|(?:bulleted )?list|bullet points|"
    r"lista(?: di controllo)?|elenco(?: puntato)?))?\s*[.!?]*$"
)
_APPEND = whole(r"append|add|aggiungi|accoda|at the end of|at the bottom of|in fondo a")
_ORDINALS = spelled.ORDINALS
_LAST = ("last", "ultimo", "ultima")
_ORDINAL = re.compile(
    _LEAD + r"(?P<verb>open|read|show(?: me)?|display|cat|delete|remove|erase|apri|aprimi|leggi|leggimi|mostra|"
    r"mostrami|fammi vedere|cancella|elimina|rimuovi)\s+(?:the\s+|il\s+|la\s+|l'|lo\s+|i\s+|le\s+)?"
    r"(?:(?P<word>" + "|".join([*_ORDINALS, *_LAST]) + r")|(?P<number>\d{1,3})(?:st|nd|rd|th)?|"
    r"(?:first|primi|prime)\s+(?P<count>\d{1,2}))"
    r"(?:\s+(?:one|ones|file|files|result|results|entry|uno|una|file|risultato|risultati))?"
    r"(?:\s+(?:of (?:them|those)|in the list|della lista|dell'elenco|tra questi))?"
    r"(?:\s+(?:and|e) (?:tell me|dimmi|show me|fammi vedere)\b[^.!?]*)?\s*[.!?]*$"  # "… and tell me what we decided"
)
_PRONOUN = re.compile(
    _LEAD + r"(?:(?P<verb>open|read|show(?: me)?|delete|remove|erase|apri|leggi|mostra|cancella|elimina|rimuovi)"
    r"\s+(?:it|that|that file|this file|the file|quel file|questo file|il file)"
    r"|(?P<clitic>apri|leggi|mostra|cancella|elimina|rimuovi)(?:lo|la|melo|mela))"
    r"(?:\s+(?:too|as well|again|back|to me|anche|di nuovo|please|per favore))*\s*[.!?]*$"
)
_READS = ("open", "read", "show", "show me", "display", "cat", "apri", "aprimi", "leggi", "leggimi", "mostra",
          "mostrami", "fammi vedere")  # fmt: skip
# "do the same for notes/c.md", "now for *.py", "and docs/?", «e per c.md?», «fai lo stesso con c.md».
_SAME = re.compile(
    _LEAD + r"(?:(?:do|fai|facciamo)\s+)?(?:the same(?: thing)?|same(?: thing)?|lo stesso|la stessa cosa|stessa cosa|"
    r"idem|also|anche|again|di nuovo)?\s*(?:but\s+|ma\s+)?"
    r"(?:for|with|on|per|con|su|in|of|at|nel|nella|nello|nei|nelle|del|della|dello|al|alla)?\s*"
    r"(?:(?:the\s+|il\s+|la\s+)?(?:file|folder|cartella)\s+)?"
)


_MORE = re.compile(
    _LEAD + r"(?:show(?: me)?|give me|list|read|mostra(?:mi)?|dammi|fammi vedere|elenca|leggi)?\s*"
    r"(?:the rest|the others|more|the remaining(?: ones| lines| files)?|il resto|gli altri|le altre|altri|altre|"
    r"i rimanenti|le rimanenti)(?:\s+(?:of (?:it|them|the (?:file|list))|please|per favore))?\s*[.!?]*$"
)


def _more(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """ "show me the rest": the entries of the last listing past those shown, or the lines of the
    last file read past those read."""
    if not _MORE.match(folded):
        return None
    listing, shown = previous.get("listing") or [], answers.MAX_LISTED
    if len(listing) > shown:
        rest = listing[shown:]
        said = f"{len(rest)} more:\n" + "\n".join(rest)
        return Resolved("more", None, text, f"entries {shown + 1}-{len(listing)} of the last listing", said)
    steps = (previous.get("plan") or {}).get("steps") or []
    if len(steps) != 1 or steps[0].get("tool") != "read_files":
        return None
    args = steps[0].get("args") or {}
    read = args.get("limit") or args.get("head_lines")
    if not read or len(args.get("paths") or []) != 1:
        return None  # the whole file was read, or its tail: there is no rest
    start = int(args.get("offset") or 1) + int(read)
    plan, request = of_steps(("read_files", {"paths": args["paths"], "offset": start})), f"read {args['paths'][0]}"
    return Resolved("more", plan, f"{request} from line {start}", "the rest of the last file read") if plan else None


def _previous_answer(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    match = _SAVE_ANSWER.match(folded)
    answer = (previous.get("answer") or "").strip()
    if match is None or not answer or len(answer) > MAX_PREVIOUS_ANSWER:
        return None
    if match.group("copy") and not _read_one_file(previous):
        return None  # "save a copy of it" after an answer in words: a copy of what is not certain
    path = _typed_file(text, workspace)
    if path is None or fold(path) != match.group("path").strip("'\"`"):
        return None
    args = {"path": path, "content": answers.as_list(answer, match.group("form")) if match.group("form") else answer}
    if _APPEND.search(folded):
        args["append"] = True
    plan = of_steps(("write_files", args))
    return Resolved("previous_answer", plan, text, "the previous answer") if plan else None


def _read_one_file(previous: dict) -> bool:
    steps = (previous.get("plan") or {}).get("steps") or []
    return len(steps) == 1 and steps[0].get("tool") == "read_files" and len(previous.get("files") or []) == 1


def _named_answers(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """«salvami gli ingredienti in lista.txt», "write these results to r.txt" (planner.named_answers)."""
    found = named_answers.plan_for(text, folded, previous, workspace)
    return Resolved("previous_answer", found[0], text, found[1]) if found else None


def _ordinal(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    match = _ORDINAL.match(folded)
    listing = previous.get("listing") or previous.get("earlier_listing") or []
    if match is None or not listing:
        return None
    if match.group("count"):
        chosen = listing[: int(match.group("count"))]
    else:
        word = match.group("word")
        index = len(listing) if word in _LAST else _ORDINALS.get(word or "") or int(match.group("number") or 0)
        if not 1 <= index <= len(listing):
            return None
        chosen = [listing[index - 1]]
    return _act_on(match.group("verb"), chosen, "ordinal", f"entry of the last listing: {', '.join(chosen)}")


# "rename it to launch.md", «rinominalo in lancio.md», "move it to archive/".
_MOVE_IT = re.compile(
    _LEAD
    + r"(?:(?P<verb>rename|move|copy)\s+(?:it|that|that file|the file)|(?P<clitic>rinomina|sposta|copia)(?:lo|la))\s+"
    r"(?:to|into|as|in|a|nella|nel|come|dentro|inside|under|sotto)\s+(?P<to>\S+?)"
    r"(?:\s+(?:as well|too|also|anche|please|per favore))?\s*[.!?]*"
    # an aside on the folder: «…, la cartella non c'è ancora quindi creala tu»
    r"(?:[,;]\s*(?:the folder|that folder|la cartella|quella cartella|it)\b[^,;]*"
    r"(?:non c'e|non esiste|doesn't exist|does not exist|isn't there|is not there|creal[ao]|create it|make it)"
    r"[^,;]*[.!?]*)?$"
)


def _pronoun(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    moved = _MOVE_IT.match(folded)
    match = _PRONOUN.match(folded)
    if match is None and moved is None:
        return None
    if previous.get("plan_is_last") is False:
        return None  # "delete it" after a chat turn: "it" is no longer the last file for sure
    listing = previous.get("listing") or []
    files = previous.get("files") or []
    named = listing if len(listing) == 1 else files if len(files) == 1 else []
    if not named:
        return None  # several candidates, or none: not for sure
    if moved is not None:
        to = next((v.text for v in P.extract(text, workspace).values if fold(v.text) == moved.group("to")), None)
        verb = moved.group("verb") or moved.group("clitic")
        if to and verb in ("copy", "copia") and len(named) == 1:  # "great, copy it into work/archive/ as well"
            plan = copies.of_file(named[0], to, text, workspace) if workspace is not None else None
            evidence = f"the last file named: {named[0]}"
            return Resolved("pronoun", plan, f"copy {named[0]} to {to}", evidence) if plan else None
        renamed = verb in ("rename", "rinomina")
        if to and "/" not in to and "/" in named[0] and renamed:
            to = f"{named[0].rsplit('/', 1)[0]}/{to}"  # a new name, in the same folder
        elif to and not renamed and "." not in to.rsplit("/", 1)[-1] and not exists(workspace, to):
            to = to.rstrip("/") + "/"  # «spostalo in archivio/2024»: into that folder, made if it is new
        plan = of_steps(("move_files", {"paths": [named[0]], "to": to})) if to and len(named) == 1 else None
        request = f"{'rename' if renamed else 'move'} {named[0]} to {to}"
        return Resolved("pronoun", plan, request, f"the last file named: {named[0]}") if plan else None
    verb = match.group("verb") or match.group("clitic")
    return _act_on(verb, named, "pronoun", f"the last file named: {named[0]}")


def _where(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """A file named by where the last turn was: «cancella il leggimi.txt da lì» (planner.where)."""
    if found := where.there(text, folded, previous, workspace) or where.described(folded, previous):
        return _act_on(found[0], [found[1]], "pronoun", f"{found[1]}: named by where the last turn was")
    if found := where.into_folder(text, folded, previous, workspace):
        plan, request = of_steps(("write_files", {"path": found[0], "content": found[1]})), f"write {found[0]}"
        return Resolved("pronoun", plan, request, f"{found[0]}: in the folder the last turn made") if plan else None
    return None


def _act_on(verb: str, paths: list[str], kind: str, evidence: str) -> Resolved | None:
    if verb in _READS:
        tool, word = "read_files", "read"
    else:
        tool, word = "delete_files", "delete"
    plan = of_steps((tool, {"paths": list(paths)}))
    return Resolved(kind, plan, f"{word} {' and '.join(paths)}", evidence) if plan else None


def _same_plan(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """The previous plan with the value of the new one's type re-bound. Only a message that is a
    cue and values ("and docs/?"), with the previous plan and request at hand."""
    plan, request = previous.get("plan"), previous.get("plan_request") or previous.get("request") or ""
    if not plan or not request:
        return None
    new = rebind.values(text, workspace)
    rest = _SAME.sub("", folded, count=1)
    files = previous.get("files") or []
    if len(files) == 1 and not any(kind == "path" for kind, _ in new):
        if moved := rebind.sibling(text, files[0], workspace):  # «fai lo stesso in storia»
            new.append(("path", moved[1]))
            rest = re.sub(rf"\b{re.escape(moved[0])}\b", " ", rest)
    for _, value in new:
        rest = rest.replace(fold(value), " ")
    for item in object_kinds.derived(text):
        rest = rest.replace(fold(item.phrase), " ")
    leftover = (
        r"[\s.,;:!?'\"`%]+|\b(?:and|e|too|anche|please|per favore|il|la|lo|l|i|gli|le|the|a|an|un|una|"
        r"but|pero|ma|however|though|invece|instead|"
        r"(?:con|with)(?: (?:the |il )?(?:title|titolo|text|testo|content|contenuto))?)\b"
    )
    if not new or re.sub(leftover, "", rest):
        return None  # words beside the cue and the values: a request of its own
    if len({kind for kind, _ in new}) != len(new):
        return None  # two new values of one type for one slot: which goes where is not certain
    old = rebind.values(request, workspace)
    swaps: dict[str, str] = {}
    for kind, value in new:
        same_type = {text for type_, text in old if type_ == kind}
        if kind == "path" and len(same_type) != 1 and len(previous.get("files") or []) == 1:
            same_type = set(previous["files"])  # «crea intro.md nella cartella tesi»: the file the plan wrote
        if len(same_type) != 1:
            return None  # nothing of that type to replace, or several: not for sure
        before = same_type.pop()
        swaps[before] = rebind.beside(before, value, workspace) if kind == "path" else value
    rebound = rebind.rebound(plan, swaps)
    if rebound is None:
        return None
    rewritten = request
    for before, after in swaps.items():
        if before not in rewritten and before.startswith("*.") and after.startswith("*."):
            before, after = before[1:], after[1:]  # "the .md files" said it as an extension
        elif before not in rewritten:  # the file the plan wrote, which the request named in two parts
            before = before.rsplit("/", 1)[-1]
        rewritten = rewritten.replace(before, after)
    parsed = _plan_from(rebound)
    changed = ", ".join(f"{b} → {a}" for b, a in swaps.items())
    return Resolved("same_plan", parsed, rewritten, f"the previous plan, {changed}") if parsed else None


# A quoted text added to the file just named: «aggiungici in fondo una riga "caffè"», "add 'x' to it".
_APPEND_HERE = re.compile(
    _LEAD + r"(?:(?:aggiungici|scrivici|mettici|accodaci)\b.*|(?:add|append|write)\b.*\b(?:to it|to that file|"
    r"at the end of it|to the end of it|in it|to the file|at the end|at the bottom)|"
    r"(?:aggiungi|scrivi|metti|accoda)\b.*\b(?:in fondo|alla fine|in coda)(?: al file| alla lista)?|"
    r"(?:aggiungi|scrivi|metti|accoda|add|append|write)\s+(?:in fondo|alla fine|at the end|at the bottom)\b.*)$"
)
# The line to add, written after where: «aggiungi in fondo Paolo Verdi - 339 4445566».
_AT_THE_END = re.compile(
    r"^(?:(?:e|and|ora|now|poi|then|ok)[\s,]+)*(?:aggiungi|scrivi|metti|accoda|add|append|write)\s+"
    r"(?:in fondo|alla fine|at the end|at the bottom)\s*[:,]?\s+(?P<text>\S.{0,300})$",
    re.IGNORECASE,
)


def _append_here(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    files = previous.get("files") or []
    if not _APPEND_HERE.match(folded) or len(files) != 1 or previous.get("plan_is_last") is False:
        return None
    values = P.extract(text, workspace).values
    quoted = [v.text for v in values if v.type == "quoted"]
    if not quoted and (line := _AT_THE_END.match(text.strip())):
        quoted = [line.group("text").strip()]  # «aggiungi in fondo Paolo Verdi - 339 4445566»: the rest is the line
    if len(quoted) != 1 or any(v.type in ("path", "glob") for v in values):
        return None  # no text to add, two of them, or a file of its own: not this follow-up
    plan = of_steps(("write_files", {"path": files[0], "content": quoted[0], "append": True}))
    request = f"append '{quoted[0]}' to {files[0]}"
    return Resolved("pronoun", plan, request, f"the last file named: {files[0]}") if plan else None


# After a turn on one file: "and the last two?", «e le prime 3 righe?», "now the first 5 lines", "the last line?".
_LINES = re.compile(
    _LEAD + r"(?:(?:show(?: me)?|read|give me|mostrami|mostra|leggi|leggimi|dammi)\s+)?(?:the\s+|le\s+|la\s+|i\s+)?"
    r"(?:(?P<one>first|last|prima|ultima)\s+(?:line|riga)|"
    r"(?P<end>first|last|top|bottom|prime|primi|ultime|ultimi)\s+(?P<n>\d{1,4}|[a-z]+)(?:\s+(?:lines|righe|rows))?)"
    r"(?:\s+(?:of it|please|per favore|instead|invece))?\s*[.!?]*$"
)


def _lines(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """The one file the previous plan named (read, written), read from its start or its end."""
    match = _LINES.match(folded)
    paths = previous.get("files") or []  # after a search that found its lines in one file, that file (turn_facts)
    if len(paths) != 1 or previous.get("plan_is_last") is False:
        return None
    if match is None and answers.asks_count(text) and not _typed_file(text, workspace):
        found = of_steps(("read_files", {"paths": paths}))  # "how many items are on the list now?"
        return Resolved("same_plan", found, f"{text} ({paths[0]})", f"the file of the last turn: {paths[0]}")
    if match is None:
        return None
    number = match.group("n") or "1"
    count = int(number) if number.isdigit() else spelled.number(number)
    if not count:
        return None
    last = (match.group("end") or match.group("one")) in ("last", "bottom", "ultime", "ultimi", "ultima")
    arg = "tail_lines" if last else "head_lines"
    request = f"read the {'last' if last else 'first'} {'line' if count == 1 else f'{count} lines'} of {paths[0]}"
    found = of_steps(("read_files", {"paths": paths, arg: count}))
    return Resolved("same_plan", found, request, f"the file read before, {arg} {count}") if found else None


def _edit_last(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """ "change it to 9090", «e cambia il titolo in "Diario"»: the file the last turn named (planner.edits)."""
    if found := edits.on_last_file(text, previous, workspace):
        return Resolved("pronoun", found[1], f"edit {found[0]}", f"the last file named: {found[0]}")
    return None


def _table(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """ "and on eating out?" after "how much did I spend on groceries? … budget.csv" (planner.tables)."""
    if found := tables.after(text, previous, workspace):
        asked = tables.without_which_row(text)  # «… e in che giorno?» is no question of the time
        return Resolved("same_plan", found[0], f"{asked} ({found[1]})", f"the table of the last turn: {found[1]}")
    return None


def _servings(text: str, folded: str, previous: dict, workspace) -> Resolved | None:
    """«e se siamo in 6 quanto macinato serve?» after a turn on a recipe (planner.servings)."""
    if found := servings.answer(text, previous, workspace):
        return Resolved("same_plan", None, f"{text} ({found[1]})", f"the recipe of the last turn: {found[1]}", found[0])
    return None


def _typed_file(text: str, workspace) -> str | None:
    paths = [v.text for v in P.extract(text, workspace).values if v.type == "path" and not v.text.endswith("/")]
    return paths[0] if len(paths) == 1 else None


def _plan_from(data: dict) -> Plan | None:
    try:
        return parse(data)
    except PlanError:
        return None
