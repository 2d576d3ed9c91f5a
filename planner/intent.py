"""Deterministic intent: the request's verb, its object and its keywords, in English or Italian,
without a model. When no verb is recognised the intent is not confident, and the engine may ask
the fast tier (it never has to)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from core.ir import ChatRequest, Message, SystemPrompt
from planner import lexicon, llm
from planner.text import STOPWORDS, fold, stems, words
from routing.registry import ModelConfig

# The verbs and objects, in English and Italian, are data (planner/canonical.yaml) that the
# parameter extractor, the pre-filter and plan memory's canonical form read too.
VERBS: dict[str, tuple[str, ...]] = lexicon.verbs()
OBJECTS: dict[str, tuple[str, ...]] = lexicon.objects()
# The executors' verb prefixes that serve each intent verb.
TOOL_VERBS: dict[str, tuple[str, ...]] = {
    "read": ("read", "list"),  # "show me what is in the folder docs" lists it
    "write": ("write",),
    "list": ("list", "find", "read"),
    "find": ("find", "grep"),
    "count": ("find", "grep", "list", "read"),  # "how many lines does todo.txt have?" reads it
    "fetch": ("get",),
    "run": ("run",),
    "compute": ("compute",),
    "summarize": ("read", "write"),
    "tell": ("get",),
    "create": ("create", "write", "make"),
    "delete": ("delete",),
    "send": ("send", "reply"),
    "reply": ("reply", "send"),
    "move": ("move",),
    "set": ("set", "change", "edit"),
    "convert": ("change",),
    "sort": ("sort",),
    "filter": ("filter",),
    "share": ("share",),
    "compress": ("compress",),
    "undo": ("undo",),
}
# The operations plan memory's canonical form names that no intent verb does (planner/canonical.yaml:
# the "v:remember" phrases, and a schedule, which is a value of its own), and the tools that do them.
OPERATION_TOOLS: dict[str, tuple[str, ...]] = {
    "remember": ("memory_add",),
    "schedule": ("schedule_recurring",),
    "pause": ("toggle_recurring",),  # "put weekly-report on hold"
    "resume": ("toggle_recurring",),  # «riattiva report-mensile»
}


def _lexicon(table: dict[str, tuple[str, ...]]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    single, phrases = {}, []
    for label, terms in table.items():
        for term in terms:
            if " " in term:
                phrases.append((fold(term), label))
            elif term.startswith("="):
                single.setdefault(fold(term), label)  # looked up as "=" + the word itself
            else:
                for stem in stems(fold(term)):
                    single.setdefault(stem, label)
    return single, phrases


_VERB_STEMS, _VERB_PHRASES = _lexicon(VERBS)
_OBJECT_STEMS, _OBJECT_PHRASES = _lexicon(OBJECTS)


@dataclass(frozen=True)
class Intent:
    verb: str | None
    object: str | None
    keywords: tuple[str, ...] = ()
    verbs: tuple[str, ...] = field(default=())  # every verb found, in order

    @property
    def confident(self) -> bool:
        return self.verb is not None

    @property
    def tool_verbs(self) -> tuple[str, ...]:
        return tuple(v for verb in self.verbs for v in TOOL_VERBS.get(verb, ()))


def _find(text: str, tokens: list[str], single: dict[str, str], phrases: list[tuple[str, str]]) -> list[str]:
    found: list[tuple[int, str]] = []
    for phrase, label in phrases:
        at = text.find(phrase)
        if at >= 0:
            found.append((at, label))
    offset = 0
    for token in tokens:
        at = text.find(token, offset)
        offset = max(offset, at)
        if "=" + token in single:
            found.append((at, single["=" + token]))
            continue
        for stem in stems(token):
            if stem in single:
                found.append((at, single[stem]))
                break
    ordered, seen = [], set()
    for _, label in sorted(found):
        if label not in seen:
            seen.add(label)
            ordered.append(label)
    return ordered


# "again" is no verb: «cerca di nuovo TODO» searches, it does not create («nuovo»).
_AGAIN = re.compile(r"\b(?:di nuovo|once again|da capo)\b")


def extract(text: str) -> Intent:
    folded = _AGAIN.sub(" ", fold(text))
    tokens = words(folded)
    verbs = _find(folded, tokens, _VERB_STEMS, _VERB_PHRASES)
    objects = _find(folded, tokens, _OBJECT_STEMS, _OBJECT_PHRASES)
    keywords = tuple(dict.fromkeys(t for t in tokens if t not in STOPWORDS and len(t) > 1))
    return Intent(
        verb=verbs[0] if verbs else None, object=objects[0] if objects else None, keywords=keywords, verbs=tuple(verbs)
    )


# The kinds of step each verb needs. Counting is about what finding returns (its count), so it
# is a find; a summary is a read and then a write.
STEP_KINDS: dict[str, tuple[str, ...]] = {
    "read": ("read",),
    "write": ("write",),
    "list": ("list",),
    "find": ("find",),
    "count": ("find",),
    "fetch": ("fetch",),
    "run": ("run",),
    "compute": ("compute",),
    "summarize": ("read", "write"),
    "tell": ("tell",),
    "create": ("write",),
    "delete": ("delete",),
    "send": ("send",),
    "reply": ("send",),
    "move": ("move",),
    "set": ("set",),
    "convert": ("convert",),
    "sort": ("sort",),
    "filter": ("filter",),
    "share": ("share",),
    "compress": ("compress",),
    "undo": ("undo",),
    # plan memory's own operations (OPERATION_TOOLS); pausing and resuming use one tool with
    # opposite arguments, so neither is ever the other's plan
    "remember": ("remember",),
    "schedule": ("schedule",),
    "pause": ("pause",),
    "resume": ("resume",),
}


def step_kinds(verbs) -> set[str]:
    return {kind for verb in verbs for kind in STEP_KINDS.get(verb, ())}


INTENT_MAX_TOKENS = 30


def intent_schema() -> dict:
    return {
        "type": "object",
        "properties": {"verb": {"enum": [*VERBS, "none"]}, "object": {"enum": [*OBJECTS, "none"]}},
        "required": ["verb", "object"],
    }


def ask_model(text: str, found: Intent, model: ModelConfig, *, ids: dict, user_id: int | None):
    """When no verb was recognised, one short fast-tier call picks the verb and object from the
    same closed lists the deterministic pass uses (schema-constrained where the model allows).
    A failed call or a reply outside the lists keeps the deterministic intent.
    Returns the intent and the call's result (for the turn's tally)."""
    prompt = (
        'Classify the request. Reply with JSON {"verb": V, "object": O}. '
        f"Verbs: {', '.join(VERBS)}, none. Objects: {', '.join(OBJECTS)}, none."
    )
    request = ChatRequest(
        model=model.api_model,
        system=SystemPrompt(stable=prompt),
        messages=(Message.text("user", text[:2000]),),
        max_tokens=INTENT_MAX_TOKENS,
        temperature=0.0,
        response_format={"type": "json_object", "schema": intent_schema()}
        if model.supports_structured_output
        else None,
    )
    result = llm.call(request, model, role="worker", ids=ids, user_id=user_id)
    if not result.ok:
        return found, result
    try:
        reply = json.loads(result.text[result.text.find("{") : result.text.rfind("}") + 1])
    except ValueError:
        return found, result
    verb = reply.get("verb") if isinstance(reply, dict) else None
    obj = reply.get("object") if isinstance(reply, dict) else None
    if verb not in VERBS:
        return found, result
    obj = found.object or (obj if obj in OBJECTS else None)
    return Intent(verb=verb, object=obj, keywords=found.keywords, verbs=(verb,)), result
