"""Whether plan memory may keep a plan: every literal it carries must be one the request
justifies, so a remembered plan never repeats what the model made up ("Done: wrote hiiuaiyut").

After planner.params.parametrize has turned the request's typed values into slots, each literal
left in a step's arguments must be one of:
- derived from the request's words by a known rule (planner.object_kinds: "markdown files" →
  `*.md`, "my files" → the root; a percentage divides by 100);
- a tool constant: a boolean, a value of the schema's enum or its default, a number the schema
  does not require (tail_lines, limit);
- text whose every word the request says (stop-words aside), or, for a tool that only reads or
  transforms, a word of the tool's own manifest (compute's `mean`, get_time's `UTC`). Text an
  acting tool writes (a file's content, a memory, a todo) must come from the request or from an
  earlier step: a poem the model wrote is not learnable, nor is a number in a string that the
  request did not give;
- a path, folder or glob argument: only a slot, a derived value, an earlier step's result, or a
  value with no name in it (".", the root; "*", everything).
The final message and fillers are the answer's wording, made again at each run: not checked.
Values the conversation gives (the next issue's follow-up layer) will count as the request's."""

from __future__ import annotations

import re
from typing import Any

from planner import object_kinds
from planner import params as P
from planner.catalog import Catalog, Executor, catalog
from planner.plan import PLACEHOLDER
from planner.text import STOPWORDS, fold, stems, words
from planner.validator import PATH_FORMATS, normalized

_SLOT = re.compile(r"<\w+:\d+>")


class _Said:
    """What the (masked) request says in words, and what it gives by a known rule. The words of
    its quoted values count too: a schedule named "check inbox" for «'check inbox.md'» (and such a
    plan is served only to a request whose own values say them, planner.memory.probe.admit)."""

    def __init__(self, masked: str, quoted: tuple[str, ...] = ()):
        plain = fold(_SLOT.sub(" ", masked))
        self.words = set(words(plain)) | {w for text in quoted for w in words(text) if not w.isdigit()}
        self.stems = {s for w in self.words for s in stems(w)}
        self.derived = {normalized(v) for v in object_kinds.derived_values(plain)}
        self.percent = "%" in plain or bool(self.words & {"percent", "percento", "cento"})

    def says(self, word: str, vocabulary: frozenset[str]) -> bool:
        if word.isdigit():
            return word in self.words
        return word in STOPWORDS or word in self.words or bool(set(stems(word)) & (self.stems | vocabulary))


_VOCABULARIES: dict[tuple[str, str], frozenset[str]] = {}


def _vocabulary(executor: Executor) -> frozenset[str]:
    """The words of a tool's own manifest: its description, tags, and its args' descriptions and
    enums. Kept per executor version: every lookup that admits a plan checks it again."""
    cached = _VOCABULARIES.get((executor.name, executor.digest))
    if cached is None:
        cached = _VOCABULARIES[(executor.name, executor.digest)] = _manifest_words(executor)
    return cached


def _manifest_words(executor: Executor) -> frozenset[str]:
    texts = [executor.description, *executor.affinity]

    def walk(schema: Any) -> None:
        if isinstance(schema, dict):
            texts.extend(str(schema[k]) for k in ("description", "enum", "default") if k in schema)
            for value in schema.values():
                walk(value)

    walk(executor.args_schema.get("properties", {}))
    return frozenset(s for text in texts for w in words(text) if not w.isdigit() for s in stems(w))


def _check(value: Any, schema: dict, required: bool, where: str, said: _Said, vocabulary: frozenset[str]) -> list[str]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, dict):
        inner, needed = schema.get("properties", {}), set(schema.get("required", ()))
        return [r for k, v in value.items() for r in _check(v, inner.get(k, {}), k in needed, f"{where}.{k}", said,
                                                            vocabulary)]  # fmt: skip
    if isinstance(value, list):
        items = schema.get("items", {})
        return [r for i, v in enumerate(value) for r in _check(v, items, required, f"{where}.{i}", said, vocabulary)]
    if value in schema.get("enum", ()) or ("default" in schema and value == schema["default"]):
        return []
    if isinstance(value, int | float):
        return [f"{where}: {value!r} is not in the request"] if required else []
    if not isinstance(value, str):
        return []
    rest = PLACEHOLDER.sub(" ", value)
    if schema.get("format") in PATH_FORMATS:
        if any(m.group(3) in ("FILLER", "RUNTIME") for m in PLACEHOLDER.finditer(value)):
            return [f"{where}: {value!r} is made up at run time, not named by the request"]
        # A slot or an earlier step's result with at most punctuation around it ("*${PARAM:ext_1}"),
        # a value with no name in it ("." the root, "*" everything), or one derived from the words.
        ok = not any(c.isalnum() for c in rest) or normalized(value) in said.derived
        return [] if ok else [f"{where}: the request does not name {value!r}"]
    if said.percent:  # "15% of 200" is 15 / 100 * 200: the division by 100 is what "%" says
        rest = re.sub(r"/\s*100(?![\d.])", " ", rest)
    unsaid = [w for w in words(rest) if not said.says(w, vocabulary)]
    return [f"{where}: {', '.join(unsaid[:5])!s} not in the request"] if unsaid else []


def unjustified(template: dict, masked_request: str, catalog: Catalog, quoted: tuple[str, ...] = ()) -> list[str]:
    """One reason for each literal of a parametrized plan that the request does not justify;
    empty when the plan is learnable. `quoted`: the request's quoted values. A step whose tool the
    catalog lacks is left to the ager."""
    said = _Said(masked_request, quoted)
    reasons: list[str] = []
    for index, step in enumerate(template.get("steps", []), 1):
        executor = catalog.get(step.get("tool"))
        if executor is None:
            continue
        vocabulary = frozenset() if executor.category == "A" else _vocabulary(executor)
        schema = executor.args_schema
        inner, needed = schema.get("properties", {}), set(schema.get("required", ()))
        for key, value in (step.get("args") or {}).items():
            if key != "from_step":
                reasons += _check(value, inner.get(key, {}), key in needed, f"step {index} {key}", said, vocabulary)
    return reasons


def learnable(plan: dict, extraction: P.Extraction, catalog: Catalog) -> tuple[dict, dict[str, dict]]:
    """The plan parametrized (planner.params.parametrize) when every literal left is justified;
    raises planner.params.NotLearnable with the reasons otherwise."""
    template, slots = P.parametrize(plan, extraction)
    reasons = unjustified(template, extraction.masked, catalog, quoted_values(extraction))
    if reasons:
        raise P.NotLearnable("not justified by the request: " + "; ".join(reasons[:3]))
    return template, slots


def quoted_values(extraction: P.Extraction) -> tuple[str, ...]:
    return tuple(v.text for v in extraction.values if v.type == "quoted")


def prune(fastpaths, autopaths) -> int:
    """Delete the learned entries (not seeds) whose plan carries a literal the request does not
    justify. Takes the models, so a migration can pass its historical ones. Idempotent."""
    removed = 0
    for model in (fastpaths, autopaths):
        learned = model.objects.exclude(source="seed").only("id", "plan", "masked_request")
        if not learned.exists():
            continue  # an empty memory needs no catalog
        current = catalog()
        doomed = [e.pk for e in learned.iterator() if unjustified(e.plan, e.masked_request, current)]
        if doomed:
            removed += model.objects.filter(pk__in=doomed).delete()[0]
    return removed
