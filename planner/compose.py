"""Write, then keep: "write a haiku about autumn and save it to poems/autumn.txt", «scrivimi una
poesia sul mare e salvala in poesie/mare.txt», "make me a packing list for Lisbon and save it as
travel/lisbon.md. Put a heading with 'Lisbon' at the top".

The words are the direct route's: one model call, streamed as it writes, on the request without
its last clause. Keeping them is a one-step plan, write_files with that answer at the path the
request names, validated and run as any plan (an approval included). The model writes text, which
even the small local one can do; it never plans the file, which it cannot (issue 17's "Done: wrote
hiiuaiyut"). Only when the words alone go `direct`: "read a.md and save it to b.md" is the
engine's."""

from __future__ import annotations

import re
from dataclasses import replace

from core.tokens import estimate as estimate_tokens
from planner import direct, engine
from planner import params as P
from planner.candidates import allowed, ranking
from planner.catalog import Catalog
from planner.decision import decide
from planner.intent import extract
from planner.plan import parse
from planner.route import ExplicitModelUnavailable, route, route_error
from planner.signature import signed
from planner.text import language
from planner.turn import Sink, TurnInput, TurnOutcome
from planner.validator import validate
from routing.chain import NoRoute
from routing.fingerprint import TurnNeeds

_KEEP = re.compile(
    # "… and save it to FILE", or a sentence of its own: «Mi scriveresti una email …? Salvala in FILE»
    r"^(?P<words>.{6,}?)(?:[\s,;.]+(?:and(?: then)?|then|e(?: poi)?|ed|poi)\s+|\s*[.?!]+\s+)"
    r"(?:(?:save|write|put|store|keep|salva|scrivi|metti|memorizza)(?:(?:me|ce|te)?(?:lo|la|li|le))?"
    r"(?:\s+(?:it|that|them|this|the result|the text|the list|the answer))?|"
    r"(?:me\s+)?(?:lo|la|li|le)\s+(?:salvi|scrivi|metti|memorizzi))\s+"
    r"(?:(?:to|in|into|as|under|on|nel|nella|nello|in|su|come|dentro|a)\s+)?"
    r"(?:(?:the|a|a new|il|un|nel|nuovo)\s+)?(?:file\s+)?(?:(?:called|named|chiamato)\s+)?"
    r"[`'\"«]?(?P<path>[\w./~-]+?)[`'\"»]?"
    r"(?:\s*[.?!]\s+(?P<more>[^.?!].*?))?\s*[.!?]*$",
    re.IGNORECASE | re.S,
)


# "write a one-line birthday message into cards/sister.txt and sign it Tom", «scrivi una poesia sul
# mare nel file poesie/mare.txt»: a piece of writing, named by its kind, into a file.
_KINDS = (
    r"poem|haiku|limerick|story|tale|message|note|e-?mail|letter|list|joke|song|paragraph|toast|speech|"
    r"slogan|greeting|wish(?:es)?|card|recipe|description|bio|intro(?:duction)?|post|tweet|riddle|"
    r"poesia|poesie|storia|racconto|favola|messaggio|nota|lettera|lista|elenco|barzelletta|canzone|"
    r"paragrafo|brindisi|discorso|augurio|auguri|biglietto|ricetta|descrizione|presentazione|indovinello|frase"
)
_INTO = re.compile(
    r"^(?P<head>(?:(?:please|per favore|can you|could you|puoi|potresti)\s+)?(?:write|compose|draft|scrivi|"
    r"scrivimi|componi|prepara|preparami)\s+(?:me\s+)?(?:a|an|some|one|two|three|un|uno|una|due|tre)\b"
    rf"[^'\"«`]{{0,80}}?\b(?:{_KINDS})\b[^'\"«`]{{0,80}}?)\s+"
    r"(?:into|to|in|inside|nel|nella|nello|dentro|in un)\s+(?:(?:the|a|il|un)\s+)?(?:file\s+)?"
    r"(?P<path>[\w./~-]+\.\w+)(?P<tail>(?:\s+(?:and|e)\s+[^'\"«`]{1,80})?)\s*[.!?]*$",
    re.IGNORECASE | re.S,
)


