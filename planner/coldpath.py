"""The cold path: a one-step plan with no model call, for a request that already holds its tool's
every argument.

    "read notes/a.md and tell me its last 2 lines"
      → read_files {"paths": ["notes/a.md"], "tail_lines": 2}
    "calcola la media di 3, 4 e 5"  → compute {"expression": "mean([3, 4, 5])"}
    "write a poem" / "save it" / "read the file"  → None: the proposer plans, as before

Each of the top candidates (the ones the proposer would be shown) whose verb the request asks for
is bound from what the request types: string args by their schema `format` (file, folder, path,
glob, uri), arrays of them, "first/last N lines", a quoted text to write, a compute expression
from the numbers and one operation word (or an arithmetic expression written out), a time zone
from a small table. A binding counts only when it uses every value the request types (and every
value it gives in words, "markdown files" → *.md), and when every other word is a verb or object
the intent knows, or politeness: a value or a word left over ("… in full", "delegate to a
subagent: …") means the request asks for something more. Never a guess: an argument with two
possible values, or two tools that bind, gives None. The plan is then validated and executed like
a proposed one."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from planner import canonical, copies, expressions, terms
from planner.catalog import Executor
from planner.cold_args import OWN_OBJECT, bind_arg
from planner.cold_request import Ambiguous, Request, request_of
from planner.intent import Intent, extract, step_kinds
from planner.plan import Plan, parse
from planner.prefilter import OBJECT_NAMES
from planner.proposer import MAX_CANDIDATES

# Showing files of a kind is naming them ("show me my pdfs"); reading them is another matter.
_SHOWING = re.compile(r"\b(?:show|display|see|mostra|mostrami|fammi vedere|vedere)\b")
# Words that make a request about doing, not a request to do ("how do I read a.md?"), or undo it.
_NOT_AN_ORDER = re.compile(
    r"\b(?:not|no|never|dont|don't|without|non|mai|senza|how do|how to|how can|how would|explain|spiega|"
    r"come si|come faccio|come posso)\b"
)
# A request with no verb is served cold only as a question ("what is 17 * 23?", "che ore sono a
# Tokyo?") or a bare expression: "translate https://…" or "call 555-1234" is not asking to fetch
# or to subtract.
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|whats|how|which|when|quanto|quanta|quanti|quante|qual|quale|quali|che|cosa|quando)\b"
    r"|^[\d\s.+\-*/\u00d7\u00f7^()x=]+$"
)


# «mettici un file semina.md con scritto "…"»: "put" with a new file's text is making that file.
_PUT_TEXT = re.compile(
    r"\b(?:mettici|scrivici|mettiamoci)\b(?=\s+(?:un|il|uno|a|the)?\s*(?:nuovo\s+)?file\b.*\b(?:con scritto|"
    r"con il testo|con dentro scritto|che dice)\b)",
    re.IGNORECASE,
)
# Sentences before the last one: "Sto iniziando la tesi. Mi crei le cartelle …?"
CONTEXT = re.compile(r"^(.+?[.!])\s+(?=\S)", re.DOTALL)


@dataclass(frozen=True)
class _Binding:
    tool: str
    args: dict
    uses: frozenset[str]
    own_object: bool


def _bind(executor: Executor, req: Request) -> _Binding | None:
    schema = executor.args_schema
    args, uses, own = {}, frozenset(), False
    for name, spec in schema.get("properties", {}).items():
        option = bind_arg(executor.name, name, spec if isinstance(spec, dict) else {}, req)
        if option is None:
            if name in schema.get("required", ()):
                return None
            continue
        if name not in schema.get("required", ()) and option.uses and option.uses <= uses:
            continue  # an optional argument that only repeats values bound already (grep's path, paths)
        args[name], uses = option.value, uses | option.uses
        own = own or (executor.name, name) in OWN_OBJECT
    return _Binding(executor.name, args, uses, own)


def _names_object(executor: Executor, intent: Intent) -> bool:
    """The request's object is what the tool's name acts on ("what time is it?" and get_time)."""
    return bool(set(executor.name.split("_")[1:]) & OBJECT_NAMES.get(intent.object or "", frozenset()))


def _evidenced(binding: _Binding, executor: Executor, intent: Intent, asked: bool) -> bool:
    """The request asks for this tool: it gives the tool's own object (a URL, an expression, a
    zone), or it asks for the tool's verb and gives an argument or names the tool's object."""
    if binding.own_object:
        return True
    # "read" reaches list_files only for a folder the request names ("show me the folder docs"), not
    # through the object alone ("read the file").
    own_verb = not (executor.name.startswith("list_") and "list" not in intent.verbs)
    return asked and bool(binding.uses or binding.args or (own_verb and _names_object(executor, intent)))


def plan_for(text: str, *, candidates: list[Executor], workspace: Path | None) -> Plan | None:
    """The one-step plan the request fully types, or None (the proposer plans). The intent is read
    from the request's own words with quoted text left out: "salva 'compra il latte'" asks to
    save, whatever the quote says."""
    text = canonical.without_asides(_PUT_TEXT.sub("crea", text), workspace)  # "… it's for my shop": why, not what
    text = copies.INTO_FOLDER.sub(lambda m: f"in {m.group('name')}/", text)  # «in una cartella nuova, definitivi»
    req = request_of(text, workspace)
    context = CONTEXT.match(text)
    if req.unexplained and context and not request_of(context.group(1), workspace).values:
        # "I'm cleaning up my project. Delete the build folder.": what comes first only says why
        return plan_for(text[context.end() :], candidates=candidates, workspace=workspace)
    if _NOT_AN_ORDER.search(req.folded) or req.unexplained:
        return None
    intent = extract(_unnamed(req))
    kinds = bool(req.derived) and all(d.kind == "glob" for d in req.derived) and not req.values
    numbers = any(v.type == "number" for v in req.values)
    adding_up = numbers and re.search(r"\badd(?:ing)? (?:them |these |those |it )?up\b", req.folded)  # not "add to"
    if (not intent.verbs and expressions.operation_verb(req.folded)) or adding_up:  # "add 5 and 7", «dividi 84 per 4»
        intent = replace(intent, verb="compute", verbs=("compute",))
    if intent.verbs == ("compute",) and not numbers:
        intent = replace(intent, verb=None, verbs=())  # «in quali file compare …» ("appears"): nothing to compute
    if (req.term or req.shared or kinds) and not intent.verbs:  # «quali file hanno scritto bozza?», «quali csv ho?»
        intent = replace(intent, verb="find", verbs=("find",))
    if (kinds or req.shared) and intent.verbs == ("read",) and _SHOWING.search(req.folded):  # "show me my pdfs"
        intent = replace(intent, verb="find", verbs=("find",))
    if not intent.verbs:  # "what's in tests?": a phrase the canonical form knows (planner/canonical.yaml)
        asked = tuple(dict.fromkeys(t[2:] for t in canonical.of(text, workspace).tokens if t.startswith("v:")))
        intent = replace(intent, verb=asked[0] if asked else None, verbs=asked)
    if terms.ROWS.search(req.folded):  # "show me the lines with ERROR in app.log": a search
        intent = replace(intent, verb="find", verbs=("find", *(v for v in intent.verbs if v not in ("read", "find"))))
    if len(step_kinds(intent.verbs)) > 1:  # "read a.md and save it to b.md": more than one step
        return None
    question = bool(_QUESTION.search(req.folded.strip()))
    found: list[_Binding] = []
    try:
        for executor in candidates[:MAX_CANDIDATES]:
            asked = executor.name.split("_")[0] in intent.tool_verbs
            if (intent.verbs and not asked) or (not intent.verbs and not question):
                continue
            binding = _bind(executor, req)
            if binding is None or binding.uses != req.everything:
                continue  # a required argument is missing, or a value of the request is left over
            if _evidenced(binding, executor, intent, asked):
                found.append(binding)
    except Ambiguous:
        return None
    if len(found) != 1:
        return None
    return _plan(found[0])


def _unnamed(req: Request) -> str:
    """The request without its paths, globs and addresses: a name says nothing of what to do
    ("crea lista.txt" asks to create, not to list; "a folder called done" is not about a task
    done). Nor does the word that introduces a quoted text a new file holds."""
    text = list(req.text)
    for name in req.fresh:
        for match in re.finditer(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", req.text, re.IGNORECASE):
            text[match.start() : match.end()] = " " * (match.end() - match.start())
    for value in req.values:
        if value.type in ("path", "glob", "url"):
            text[value.start : value.end] = " " * (value.end - value.start)
        elif value.type == "quoted" and (said := _CONTENT_SAID.search(req.text, 0, value.start)):
            text[said.start() : said.end()] = " " * (said.end() - said.start())  # "containing 'alpha'": what it holds
    return "".join(text)


# The words that give a new file's text: "create a.txt containing 'alpha'" creates, it does not search.
_CONTENT_SAID = re.compile(
    r"\b(?:containing|that contains|which contains|contenente|che contiene|con dentro|with the (?:text|content)|"
    r"con (?:su |dentro )?scritto|con il testo|che dice|that says|saying)"
    r"(?:\s+(?:the |il |as |come )?(?:title|titolo|heading|text|testo))?\s*$",
    re.IGNORECASE,
)


def _plan(binding: _Binding) -> Plan:
    # No final message: the answer is the executor's result in words (planner.answers).
    return parse({"steps": [{"tool": binding.tool, "args": binding.args}], "final_message": ""})
