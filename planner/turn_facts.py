"""What a plan that ran leaves for the next turn (TurnInput.previous, read by planner.followup and
the layers after it): the plan, its last listing, the files it named, its scratchpad entries."""

from __future__ import annotations

from planner.plan import Plan
from planner.where import paths_of as _paths_of

LISTING_TOOLS = ("list_files", "find_files", "grep_files")
MAX_LISTING = 200


def facts(plan: Plan, results: dict[int, dict], kept: list[str] = ()) -> dict:
    """What a plan that ran leaves for the next turn: the plan (literal values), the paths of its
    last listing (or of the files it moved), the files its steps named, and the scratchpad entries
    its large results went to (`kept`: the next turn is offered scratchpad_read for them)."""
    listing: list[str] = []
    if results and plan.steps[max(results) - 1].tool in LISTING_TOOLS:
        for entry in results[max(results)].get("entries") or []:
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, str) and path not in listing and entry.get("type", "file") == "file":
                listing.append(path)
    elif results and plan.steps[max(results) - 1].tool == "move_files":  # "open the second one" of those moved
        moved = results[max(results)].get("moved") or []
        listing = [m["to"] for m in moved if isinstance(m, dict) and isinstance(m.get("to"), str)]
    # The files the steps acted on (a listing's folder is not one); a moved file is where it went:
    # "fanne una copia in …" after a rename copies the file by its new name.
    files = []
    for number, step in enumerate(plan.steps, 1):
        moved = (results.get(number) or {}).get("moved") if step.tool == "move_files" else None
        if moved:
            files += [m["to"] for m in moved if isinstance(m, dict) and isinstance(m.get("to"), str)]
        elif step.tool not in LISTING_TOOLS:
            files += _paths_of(step.args)
    if not files and len(listing) == 1 and plan.steps[max(results) - 1].tool == "grep_files":
        files = listing  # a search that found its lines in one file: "change it to 9090" edits that file
    return {
        "plan": plan.to_dict(),
        "listing": listing[:MAX_LISTING],
        "files": list(dict.fromkeys(files)),
        "scratchpad": list(kept),
    }
