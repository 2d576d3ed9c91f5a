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
  A plan the deterministic layers build may hold several pipelines (`Plan.pipelines`, planner.compound:
  "make the folder a and move b.md into it"); the shape then holds for each. A model's plan is one.
A step with literal arguments needs no source: "write 'hi' to a.txt" is a plan of one A, and
"what is 3 * 7" a plan of one F.

Given the request (`request_text`, and the workspace so that a plain word naming something in it
counts), two more rules reject a plan before anything runs:
- invented_target: a step that writes, moves or deletes (capability fs:write) targets a path the
  request does not name. Named: a path or glob typed in the request (a quoted name that looks like
  a path, an identifier that exists in the workspace, the word after "folder": «crea la cartella
  docs»), a value derived from its words (planner.object_kinds: "markdown files" → *.md, "my
  files" → the root), or a named name inside a named folder ("move notes/a.md into archive/" →
  archive/a.md). Every path-format argument counts: an edit's file, a move's paths and
  destination, a delete's paths, the folders to make. A target taken from an
  earlier step's result (`${step1.entries.0.path}`) is named when that step's own target is
  (the folder or glob it searched, the file it read); one from a filler or the runtime never is.
  (Paths the conversation names will count too, once the follow-up layer passes them here.)
- off_intent: a step whose tool does not serve the request. An acting tool (category A) needs a
  verb of the request that serves it (planner.intent.TOOL_VERBS), an operation its canonical form
  names (planner.canonical, the form plan memory keys by: «segnati che …» remembers, «tutti i
  giorni alle 9» schedules), a word of its own (its name or affinity, outside the request's typed
  values: "do the same for todo.txt" does not name todo_update), or a destination the request
  names (a delete or a move needs a verb or an affinity word: "read notes/a.md" names the file and
  "read the files" says "files", and neither asks for a deletion). A reading or transforming tool
  is rejected only when the intent is confident and names an object the tool does not work on
  («che ore sono?» → read_files), the request never mentions the tool nor asks for it in its
  canonical form ("list the python scripts" finds *.py, though the intent reads "script" as a
  command), gives no value of a kind it takes, and the step takes nothing from an earlier one.
  With no object in the intent, the tool must serve one of its verbs instead."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from planner import canonical, object_kinds, own_objects
from planner import params as P
from planner.catalog import Catalog, Executor
from planner.cold_request import INSIDE
from planner.intent import OPERATION_TOOLS, TOOL_VERBS, Intent, extract
from planner.plan import PLACEHOLDER, RUNTIME_KEYS, Plan, Step, references, strings
from planner.text import STOPWORDS, fold, stems, words

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


def validate(
    plan: Plan,
    catalog: Catalog,
    *,
    allowed: set[str] | None = None,
    request_text: str | None = None,
    workspace: Path | None = None,
    request: Request | None = None,
) -> list[Problem]:
    """The plan's problems. With `request_text` (or the `request` already read from it: plan
    memory's probe keeps one), also what it would do that the request did not ask for
    (invented_target, off_intent); without either those rules are not checked."""
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
            fed = "paths" in executor.args_schema.get("properties", {})
            args.update({"paths": [f"${{step{from_step}.entries}}"]} if fed else {"entries": []})
        for message in _check_refs(step.args, index, plan, catalog):
            problems.append(Problem(index, "bad_reference", message))
        deferred = _placeholder_paths(args)
        for error in executor.validator.iter_errors(args):
            if tuple(error.path) in deferred or any(tuple(error.path)[: len(p)] == p for p in deferred):
                continue
            where = ".".join(str(p) for p in error.path) or "args"
            problems.append(Problem(index, "invalid_args", f"{where}: {error.message}"))
        # The shape: E+ (F|A)?, of each pipeline
        if index in plan.pipelines:
            closed_by = None
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
    if request is None and request_text is not None:
        request = Request.of(request_text, workspace)
    if request is not None:
        problems += _unasked(plan, catalog, request)
    return problems


# Schema formats of the arguments that name a workspace target.
PATH_FORMATS = frozenset({"file", "folder", "path", "glob"})
# What a tool's name says it works on, as the intent's objects, and the typed values it takes.
_NAME_OBJECTS = {"files": ("files", "lines", "folder"), "urls": ("web",), "time": ("time",),
                 "shell": ("command",), "compute": ("numbers",)}  # fmt: skip
