"""The same plan with new values, for the follow-up layer (planner.followup): the values a
message gives, by type ("do the same for notes/c.md", "now for *.py", «e il 20%?»), and the previous
plan with the old ones swapped for them."""

from __future__ import annotations

import re

from planner import object_kinds
from planner import params as P


def values(text: str, workspace) -> list[tuple[str, str]]:
    """The values a plan may re-bind, as (type, text): paths, globs, URLs, numbers, and the globs
    that kinds of file stand for ("python files" → *.py)."""
    kinds = ("path", "glob", "url", "number", "ext", "quoted")
    # An extension is a glob ("the .md files" → *.md), so "now for *.py" re-binds it.
    # A number with "%" after it is a rate, not the amount it is taken of ("e il 20%?").
    typed = [("glob", f"*{v.text}") if v.type == "ext"
             else ("percent", v.text) if v.type == "number" and text[v.end : v.end + 2].lstrip().startswith("%")
             else (v.type, v.text)
             for v in P.extract(text, workspace).values if v.type in kinds]  # fmt: skip
    derived = [("glob", item.value) for item in object_kinds.derived(text) if item.kind == "glob"]
    return typed + [d for d in derived if d not in typed]


def rebound(plan: dict, swaps: dict[str, str]) -> dict | None:
    """The plan with each old value replaced where it stands as a whole argument (or a list item),
    and in the final message; None when an old value stands nowhere (the plan did not use it)."""
    used = set()

    def swap(value):
        if isinstance(value, str) and value in swaps:
            used.add(value)
            return swaps[value]
        if isinstance(value, str):  # a number inside an expression: "15 * 320 / 100"
            for before, after in swaps.items():
                if re.fullmatch(r"-?\d+(?:\.\d+)?", before) and re.search(
                    rf"(?<![\d.]){re.escape(before)}(?![\d.])", value
                ):
                    used.add(before)
                    value = re.sub(rf"(?<![\d.]){re.escape(before)}(?![\d.])", after, value)
            return value
        if isinstance(value, list):
            return [swap(v) for v in value]
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        return value

    steps = [{"tool": s.get("tool"), "args": swap(s.get("args") or {})} for s in plan.get("steps") or []]
    if used != set(swaps):
        return None
    final = plan.get("final_message") or ""
    for before, after in swaps.items():
        final = final.replace(before, after)
    return {"steps": steps, "final_message": final}


def beside(old: str, new: str, workspace) -> str:
    """«e per c.md?» after reading notes/a.md: a bare name that is not in the workspace's root
    goes beside the old file (notes/c.md), to read or to write."""
    folder = old.rsplit("/", 1)[0] if "/" in old.rstrip("/") else ""
    if not folder or "/" in new or workspace is None:
        return new
    return f"{folder}/{new}" if (workspace / folder).is_dir() and not (workspace / new).exists() else new


def sibling(text: str, old: str, workspace) -> tuple[str, str] | None:
    """«fai lo stesso in storia» after writing scuola/matematica/compiti.txt, where scuola/storia
    is a folder: (the word, scuola/storia/compiti.txt). None unless exactly that holds."""
    parts = old.split("/")
    if workspace is None or len(parts) < 3:
        return None
    match = _IN_FOLDER.search(text.lower())
    if match is None or (workspace / match.group(1)).exists():
        return None  # no folder named, or one the workspace's root has: a path of its own
    parent = "/".join(parts[:-2])
    try:
        if not (workspace / parent / match.group(1)).is_dir():
            return None
    except (OSError, ValueError):
        return None
    return match.group(1), f"{parent}/{match.group(1)}/{parts[-1]}"


_IN_FOLDER = re.compile(r"\b(?:in|into|for|per|nella cartella|in the folder|nella)\s+([a-z0-9][\w-]*)\b(?![./])")
