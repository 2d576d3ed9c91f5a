"""A plan and its placeholders.

    {"steps": [{"tool": "read_files", "args": {"paths": ["notes/a.md"], "tail_lines": 3}}],
     "fillers": {"tone": {"prompt": "one adjective for the tone", "default": "neutral"}},
     "final_message": "The last lines:\\n${step1.entries.0.content}"}

Steps are numbered from 1. Inside args and the final message:
- `${stepN.field.sub.0}`: a value from step N's result (a nested path; numbers index lists);
- `${FILLER:name}`: a short text the fast tier writes from the filler's prompt (default on failure);
- `${RUNTIME:key}`: actor, lang, channel or now;
- `${PARAM:name}`: a value taken from the request (remembered plans use it);
- an arg `"from_step": N` hands step N's `entries` list to the tool as `entries`.
`pipelines` (deterministic plans only, planner.compound) lists the steps that begin a new
pipeline after the first: "make the folder a and move b.md into it" is two, [2].
A string that is exactly one placeholder takes the referenced value as it is (a number stays a
number); inside longer text values are rendered as text."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PLACEHOLDER = re.compile(r"\$\{(?:step(\d+)((?:\.[A-Za-z0-9_]+)*)|(FILLER|RUNTIME|PARAM):([A-Za-z0-9_]+))\}")
RUNTIME_KEYS = ("actor", "lang", "channel", "now")


class PlanError(ValueError):
    pass


class ResolveError(ValueError):
    pass


@dataclass(frozen=True)
class Step:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    final_message: str = ""
    fillers: dict[str, dict[str, str]] = field(default_factory=dict)
    pipelines: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        plan = {
            "steps": [{"tool": s.tool, "args": s.args} for s in self.steps],
            "fillers": self.fillers,
            "final_message": self.final_message,
        }
        return plan | {"pipelines": list(self.pipelines)} if self.pipelines else plan


def parse(data: Any) -> Plan:
    """A plan from a model's JSON (already decoded or as text). Shape errors are PlanError."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PlanError(f"the plan is not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise PlanError("the plan must be a JSON object")
    raw_steps = data.get("steps", [])
    if not isinstance(raw_steps, list):
        raise PlanError("`steps` must be a list")
    steps = []
    for i, raw in enumerate(raw_steps, 1):
        if not isinstance(raw, dict) or not isinstance(raw.get("tool"), str):
            raise PlanError(f"step {i} needs a `tool` name")
        args = raw.get("args", {})
        if not isinstance(args, dict):
            raise PlanError(f"step {i}: `args` must be an object")
        steps.append(Step(raw["tool"], args))
    fillers = data.get("fillers") or {}
    if not isinstance(fillers, dict) or not all(isinstance(v, dict) for v in fillers.values()):
        raise PlanError("`fillers` must map names to {prompt, default}")
    final = data.get("final_message") or ""
    if not isinstance(final, str):
        raise PlanError("`final_message` must be text")
    pipelines = data.get("pipelines") or []
    if not isinstance(pipelines, list) or not all(isinstance(n, int) and 1 < n <= len(steps) for n in pipelines):
        raise PlanError("`pipelines` must list the steps that begin a new pipeline")
    return Plan(
        steps=tuple(steps),
        final_message=final,
        fillers={k: dict(v) for k, v in fillers.items()},
        pipelines=tuple(sorted(set(pipelines))),
    )


def of_steps(*steps: tuple[str, dict], final: str = "") -> Plan | None:
    """A plan the deterministic layers build (the cold path's kin, follow-ups), or None when it is
    not one."""
    try:
        return parse({"steps": [{"tool": t, "args": a} for t, a in steps], "final_message": final})
    except PlanError:
        return None


def references(value: Any) -> list[tuple[str, str, str]]:
    """Every placeholder in a value: (kind, target, path) with kind step|FILLER|RUNTIME|PARAM."""
    found = []
    for text in strings(value):
        for m in PLACEHOLDER.finditer(text):
            if m.group(1):
                found.append(("step", m.group(1), m.group(2).lstrip(".")))
            else:
                found.append((m.group(3), m.group(4), ""))
    return found


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def lookup(result: Any, path: str) -> Any:
    value = result
    for part in filter(None, path.split(".")):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise ResolveError(f"no field {path!r} in the result")
    return value


def render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return "\n".join(str(v) for v in value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


Lookup = Callable[[str, str, str], Any]


def resolve(value: Any, source: Lookup) -> Any:
    """Replace placeholders using `source(kind, target, path)`."""
    if isinstance(value, dict):
        return {k: resolve(v, source) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, source) for v in value]
    if not isinstance(value, str):
        return value
    whole = PLACEHOLDER.fullmatch(value)
    if whole:
        return source(*_parts(whole))
    return PLACEHOLDER.sub(lambda m: render(source(*_parts(m))), value)


def _parts(m: re.Match) -> tuple[str, str, str]:
    if m.group(1):
        return "step", m.group(1), m.group(2).lstrip(".")
    return m.group(3), m.group(4), ""
