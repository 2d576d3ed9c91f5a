"""Several actions in one request, with no model: "move draft.md to final/ and delete old.md",
"make a folder archive/2024 and move budget.xlsx into it", «calcola 19 * 7 e scrivilo in
conti/parziale.txt», «fai un backup di dati.json in dati.json.bak e poi cancella l'originale».

The request is cut where a clause ends ("and", "then", «e poi», a full stop), never inside a
quote, into two or three parts. Each part must get a plan of its own from the deterministic
layers (planner.deterministic, the cold path first); one that gets none leaves the request to the
proposer, as before. A part may lean on the one before it:
- "into it", "in there", «dentro», «mettici» name the folder the part before made or moved to;
- "save it" / «scrivilo» / "write the result to F" keep what the part before computed or counted;
- "the original", «l'originale» is the file the part before read or moved.
The parts' plans are joined into one, each a pipeline of its own (`Plan.pipelines`: the shape
E+ (F|A)? holds for each, planner.validator), so the engine validates and runs it like any plan,
with one approval per action and an undo for each."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from planner import params as P
from planner.intent import extract
from planner.plan import Plan, parse
from planner.text import language

MAX_PARTS = 3

# Where one clause ends and the next begins.
_CUT = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+|e\s+)?(?:then|poi|after that|dopo)\b|,?\s+(?:and\s+then|then|after that|and also|"
    r"e\s+poi|e\s+infine|e\s+dopo|dopodich[eé]|poi)\b|[;.!]\s+(?=\S)|,?\s+(?:and|e|ed)\b)\s*",
    re.IGNORECASE,
)
# The folder the part before made or moved things to.
_INTO_IT = re.compile(
    r"\b(?:into|in|inside|to) (?:it|there|that folder|the new folder)\b|\bthere\b|"
    r"\b(?:l[iì] dentro|dentro(?: di essa)?|in essa|in quella cartella|nella nuova cartella)\b",
    re.IGNORECASE,
)
# «mettici un file torta.md con …»: a new file made in the folder, not one moved there.
_NEW_FILE = re.compile(
    r"\s+(?:un |il |a |the )?(?:nuovo |new )?file\s+(?P<name>[\w.-]+\.\w{1,5})\s+(?:con|with|containing)\b"
)
_PUT_IN_IT = re.compile(r"\b(?:mett|spost)[ai]ci\b(?:\s+dentro)?", re.IGNORECASE)
# "put a file torta.md in it containing 'x'", "add a new file notes.md there with 'y'": made in the folder
_THERE = r"(?:in it|in there|inside it|inside|there|into it)"
_NEW_FILE_THERE = re.compile(
    rf"^(?:put|create|make|add|place|write)\s+(?:a |the )?(?:new )?file\s+(?P<name>[\w.-]+\.\w{{1,5}})"
    rf"(?:\s+{_THERE})?\s+(?P<rest>(?:containing|with|that says|saying)\b.*?)(?:\s+{_THERE})?$",
    re.IGNORECASE,
)
# What the part before computed or counted, kept in a file.
_KEEP = re.compile(
    r"^(?:(?:save|write|put|store|salva|scrivi|metti|memorizza)(?:lo|la)?\s+"
    r"(?:(?:it|that|this|the (?:result|number|count|total|answer|value|output)|il (?:risultato|numero|conteggio|totale|"
    r"valore)|la (?:risposta|somma)|l'output)\s+)?"
    r"(?:to|in|into|as|nel|nella|nello|su|dentro)\s+(?:(?:the |a |il |un )?file\s+)?)"
    r"(?P<path>[\w./~-]+?)\s*[.!]?$",
    re.IGNORECASE,
)
_KEPT_FIELD = {"compute": "value", "grep_files": "count", "find_files": "count", "run_shell": "stdout"}
# "save the output of 'df -h' to d.txt" is "run 'df -h' and save the output to d.txt"
_OUTPUT_OF = re.compile(
    r"^(?:save|write|put|store|salva|scrivi|metti)\s+(?:the output|l'output|l'uscita)\s+(?:of|di|del)\s+"
    r"(?P<command>.+?)\s+(?P<to>(?:to|in|into|nel|nella|su)\s+\S+?)\s*[.!]?$",
    re.IGNORECASE,
)
_ORIGINAL = re.compile(r"\b(?:the original(?: file)?|l'originale|il file originale)\b", re.IGNORECASE)
# "… in it", «… in quel file»: where the part before read or wrote.
_IN_IT = re.compile(r"\b(in|to|from|into|nel|dal|a) (?:it|there|that file|esso|quel file|questo file)\b", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:and|then|e|ed|poi|quindi|also|anche)\b[\s,]*)+", re.IGNORECASE)


def plan_for(text: str, *, workspace: Path | None, plan_one: Callable[[str], Plan | None]) -> Plan | None:
    """The joined plan of the request's parts, or None. `plan_one` is the deterministic layers'
    plan for one part (planner.deterministic, without this one)."""
    if output := _OUTPUT_OF.match(text.strip()):
        text = f"run {output['command']} and save the output {output['to']}"
    cuts = _cuts(text, workspace)
    if not cuts:
        return None
    tries = [cuts] if len(cuts) < MAX_PARTS else []
    tries += [[cut] for cut in cuts] if len(cuts) > 1 else []
    for chosen in tries:
        joined = _joined(_parts(text, chosen), workspace, plan_one)
        if joined is not None:
            return joined
    return None


def _cuts(text: str, workspace: Path | None) -> list[tuple[int, int]]:
    """Where the clauses meet, outside quoted text."""
    quoted = [(v.start, v.end) for v in P.extract(text, workspace).values if v.type == "quoted"]
    cuts = [
        m.span()
        for m in _CUT.finditer(text)
        if 0 < m.start() and m.end() < len(text) and not any(a <= m.start() < b for a, b in quoted)
    ]
    ends = [start for start, _ in cuts[1:]] + [len(text)] if cuts else []
    # Not the last "e" of a list: «un file torta.md con farina, uova e zucchero».
    return [cut for cut, end in zip(cuts, ends, strict=True) if not _an_item(text[cut[1] : end])]


def _an_item(segment: str) -> bool:
    """A few words with no verb and no path: the last item of a list, not a clause."""
    words = segment.strip(" ,;.!?").split()
    return 0 < len(words) <= 3 and not extract(segment).verbs and not any(ch in segment for ch in "./")


def _parts(text: str, cuts: list[tuple[int, int]]) -> list[str]:
    bounds = [0, *(n for cut in cuts for n in cut), len(text)]
    parts = [text[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2)]
    return [_LEAD.sub("", part).strip(" ,;.!") for part in parts]


def _joined(parts: list[str], workspace: Path | None, plan_one: Callable[[str], Plan | None]) -> Plan | None:
    steps: list[dict] = []
    starts: list[int] = []
    for part in parts:
        if not part:
            return None
        kept = _after(part, steps, workspace)  # its step already refers to the one before by number
        resolved = _resolved(part, steps)
        if kept is None and not extract(resolved).verbs:
            return None  # "read a.md and b.md": one action, on two files
        plan = kept or plan_one(resolved)
        if plan is None or not plan.steps or plan.fillers:
            return None
        starts.append(len(steps) + 1)
        own = [{"tool": s.tool, "args": s.args} for s in plan.steps]
        steps += own if kept else _renumbered(own, len(steps))
    return parse({"steps": steps, "final_message": "", "pipelines": starts[1:]})


def _after(part: str, steps: list[dict], workspace: Path | None) -> Plan | None:
    """ "save it to F" after a computation or a count: its result, written to F."""
    kept = _KEEP.match(part)
    field = _KEPT_FIELD.get(steps[-1]["tool"]) if steps else None
    if kept is None or field is None:
        return None
    path = kept["path"]
    typed = [v for v in P.extract(path, workspace).values if v.type == "path" and v.text == path]
    if not typed or "." not in path.rsplit("/", 1)[-1]:
        return None
    content = f"${{step{len(steps)}.{field}}}" + ("" if field == "stdout" else "\n")  # stdout ends its lines
    return parse({"steps": [{"tool": "write_files", "args": {"path": path, "content": content}}]})


def _resolved(part: str, steps: list[dict]) -> str:
    """The part with what it says of the part before written out: its folder, its file."""
    if not steps:
        return part
    last = steps[-1]
    args = last["args"]
    folder = None
    if last["tool"] == "make_dirs" and len(args.get("paths") or []) == 1:
        folder = args["paths"][0]
    elif last["tool"] == "move_files" and isinstance(args.get("to"), str):
        folder = args["to"]
    if folder and "${" not in folder:
        folder = folder.rstrip("/") + "/"
        if (put := _PUT_IN_IT.search(part)) and (new := _NEW_FILE.match(part, put.end())):
            return f"{part[: put.start()]}crea un file {folder}{new['name']}{part[new.end('name') :]}"
        if put:
            return f"{part[: put.start()]}sposta{part[put.end() :]} in {folder}"
        if there := _NEW_FILE_THERE.match(part):
            return f"create a file {folder}{there['name']} {there['rest']}"
        into = "in" if language(part) == "it" else "into"
        return _INTO_IT.sub(lambda _: f"{into} {folder}", part, count=1)
    file = _file(last)
    if file:
        part = _ORIGINAL.sub(lambda _: file, part, count=1)
        part = _IN_IT.sub(lambda m: f"{m[1]} {file}", part, count=1)
    return part


def _file(step: dict) -> str | None:
    """The one file a step read or wrote."""
    args = step["args"]
    paths = args.get("paths") if step["tool"] == "read_files" else [args.get("path")]
    if step["tool"] in ("read_files", "write_files", "edit_file") and isinstance(paths, list) and len(paths) == 1:
        return paths[0] if isinstance(paths[0], str) and "${" not in paths[0] else None
    return None


def _renumbered(steps: list[dict], offset: int) -> list[dict]:
    """A part's steps as steps offset+1…: their references to each other moved along."""
    if not offset:
        return steps
    text = re.sub(r"\$\{step(\d+)", lambda m: f"${{step{int(m[1]) + offset}", json.dumps(steps))
    moved = json.loads(text)
    for step in moved:
        if isinstance(step["args"].get("from_step"), int):
            step["args"]["from_step"] += offset
    return moved