_NAME_VALUES = {"files": ("path", "glob", "ext"), "urls": ("url",), "time": ("datetime",), "compute": ("number",)}
# "a folder called docs", «la cartella progetti»: the word after the noun is the folder's name.
_FOLDER_NAMED = re.compile(
    r"\b(?:folder|directory|cartella)(?:\s+nuova\s*,?)?\s+(?:(?P<called>called|named|chiamata|di nome)\s+)?"
    r"[`'\"«]?(?P<name>[\w][\w.-]*/?)",
    re.IGNORECASE,
)
_NOT_NAMES = STOPWORDS | {"inside", "within", "under", "below", "dentro", "sotto"}


def normalized(path: str) -> str:
    """One target for "./notes/", "notes/" and "notes"; "", "." and "./" are the root."""
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/") or "."


@dataclass(frozen=True)
class Request:
    """What a plan is checked against: the targets the request names, its intent, and the words
    it says outside its typed values."""

    named: frozenset[str]  # normalized
    types: frozenset[str]  # of its typed values
    intent: Intent
    text: str  # folded, typed values blanked
    stems: frozenset[str]
    operations: frozenset[str] = frozenset()  # the tools (verb prefixes, names) its canonical form asks for

    @classmethod
    def of(
        cls,
        text: str,
        workspace: Path | None = None,
        *,
        extraction: P.Extraction | None = None,
        form: canonical.Canonical | None = None,
    ) -> Request:
        """`extraction` (P.extract) and `form` (canonical.of) of the same text and workspace, when
        the caller has them already."""
        extraction = extraction or P.extract(text, workspace)
        named = {normalized(value) for value in object_kinds.derived_values(text)}
        for v in extraction.values:
            if v.type in ("path", "glob") or (v.type in ("quoted", "identifier") and _names_a_file(v.text, workspace)):
                named.add(normalized(v.text))
        for m in _FOLDER_NAMED.finditer(text):
            if fold(m.group("name")) not in _NOT_NAMES or m.group("called"):  # "a folder called done"
                named.add(normalized(m.group("name")))
            if inside := re.match(INSIDE, text[m.end() :], re.IGNORECASE):  # «cartella foto dentro viaggi»
                named.add(normalized(f"{inside.group(1).rstrip('/')}/{m.group('name')}"))
        named |= {normalized(name) for name in object_kinds.listed_folders(text.lower())}  # "two folders: a and b"
        rest = fold(re.sub(r"<\w+:\d+>", " ", extraction.masked))
        # The agent's memory as the request's own object asks for it: "I don't eat pasta anymore".
        own = own_objects.find(fold(text).strip(), extraction, definition=False)
        memory = {own[0]} if own and own[0].startswith("memory_") else set()
        return cls(
            named=frozenset(named),
            types=frozenset(v.type for v in extraction.values),
            intent=extract(text),
            text=f" {' '.join(words(rest))} ",
            stems=frozenset(s for w in words(rest) if w not in STOPWORDS for s in stems(w)),
            operations=_operations(form or canonical.of(text, workspace)) | memory,
        )

    def says(self, term: str) -> bool:
        """Whether the request says a word or phrase (a tool's name part or affinity tag)."""
        term = fold(term)
        if " " in term or "-" in term:
            return f" {' '.join(words(term))} " in self.text
        return term not in STOPWORDS and bool(set(stems(term)) & self.stems)


def _operations(form: canonical.Canonical) -> frozenset[str]:
    """The tools that do what the request's canonical form (planner.canonical) says it asks: its
    verbs through planner.intent.TOOL_VERBS, a fact to remember and a schedule through
    OPERATION_TOOLS. Plan memory keys a request by that form, so a plan it serves for «segnati
    che …», "make a note that …" or «tutti i giorni alle 9 …» must not then be refused here for a
    verb the intent extractor does not know. A typed value is masked first: a file named
    'delete.txt' asks for no deletion."""
    tokens = form.tokens
    asked = {t[2:] for t in tokens if t.startswith("v:")} | ({"schedule"} if "<schedule>" in tokens else set())
    return frozenset(tool for op in asked for tool in (*TOOL_VERBS.get(op, ()), *OPERATION_TOOLS.get(op, ())))


def _names_a_file(text: str, workspace: Path | None) -> bool:
    """A quoted value or an identifier is a target when it reads as one: "'notes.txt'", `README`
    when the workspace has it. "'buy milk'" is content, not a file name."""
    if not text or any(c.isspace() for c in text):
        return False
    suffix = Path(text).suffix
    if "/" in text or (suffix and object_kinds.is_file_extension(suffix)):
        return True
    return workspace is not None and (workspace / text).exists()


