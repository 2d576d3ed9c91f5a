"""What both layers of plan memory share: the request as memory sees it (Probe), a recalled plan
(Recall), the guards that admit one, and the fields a remembered plan keeps (L0 in
planner.memory.fastpath, L1 in planner.memory.autopath).

A request is a Probe: its typed values and masked text (planner.params), its intent and its
signature, and (only when a stage needs it) its embedding. A remembered plan is served only
when every guard holds; otherwise it is a miss and the request goes on to the proposer:

    same canonical key (stage 1, planner.canonical) or cosine ≥ METNOS_MEMORY_MIN_COSINE
        (stage 2) or, with no neighbour near enough, an equal signature (stage 3: the same
        request in other words the canonical form does not know; the embedding model is
        English-only)
    and, at every stage, the same modifiers (negation, exclusion, condition, schedule, range,
        comparative: planner.canonical.modifiers) and every literal of the plan justified by
        this request (planner.memory.justify)
    and the intent's verbs agree and its objects are equal
    and the signatures agree (slots, modifiers, negation, objects and content words equal;
        verbs of the same tool family)
    and the same number of values of each type, matched by position only where that is safe
    and, at stages 2 and 3, a cosine within the entry's own bound (planner.memory.bounds)
    and the validator passes with the filled-in values.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import F, Q

from core.clock import now
from planner import canonical
from planner import params as P
from planner.canonical import Canonical
from planner.catalog import Catalog
from planner.embeddings import embed
from planner.intent import TOOL_VERBS, Intent, extract, step_kinds
from planner.memory import bounds
from planner.memory.justify import quoted_values, unjustified
from planner.plan import PLACEHOLDER, Plan, PlanError, parse
from planner.validator import Request, validate

logger = logging.getLogger(__name__)


@dataclass
class Probe:
    text: str
    extraction: P.Extraction  # the request's typed values as written (the route decision reads them)
    intent: Intent
    owner_id: int | None
    form: Canonical  # as memory keys it: values from the canonical text, tokens (planner.canonical)
    workspace: Path | None = None
    _embedding: tuple[float, ...] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, text: str, workspace, owner_id: int | None) -> Probe:
        """The request as memory sees it. Its intent comes from the masked text: a value is not
        part of what is asked ("notes/a.md" must not make "files" the object of "read its lines")."""
        form = canonical.of(text, workspace)
        intent = extract(re.sub(r"<\w+:\d+>", " ", form.extraction.masked))
        return cls(text, P.extract(text, workspace), intent, owner_id, form, workspace)

    @property
    def values(self) -> P.Extraction:
        """The values plans are parametrized by and filled from: numbers in words as numbers,
        operators and schedules as values of their own."""
        return self.form.extraction

    @property
    def key(self) -> str:
        return self.form.key

    @property
    def signature(self) -> tuple[str, ...]:
        return self.form.signature

    @cached_property
    def request(self) -> Request:
        """The request as the validator reads it, from what the probe has read already."""
        return Request.of(self.text, self.workspace, extraction=self.extraction, form=self.form)

    @property
    def vector(self) -> str:
        """The embedding as a pgvector literal, for the lookups' raw SQL."""
        return "[" + ",".join(map(str, self.embedding)) + "]"

    @property
    def masked(self) -> str:
        return self.form.extraction.masked

    @property
    def embedding(self) -> tuple[float, ...]:
        if self._embedding is None:  # the model loads on first use (planner.embeddings), not here
            self._embedding = embed(P.normalize(self.masked))
        return self._embedding


@dataclass(frozen=True)
class Recall:
    layer: str  # fastpath | autopath
    entry: Any  # the Fastpath or Autopath row
    plan: Plan  # bound: the request's values in place of its slots
    params: dict[str, Any]
    stage: int  # 1 exact, 2 embedding, 3 equal signature
    cosine: float
    lookup_ms: float

    def to_trace(self) -> dict:
        return {
            "layer": self.layer,
            "id": str(self.entry.id),
            "source": self.entry.source,
            "stage": self.stage,
            "cosine": round(self.cosine, 4),
            "params": self.params,
            "masked_request": self.entry.masked_request,
            "lookup_ms": round(self.lookup_ms, 2),
        }


def verbs_agree(a: str | None, b: str | None) -> bool:
    """Equal, or of the same tool family (count and find). A side with no recognised verb
    ("what is 6 * 7?") leaves the decision to the signature, which must then match."""
    if a == b or a is None or b is None:
        return True
    return bool(set(TOOL_VERBS.get(a, ())) & set(TOOL_VERBS.get(b, ())))


def signatures_agree(learned: tuple[str, ...], probe_sig: tuple[str, ...]) -> bool:
    """Every token but the verbs must be the same on both sides; the verbs must need the same
    kinds of step ("find … and count them" = "how many …"; "read X and summarize it" ≠ "read X").
    When one side names no verb at all, its other tokens decide."""
    rest_a = {t for t in learned if not t.startswith("v:")}
    rest_b = {t for t in probe_sig if not t.startswith("v:")}
    if rest_a != rest_b:
        return False
    verbs_a = [t[2:] for t in learned if t.startswith("v:")]
    verbs_b = [t[2:] for t in probe_sig if t.startswith("v:")]
    if not verbs_a or not verbs_b:
        return True
    if ("count" in verbs_a) != ("count" in verbs_b):  # one tool, but a number is not a list
        return False
    return step_kinds(verbs_a) == step_kinds(verbs_b)