def split(text: str, workspace) -> tuple[str, str] | None:
    """(what to write, the file to keep it in), or None: the request is not "write X and save it to
    FILE" or "write a poem … into FILE", or FILE is not a file's path."""
    match = _KEEP.match(text.strip())
    if match is None:
        into = _INTO.match(text.strip())
        return _checked(f"{into['head']}{into['tail']}".strip(), into["path"], workspace) if into else None
    words = match.group("words").strip()
    if match.group("more"):
        words = f"{words}. {match.group('more').strip()}"
    return _checked(words, match.group("path"), workspace)


# Words about the workspace: "write a list of the files into files.txt" is not for the model to invent.
_ABOUT_FILES = re.compile(r"\b(?:files?|folders?|director(?:y|ies)|documents|cartell[ae]|documenti)\b", re.IGNORECASE)


# Words that ask for a piece of writing: its kind, or a verb of writing ("run sleep 30 and then write
# late.txt" asks for none).
_WRITING = re.compile(
    rf"\b(?:{_KINDS}|write|compose|draft|scrivi|scrivimi|scrivine|componi|componimi|inventa|inventami)\b", re.IGNORECASE
)


def _checked(words: str, path: str, workspace) -> tuple[str, str] | None:
    if _ABOUT_FILES.search(words) or not _WRITING.search(words):
        return None
    typed = [v for v in P.extract(path, workspace).values if v.type == "path" and v.text == path]
    if not typed or "." not in path.rsplit("/", 1)[-1] or path.startswith(("/", "~")) or ".." in path.split("/"):
        return None
    return words, path


def run(inp: TurnInput, cat: Catalog, sink: Sink, ids: dict) -> TurnOutcome | None:
    """The turn, when it asks to write something in words and keep it in a named file; None when
    it does not (or the words alone are more than words: a file to read, a tool's own object)."""
    found = split(inp.text, inp.workspace_path)
    if found is None or "write_files" not in cat.executors:
        return None
    words, path = found
    intent = extract(words)
    if decide(words, intent=intent, ranked=ranking(cat, words, intent), workspace=inp.workspace_path).route != "direct":
        return None
    writes = allowed(inp, [cat.executors["write_files"]])
    if not writes:
        return None  # plan mode, or a profile without writes: the words alone, as direct would
    asked = replace(inp, text=words)
    needs = TurnNeeds(acts=False, estimated_tokens=estimate_tokens(words), text=words, workspace=inp.workspace)
    try:
        chosen = route(asked, needs, ids)
    except (NoRoute, ExplicitModelUnavailable) as exc:
        return route_error(exc)
    written = direct.answer(asked, chosen, sink, ids)
    if written.final_kind != "answer" or not written.text.strip():
        return written
    text = signed(inp.text, written.text.strip())
    # The answer is the words and where they went, after an approval too (it replaces the turn's message).
    kept_at = "Salvato in ${step1.path}." if language(inp.text) == "it" else "Saved to ${step1.path}."
    said = f"{text.replace('${', '$ {')}\n\n{kept_at}"
    plan = parse(
        {"steps": [{"tool": "write_files", "args": {"path": path, "content": f"{text}\n"}}], "final_message": said}
    )
    problems = validate(plan, cat, allowed={writes[0].name}, request_text=inp.text, workspace=inp.workspace_path)
    if any(p.blocking for p in problems):
        return written  # the words stand; nothing is written where the request did not say
    kept = engine.run_remembered(
        replace(inp, text=f"save it to {path}"), plan=plan, layer="direct", catalog=cat, sink=sink, ids=ids
    )
    if kept.final_kind == "answer":  # the words went out as they were written: only where they went follows
        sink.on_delta(kept.text.removeprefix(text))
    else:
        kept = replace(kept, text=f"{text}\n\n{kept.text}")  # the words, and the question
    kept.trace["compose"] = {"words": words, "path": path}
    return replace(
        kept,
        layer="direct",
        usage=written.usage,
        cost_usd=written.cost_usd,
        model_ms=written.model_ms,
        model_calls=written.model_calls,
        route=written.route,
    )