def _target_args(executor: Executor) -> list[str]:
    def fmt(schema: dict) -> str | None:
        return schema.get("format") or (schema.get("items") or {}).get("format")

    return [k for k, s in executor.args_schema.get("properties", {}).items() if fmt(s) in PATH_FORMATS]


def _literals(value) -> list[str]:
    return [v for v in ([value] if isinstance(value, str) else value if isinstance(value, list) else [])
            if isinstance(v, str) and v.strip()]  # fmt: skip


def _named(value: str, index: int, plan: Plan, catalog: Catalog, request: Request) -> bool:
    """Whether a target value of step `index` is one the request names (see the module docstring)."""
    refs = references(value)
    if not refs:
        target = normalized(value)
        folder, _, name = target.rpartition("/")
        return (
            target in request.named
            or (bool(folder) and folder in request.named and any(n.rsplit("/", 1)[-1] == name for n in request.named))
            or (  # "rename docs/a.md to b.md": the bare new name, beside the file named
                bool(folder) and name in request.named and any(n.rpartition("/")[0] == folder for n in request.named)
            )
        )
    for kind, target, _ in refs:
        if kind == "PARAM":  # bound from the request by plan memory
            continue
        if kind != "step" or not 1 <= int(target) < index:
            return False
        if not _source_named(plan.steps[int(target) - 1], int(target), plan, catalog, request):
            return False
    return True


def _source_named(step: Step, index: int, plan: Plan, catalog: Catalog, request: Request) -> bool:
    executor = catalog.get(step.tool)
    if executor is None:
        return False
    values = [v for key in _target_args(executor) for v in _literals(step.args.get(key))]
    if not values:  # the tool's default, the root: named by "my files"
        return "." in request.named
    return any(_named(v, index, plan, catalog, request) for v in values)


def _mentioned(executor: Executor, request: Request) -> bool:
    return any(request.says(term) for term in (*executor.name.split("_"), *executor.affinity))


def _asked_for(executor: Executor, request: Request) -> bool:
    return executor.name in request.operations or executor.name.split("_")[0] in request.operations


def _unasked(plan: Plan, catalog: Catalog, request: Request) -> list[Problem]:
    problems = []
    for index, step in enumerate(plan.steps, 1):
        executor = catalog.get(step.tool)
        if executor is None:
            continue
        targets = [v for key in _target_args(executor) for v in _literals(step.args.get(key))]
        if "fs:write" in executor.capabilities:
            for value in targets:
                if not _named(value, index, plan, catalog, request):
                    problems.append(Problem(index, "invented_target", (
                        f"{step.tool} would change {value!r}, which the request does not name; "
                        "act only on a path the request names, or ask which one")))  # fmt: skip
        if not _serves(step, executor, index, targets, plan, catalog, request):
            asked = " ".join(filter(None, (request.intent.verb, request.intent.object))) or "none"
            problems.append(Problem(index, "off_intent", (
                f"{step.tool} does not serve this request (intent: {asked}); "
                "use a tool that does, or answer in words")))  # fmt: skip
    return problems


# Acting tools that neither a named file nor a word of their name ("files") is enough for: the
# request must ask for what they do, in a verb or one of their affinity words.
_ASKED_ONLY = frozenset({"delete", "move"})


def _serves(
    step: Step, executor: Executor, index: int, targets: list[str], plan: Plan, catalog: Catalog, request: Request
) -> bool:
    parts = executor.name.split("_")
    if executor.category == "A":
        if parts[0] in request.intent.tool_verbs or _asked_for(executor, request):
            return True
        if parts[0] in _ASKED_ONLY:  # "read notes/a.md" names the file, "read the files" says "files"
            return any(request.says(term) for term in executor.affinity)
        if _mentioned(executor, request):
            return True
        return any(_named(v, index, plan, catalog, request) for v in targets)  # "put 'x' in todo.txt"
    intent = request.intent
    if not intent.confident or references(step.args) or "from_step" in step.args:
        return True
    if intent.object is None:  # «che ore sono?»: the verb alone says what the request is about
        fits = parts[0] in intent.tool_verbs
    else:
        fits = intent.object in {o for part in parts for o in _NAME_OBJECTS.get(part, ())}
    takes = {t for part in parts for t in _NAME_VALUES.get(part, ())}
    return fits or bool(takes & request.types) or _asked_for(executor, request) or _mentioned(executor, request)