def order_safe(plan: dict, counts: dict[str, int]) -> bool:
    """Whether values of one type can be matched by position when the wording differs: only
    when every slot of a type that occurs more than once sits in one argument (a list, read in
    order: "the mean of 3, 4 and 5"). "copy a.md to b.md" and "to b.md copy a.md" are not."""
    for kind, count in counts.items():
        if count < 2:
            continue
        homes = set()
        for index, step in enumerate(plan.get("steps", [])):
            for arg, value in step.get("args", {}).items():
                if f"${{PARAM:{kind}_" in json.dumps(value):
                    homes.add((index, arg))
        if len(homes) > 1:
            return False
    return True


def bind(plan: dict, values: dict[str, Any]) -> dict:
    """The plan with ${PARAM:x} replaced: whole-value slots keep the value's type."""

    def one(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: one(v) for k, v in node.items()}
        if isinstance(node, list):
            return [one(v) for v in node]
        if isinstance(node, str) and "${PARAM:" in node:
            whole = PLACEHOLDER.fullmatch(node)
            if whole and whole.group(3) == "PARAM":
                return values[whole.group(4)]
            return PLACEHOLDER.sub(
                lambda m: str(values[m.group(4)]) if m.group(3) == "PARAM" else m.group(0),
                node,
            )
        return node

    return {**plan, "steps": one(plan.get("steps", [])), "final_message": one(plan.get("final_message", "")),
            "fillers": one(plan.get("fillers", {}))}  # fmt: skip


def admit(entry, probe_: Probe, catalog: Catalog, *, stage: int, cosine: float) -> tuple[Plan, dict] | None:
    """The entry's plan bound to the probe's values when every guard holds, else None. At every
    stage and any cosine: the same modifiers (planner.canonical.modifiers: "all but the first 3
    lines" is never "the first 3 lines"), and every literal the plan keeps justified by this
    request too (planner.memory.justify)."""
    if canonical.modifiers(entry.signature) != canonical.modifiers(probe_.signature):
        return None
    if stage >= 2:
        if cosine < settings.METNOS_MEMORY_MIN_COSINE and tuple(entry.signature) != probe_.signature:
            return None
        if not bounds.admits(entry, stage=stage, cosine=cosine):  # its own bound, learned from its uses
            return None
        if not verbs_agree(entry.verb or None, probe_.intent.verb) or (entry.object or None) != probe_.intent.object:
            return None
        if not signatures_agree(tuple(entry.signature), probe_.signature):
            return None
        if not order_safe(entry.plan, entry.slot_counts):
            return None
    values = P.fill(entry.slots, probe_.values, entry.slot_counts)
    if values is None:
        return None
    if unjustified(entry.plan, probe_.masked, catalog, quoted_values(probe_.values)):
        return None
    bound = bind(entry.plan, values)
    # "what year is it?" after "what time is it?": the same question of the clock
    if canonical.CLOCK & set(entry.signature) != canonical.CLOCK & set(probe_.signature):
        if [step.get("tool") for step in bound["steps"]] != ["get_time"]:
            return None  # a later step may keep one part of it ("write the time to t.txt")
        bound["final_message"] = ""  # the answer made from get_time's result, which says both
    try:
        plan = parse(bound)
    except (PlanError, KeyError):
        return None
    # The request's own rules too: an entry learned before them may write where this request
    # names nothing (planner.validator).
    if any(p.blocking for p in validate(plan, catalog, request=probe_.request)):
        return None
    return plan, values


def row_fields(probe_: Probe, template: dict, slots: dict, executors: dict, *, embedding: bool = True) -> dict:
    """What a Fastpath or Autopath row keeps of a request and its parametrized plan (the embedding,
    of the masked request, only when asked: it costs a model call)."""
    fields = {
        "example_request": probe_.text[:2000],
        "masked_request": probe_.masked[:2000],
        "key": probe_.key,
        "signature": list(probe_.signature),
        "verb": probe_.intent.verb or "",
        "object": probe_.intent.object or "",
        "slots": slots,
        "slot_counts": probe_.values.counts,
        "plan": template,
        "plan_hash": P.plan_hash(template),
        "executors": executors,
    }
    if embedding:
        fields["embedding"] = list(probe_.embedding)
    return fields


def columns(model, alias: str) -> str:
    """A lookup's SELECT list: every column of the table but the embedding. A row's 384 floats
    would be parsed for each of the neighbours read, and no guard reads them (the distance is
    computed in SQL); an entry that needs it later loads it as a deferred field."""
    return ", ".join(f"{alias}.{f.column}" for f in model._meta.concrete_fields if f.name != "embedding")


def owner_scope(owner_id: int | None) -> Q:
    """What a user's memory lookups may see: their own entries and the seeds (no owner)."""
    return Q(owner_id=owner_id) | Q(owner__isnull=True) if owner_id else Q(owner__isnull=True)


def count_use(model, entry_id, *, success: bool, latency_ms: int, **more) -> None:
    """A remembered plan (Fastpath or Autopath) served once; `more`: other fields of the same
    UPDATE (its bound, what it saved)."""
    model.objects.filter(pk=entry_id).update(
        **more,
        uses=F("uses") + 1,
        successes=F("successes") + int(success),
        failures=F("failures") + int(not success),
        latency_ms_total=F("latency_ms_total") + latency_ms,
        last_used_at=now(),
    )


def executors_of(plan: dict, catalog: Catalog) -> dict[str, str] | None:
    """{name: digest} of the plan's executors, or None when one is missing from the catalog."""
    out = {}
    for step in plan.get("steps", []):
        executor = catalog.get(step.get("tool"))
        if executor is None:
            return None
        out[executor.name] = executor.digest
    return out


def template_of(probe_: Probe, plan: dict | None) -> dict | None:
    """The plan as memory keeps it: parametrized when it can be, literal otherwise."""
    if plan is None:
        return None
    try:
        return P.parametrize(plan, probe_.values)[0]
    except P.NotLearnable:
        return plan
