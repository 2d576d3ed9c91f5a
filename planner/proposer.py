"""L3 proposer: ONE model call returns the whole plan.

The prompt carries what even a very small model needs: only the pre-filtered candidate tools
with their argument schemas, the extracted intent, and one short example chosen for the
request's verb. Where the provider supports it, decoding is constrained by a JSON Schema in
which the tool name is an enum of the candidates and each tool's args follow its own schema."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from core.ir import ChatRequest, Message, SystemPrompt
from planner import conversation, llm
from planner import params as P
from planner.catalog import Executor
from planner.intent import Intent, step_kinds
from planner.plan import Plan, PlanError, parse
from routing.registry import ModelConfig

MAX_CANDIDATES = 6
GRAMMAR_MAX_ITEMS = 3
# Free text in a grammar-decoded plan: no quote or backslash (a small model does not escape them,
# and the JSON breaks), no newline, and no `&` (SmolLM2 drifts into HTML entities, `&#34;`).
PLAIN_TEXT = '^[^"\\\\&\\n]*$'

EXAMPLES: dict[str, tuple[str, dict]] = {
    "read": (
        "show the last 2 lines of notes/todo.md",
        {
            "steps": [{"tool": "read_files", "args": {"paths": ["notes/todo.md"], "tail_lines": 2}}],
            "final_message": "${step1.entries.0.content}",
        },
    ),
    "find": (
        "find the .txt files in docs",
        {
            "steps": [{"tool": "find_files", "args": {"pattern": "*.txt", "path": "docs"}}],
            "final_message": "Found ${step1.count} files.",
        },
    ),
    "count": (
        "how many .csv files are there?",
        {
            "steps": [{"tool": "find_files", "args": {"pattern": "*.csv"}}],
            "final_message": "There are ${step1.count} matching files.",
        },
    ),
    "list": (
        "list the files in docs",
        {"steps": [{"tool": "list_files", "args": {"path": "docs"}}], "final_message": "${step1.count} entries."},
    ),
    "write": (
        "save 'buy milk' to todo.txt",
        {
            "steps": [{"tool": "write_files", "args": {"path": "todo.txt", "content": "buy milk"}}],
            "final_message": "Saved ${step1.path}.",
        },
    ),
    "summarize": (
        "write a summary of notes/a.md to summary.md",
        {
            "steps": [
                {"tool": "read_files", "args": {"paths": ["notes/a.md"]}},
                {"tool": "write_files", "args": {"path": "summary.md", "content": "${FILLER:summary}"}},
            ],
            "fillers": {
                "summary": {
                    "prompt": "Summarize in two sentences: ${step1.entries.0.content}",
                    "default": "${step1.entries.0.content}",
                }
            },
            "final_message": "Wrote the summary to ${step2.path}.",
        },
    ),
    "compute": (
        "what is the mean of 4, 8 and 15?",
        {
            "steps": [{"tool": "compute", "args": {"expression": "mean([4, 8, 15])"}}],
            "final_message": "The mean is ${step1.value}.",
        },
    ),
    "tell": (
        "what time is it in Rome?",
        {
            "steps": [{"tool": "get_time", "args": {"tz": "Europe/Rome"}}],
            "final_message": "It is ${step1.time} on ${step1.weekday} ${step1.date}.",
        },
    ),
    "fetch": (
        "fetch https://example.com/status",
        {
            "steps": [{"tool": "get_urls", "args": {"urls": ["https://example.com/status"]}}],
            "final_message": "${step1.entries.0.content}",
        },
    ),
    "run": (
        "run ls in the docs folder",
        {"steps": [{"tool": "run_shell", "args": {"command": "ls docs"}}], "final_message": "${step1.stdout}"},
    ),
}
_EXAMPLE_FOR_TOOL = {plan["steps"][0]["tool"]: verb for verb, (_, plan) in EXAMPLES.items()}


@dataclass(frozen=True)
class Proposal:
    plan: Plan | None
    raw: str
    result: llm.LLMResult
    problem: str = ""  # why no plan could be read from the reply


def grammar_friendly(schema, found: Mentions | None = None):
    """The args schema as a decoding grammar can take it. Length bounds unroll into one grammar
    rule per character (a maxLength of 4000 builds a grammar that crashes llama.cpp), and long
    arrays into nested options, so they are dropped or capped here; the validator still applies
    the manifest's full schema to the plan.

    With `found`, each string argument whose manifest declares a `format` (file, folder, path,
    glob, uri) is limited to what the request names of that kind: a small model then cannot
    invent a path, and where the request names one file, the plan uses that file. Arguments of a
    kind the request does not name stay free."""
    if isinstance(schema, list):
        return [grammar_friendly(item, found) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if found is not None and schema.get("type") == "string" and schema.get("format"):
        names = found.of_kind(schema["format"])
        if names:
            return {"enum": list(names)}
    out = {}
    for key, value in schema.items():
        if key in ("maxLength", "description", "format") or (key == "minLength" and value > 1):
            continue
        if key == "maxItems":
            value = min(value, GRAMMAR_MAX_ITEMS)
        out[key] = grammar_friendly(value, found)
    if out.get("type") == "string" and "pattern" not in out and "enum" not in out:
        out["pattern"] = PLAIN_TEXT
    return out


def step_variants(candidates: list[Executor], found: Mentions | None = None, *, fed: bool = False) -> list[dict]:
    """One schema per candidate, binding the tool's name to its own args: an enum of tools. With
    `fed` (a plan's steps), a tool that takes `paths` may instead take `from_step`: the files an
    earlier step listed."""
    variants = []
    for e in candidates:
        args = grammar_friendly(e.args_schema, found)
        if fed and "paths" in e.args_schema.get("properties", {}):
            args = {"anyOf": [args, _from_step(args)]}
        variants.append(
            {"type": "object", "properties": {"tool": {"const": e.name}, "args": args}, "required": ["tool", "args"]}
        )
    return variants


def _from_step(args: dict) -> dict:
    properties = {k: v for k, v in args.get("properties", {}).items() if k != "paths"}
    required = [k for k in args.get("required", []) if k != "paths"]
    return {**args, "properties": {**properties, "from_step": {"type": "integer", "minimum": 1}},
            "required": [*required, "from_step"]}  # fmt: skip


def plan_schema(candidates: list[Executor], found: Mentions | None, max_steps: int, *, fed: bool = False) -> dict:
    """The whole plan's schema. Its steps follow the pipeline shape the validator enforces,
    E+ (F|A)?: every step but the last must be an extractor (category E). The grammar holds that
    shape as one alternative per plan length, so a small model cannot write to a file before it
    has read what goes in it."""
    variants = step_variants(candidates, found, fed=fed)
    defs: dict = {"step": {"anyOf": variants}}
    extractors = [v for v, e in zip(variants, candidates, strict=True) if e.category == "E"]
    if extractors and max_steps > 1:
        defs["extract_step"] = {"anyOf": extractors}
        shapes: list[dict] = [{"type": "array", "prefixItems": [], "items": False}]  # no tool fits
        for length in range(1, max_steps + 1):
            items = [{"$ref": "#/$defs/extract_step"}] * (length - 1) + [{"$ref": "#/$defs/step"}]
            shapes.append({"type": "array", "prefixItems": items, "items": False})
        steps: dict = {"anyOf": shapes}
    else:
        steps = {"type": "array", "items": {"$ref": "#/$defs/step"}, "maxItems": max_steps}
    return {
        "type": "object",
        "properties": {"steps": steps, "final_message": {"type": "string", "pattern": PLAIN_TEXT}},
        "required": ["steps", "final_message"],
        "$defs": defs,
    }


def steps_needed(intent: Intent, model: ModelConfig) -> int:
    """The most steps the plan may have. A local model gets at most one step per kind of step the
    request's verbs need (read, then write: two), within its row's limit: a small model pads a
    plan with steps nobody asked for. Any other model, its row's limit (ModelConfig.plan_steps)."""
    if not model.is_local:
        return model.plan_steps
    return max(1, min(model.plan_steps, len(step_kinds(intent.verbs))))


@dataclass(frozen=True)
class Mentions:
    """Names the request mentions: files, a file extension, folders that exist in the workspace,
    globs and URLs."""

    files: tuple[str, ...] = ()
    extension: str = ""
    folders: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()

    def of_kind(self, kind: str) -> tuple[str, ...]:
        globs = self.globs or ((f"*.{self.extension}",) if self.extension else ())
        return {
            "file": self.files,
            "folder": self.folders,
            "path": self.files + self.folders,
            "glob": globs,
            "uri": self.urls,
        }.get(kind, ())


def mentions(text: str, workspace: Path | None) -> Mentions:
    """What the request names, from the same typed extraction plan memory masks requests with
    (planner.params): files (paths with an extension), folders that exist in the workspace,
    globs, a file extension and URLs."""
    found = P.extract(text, workspace)

    def of(kind: str) -> list[str]:
        return [v.text for v in found.values if v.type == kind]

    paths = of("path")
    files = tuple(dict.fromkeys(p for p in paths if Path(p).suffix and not p.endswith("/")))
    folders: tuple[str, ...] = ()
    if workspace is not None:
        folders = tuple(
            dict.fromkeys(p.strip("./") for p in paths if p.strip("./") and (workspace / p.strip("./")).is_dir())
        )
    extensions = [e.lstrip(".") for e in of("ext")]
    return Mentions(
        files,
        extensions[0] if extensions else "",
        folders,
        tuple(dict.fromkeys(of("glob"))),
        tuple(dict.fromkeys(of("url"))),
    )


def _adapt(plan: dict, found: Mentions) -> dict:
    """The example, with its names swapped for the ones this request mentions: a small model
    copies an example closely, so it had better show the request's own file or folder."""
    plan = copy.deepcopy(plan)
    files = list(found.files)
    for step in plan["steps"]:
        args = step["args"]
        if "paths" in args and files:
            args["paths"] = [files[0]]
        if step["tool"] == "write_files" and files:
            args["path"] = files[-1]
        if "pattern" in args and step["tool"] == "find_files" and found.extension:
            args["pattern"] = f"*.{found.extension}"
        if "path" in args and step["tool"] in ("find_files", "list_files"):
            if found.folders:
                args["path"] = found.folders[0]
            else:
                args.pop("path")
    return plan


def _example(intent: Intent, candidates: list[Executor], found: Mentions) -> tuple[str, dict] | None:
    names = {e.name for e in candidates}
    for verb in (*intent.verbs, *(_EXAMPLE_FOR_TOOL.get(e.name) for e in candidates)):
        if verb in EXAMPLES and EXAMPLES[verb][1]["steps"][0]["tool"] in names:
            question, plan = EXAMPLES[verb]
            return question, _adapt(plan, found)
    return None


def _arg_type(schema: dict) -> str:
    if schema.get("type") == "array":
        return f"list of {_arg_type(schema.get('items', {}))}"
    return schema.get("format") or schema.get("type") or "value"


def describe_tools(candidates: list[Executor]) -> str:
    """One line per tool, as a signature: `- read_files(paths: list of file, tail_lines?: integer)
    Read text files… Gives: entries, count`. The grammar already holds each argument's exact
    schema, and prompt tokens are what a local model spends its time on (about 270 a second on
    two cores), so the prompt stays short."""
    lines = []
    for e in candidates:
        required = set(e.args_schema.get("required", ()))
        args = ", ".join(
            f"{name}{'' if name in required else '?'}: {_arg_type(spec)}"
            for name, spec in e.args_schema.get("properties", {}).items()
        )
        lines.append(f"- {e.name}({args}) {e.description} Gives: {', '.join(e.outputs)}")
    return "\n".join(lines)


def build_prompt(
    request_text: str, intent: Intent, candidates: list[Executor], problems: list[str], workspace: Path | None = None
) -> str:
    tools = describe_tools(candidates)
    lines = [
        "You turn a request into a plan for tools that act on the user's workspace.",
        'Reply with one JSON object: {"steps": [{"tool": NAME, "args": {...}}], "final_message": TEXT}.',
        "Use only these tools:",
        tools,
        "A later step or the final_message can use an earlier result with ${stepN.FIELD},"
        " for example ${step1.count} or ${step1.entries.0.content}. A step that takes paths can instead take"
        ' "from_step": N, the files step N found or listed. Paths are relative to the workspace.',
        'If no tool fits, reply {"steps": [], "final_message": "<a short answer>"}.',
        f"Request intent: verb={intent.verb or 'unknown'}, object={intent.object or 'unknown'}.",
    ]
    found = mentions(request_text, workspace)
    named = [*found.files, *found.folders] + ([f"*.{found.extension}"] if found.extension else [])
    if named:
        lines.append(f"The request names: {', '.join(named)}.")
    example = _example(intent, candidates, found)
    if example:
        lines += ["Example of a plan of this kind:", json.dumps(example[1])]
    if problems:
        lines += [
            "Your previous plan could not be used:",
            *[f"- {p}" for p in problems],
            "Reply with a corrected plan.",
        ]
    return "\n".join(lines)


def extract_json(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start >= 0 and end > start else text


def propose(
    *,
    request_text: str,
    intent: Intent,
    candidates: list[Executor],
    model: ModelConfig,
    ids: dict,
    user_id: int | None,
    problems: list[str] | None = None,
    workspace: Path | None = None,
    slot: str = "",
    system: Callable[[str], SystemPrompt] = lambda base: SystemPrompt(stable=base),
    role: str = "planner",
    history: tuple[Message, ...] = (),
    summary: str = "",
) -> Proposal:
    """`system` frames the planning prompt with the workspace's instructions and memory; the
    session's earlier turns (`history`, `summary`) come before the request, fitted to the model's
    window (planner.conversation), so that "now save that to b.md" can be planned."""
    # A small model plans better from fewer options; the pre-filter put the likeliest first.
    candidates = candidates[:MAX_CANDIDATES]
    prompt = build_prompt(request_text, intent, candidates, problems or [], workspace)
    # from_step is offered to a model that plans more than a step or two (a local one pads plans with it).
    found = mentions(request_text, workspace)
    schema = plan_schema(candidates, found, steps_needed(intent, model), fed=not model.is_local)
    framed = system(prompt)
    schema_text = json.dumps(schema) if model.supports_structured_output else ""
    fitted = conversation.fit(history, request_text, model=model, reserved=model.budget("plan"),
                               fixed=framed.joined + schema_text, summary=summary)  # fmt: skip
    request = ChatRequest(
        model=model.api_model,
        system=framed,
        messages=fitted.messages,
        max_tokens=model.budget("plan"),
        temperature=0.0,
        response_format={"type": "json_object", "schema": schema} if model.supports_structured_output else None,
    )
    result = llm.call(request, model, role=role, ids=ids, user_id=user_id, slot=slot)
    if not result.ok:
        return Proposal(None, result.text, result, "the model call failed")
    try:
        # A model's plan is one pipeline, whatever it says (`pipelines` is the deterministic layers').
        return Proposal(replace(parse(extract_json(result.text)), pipelines=()), result.text, result)
    except PlanError as exc:
        return Proposal(None, result.text, result, str(exc))
