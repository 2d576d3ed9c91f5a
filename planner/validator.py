"""L2: is a proposed plan executable before anything runs?

- every tool exists in the catalog;
- args fit the tool's JSON Schema (a field holding a placeholder is checked when it resolves);
- `${stepN.field}` and `from_step` point to an earlier step and to a field that step returns;
  fillers are declared, runtime keys are known;
- the shape holds: E+ (F|A)?, i.e. extracting steps, then at most one closing step, with
  three error classes:
  - pipeline_already_closed: a step follows a transform (F) or an action (A);
  - needs_data_source: a transform (F) with nothing extracted before it and no literal input;
  - needs_action_target: an action (A) whose target (a path, a command) is empty.
A step with literal arguments needs no source: "write 'hi' to a.txt" is a plan of one A, and
"what is 3 * 7" a plan of one F."""

from __future__ import annotations

from dataclasses import dataclass

from planner.catalog import Catalog
from planner.plan import PLACEHOLDER, RUNTIME_KEYS, Plan, references, strings

TARGET_ARGS = ("path", "paths", "command", "urls", "pattern")


@dataclass(frozen=True)
class Problem:
    step: int  # 0 for the final message
    error_class: str  # unknown_tool | invalid_args | bad_reference | needs_data_source | ...
    message: str

    @property
    def blocking(self) -> bool:
        """A problem in a step stops the plan; one in the final message does not: the steps can
        still run, and the answer then shows their result instead of the message."""
        return self.step != 0

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step else "final_message"
        return f"{where}: {self.error_class}: {self.message}"


def _placeholder_paths(args: dict, prefix: tuple = ()) -> set[tuple]:
    paths = set()
    for key, value in args.items():
        here = (*prefix, key)
        if isinstance(value, str) and PLACEHOLDER.search(value):
            paths.add(here)
        elif isinstance(value, dict):
            paths |= _placeholder_paths(value, here)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str) and PLACEHOLDER.search(item):
                    paths.add((*here, i))
                elif isinstance(item, dict):
                    paths |= _placeholder_paths(item, (*here, i))
    return paths


def _check_refs(value, index: int, plan: Plan, catalog: Catalog) -> list[str]:
    errors = []
    for kind, target, path in references(value):
        if kind == "step":
            n = int(target)
            if not 1 <= n < index:
                errors.append(f"${{step{n}}} must point to an earlier step")
                continue
            source = catalog.get(plan.steps[n - 1].tool)
            first = path.split(".")[0] if path else ""
            if source is not None and first and source.outputs and first not in source.outputs:
                errors.append(
                    f"step {n} ({source.name}) returns no field {first!r}; it returns {', '.join(source.outputs)}"
                )
        elif kind == "FILLER" and target not in plan.fillers:
            errors.append(f"filler {target!r} is not declared in `fillers`")
        elif kind == "RUNTIME" and target not in RUNTIME_KEYS:
            errors.append(f"unknown runtime key {target!r}; known: {', '.join(RUNTIME_KEYS)}")
    return errors


def validate(plan: Plan, catalog: Catalog, *, allowed: set[str] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    closed_by: int | None = None
    extracted = False
    for index, step in enumerate(plan.steps, 1):
        executor = catalog.get(step.tool)
        if executor is None or executor.category == "T" or (allowed is not None and step.tool not in allowed):
            problems.append(Problem(index, "unknown_tool", f"no tool {step.tool!r} is available"))
            continue
        args = dict(step.args)
        from_step = args.pop("from_step", None)
        if from_step is not None:
            if not isinstance(from_step, int) or not 1 <= from_step < index:
                problems.append(Problem(index, "bad_reference", "from_step must name an earlier step"))
            args["entries"] = []
        for message in _check_refs(step.args, index, plan, catalog):
            problems.append(Problem(index, "bad_reference", message))
        deferred = _placeholder_paths(args)
        for error in executor.validator.iter_errors(args):
            if tuple(error.path) in deferred or any(tuple(error.path)[: len(p)] == p for p in deferred):
                continue
            where = ".".join(str(p) for p in error.path) or "args"
            problems.append(Problem(index, "invalid_args", f"{where}: {error.message}"))
        # The shape: E+ (F|A)?
        if closed_by is not None:
            problems.append(
                Problem(
                    index,
                    "pipeline_already_closed",
                    f"step {closed_by} already closed the pipeline; nothing may follow it",
                )
            )
        literal = bool(args) and not any(PLACEHOLDER.search(v) for v in strings(args))
        if executor.category == "F" and not extracted and not literal:
            problems.append(
                Problem(index, "needs_data_source", f"{step.tool} transforms data, but no step gets any first")
            )
        if executor.category == "A":
            targets = [args.get(k) for k in TARGET_ARGS if k in executor.args_schema.get("properties", {})]
            if targets and all(t in (None, "", []) for t in targets):
                problems.append(
                    Problem(index, "needs_action_target", f"{step.tool} needs a target ({'/'.join(TARGET_ARGS)})")
                )
        if executor.category == "E":
            extracted = True
        elif executor.category in ("F", "A"):
            closed_by = closed_by or index
    for message in _check_refs(plan.final_message, len(plan.steps) + 1, plan, catalog):
        problems.append(Problem(0, "bad_reference", message))
    return problems
