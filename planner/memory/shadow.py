"""Remembered plans on trial: an entry serves on its own only once it has proved itself.

    shadow       a new learned fastpath, or any entry whose executors changed, while the proposer
                 is not a local model (METNOS_MEMORY_SHADOW=auto): a request it is recalled for
                 is still planned by the engine, whose answer the person gets, and the two plans
                 are compared. The same tool sequence with the same bound arguments is an
                 agreement; after METNOS_MEMORY_SHADOW_AGREEMENTS of them the entry serves. A
                 disagreement retires a learned entry before it ever served, and the same plan
                 learned into L1 with it; a seed is never demoted by shadow (it stays on trial).
    revalidate   an entry whose executors changed while the proposer is local (its plans would
                 demote correct entries): it is served only when its plan, bound to the request,
                 validates against the executors as they are now (planner.memory.probe.admit),
                 and the first such use that succeeds records the new digests.

The nightly ager puts entries on trial instead of retiring them; an executor that is gone still
retires them (planner.memory.fastpath.age)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db.models import F

from planner.catalog import Catalog
from planner.memory.probe import Recall, executors_of
from planner.models import Autopath, Fastpath
from routing import registry

logger = logging.getLogger(__name__)

SHADOW, REVALIDATE = "shadow", "revalidate"


def active() -> bool:
    """Whether shadow runs: `on`, `off`, or `auto` (only when the proposer is not a local tier)."""
    mode = settings.METNOS_MEMORY_SHADOW
    if mode != "auto":
        return mode == "on"
    try:
        return not registry.resolve(settings.METNOS_PROPOSER_MODEL).is_local
    except Exception:  # an unknown proposer plans nothing: nothing to compare with
        return False


def initial(source: str) -> str:
    """The trial a newly learned entry starts on."""
    return SHADOW if source == Fastpath.Source.LEARNED and active() else ""


def current(entry, catalog: Catalog) -> bool:
    """Whether the entry may be recalled: every executor it uses is still there. One whose code
    changed goes on trial (shadow, or revalidate with a local proposer) instead of being skipped."""
    now_digests = executors_of(entry.plan, catalog)
    if now_digests is None:
        return False
    if now_digests != entry.executors and not entry.trial:
        entry.trial, entry.trial_agreements = changed_trial(), 0
        put_on_trial(type(entry), entry.pk, entry.trial)
    return True


def age(entries, retired: str, catalog: Catalog) -> dict[str, int]:
    """The ager's pass over `entries` (a Fastpath or Autopath queryset): one whose executor is
    gone is retired; one whose executors changed goes on trial, to prove itself again."""
    changed = gone = 0
    trial = changed_trial()
    for entry in entries.only("id", "plan", "executors", "trial"):
        digests = executors_of(entry.plan, catalog)
        if digests is None:
            gone += type(entry).objects.filter(pk=entry.pk).update(status=retired, reason="an executor it uses is gone")
        elif digests != entry.executors:
            changed += put_on_trial(type(entry), entry.pk, trial)
    return {"executor_changed": changed, "executor_gone": gone}


def changed_trial() -> str:
    """The trial of an entry whose executors changed: shadow, or revalidate with a local proposer."""
    return SHADOW if active() else REVALIDATE


def put_on_trial(model, entry_id, trial: str) -> int:
    """The entry on `trial`, unless it already is on one. Returns 1 when it was put on it."""
    return model.objects.filter(pk=entry_id, trial="").update(trial=trial, trial_agreements=0)


def steps_of(plan: dict | None) -> list[tuple[str, object]]:
    return [(step.get("tool"), step.get("args") or {}) for step in (plan or {}).get("steps", [])]


def agree(recalled: dict, planned: dict | None) -> bool:
    """The same tool sequence with the same bound arguments."""
    return bool(planned) and steps_of(recalled) == steps_of(planned)


def judge(recall: Recall, planned: dict | None, *, answered: bool, catalog: Catalog) -> str | None:
    """The engine planned a request a shadowed entry was recalled for: its verdict on the entry
    (`agreed`, `promoted`, `stopped`, `kept`: a seed that disagreed), or None when the engine did
    not answer (no verdict)."""
    if not answered or not planned:
        return None
    entry, model = recall.entry, type(recall.entry)
    if agree(recall.plan.to_dict(), planned):
        model.objects.filter(pk=entry.pk).update(trial_agreements=F("trial_agreements") + 1)
        if model.objects.get(pk=entry.pk).trial_agreements < settings.METNOS_MEMORY_SHADOW_AGREEMENTS:
            return "agreed"
        prove(model, entry.pk, entry.plan, catalog)
        return "promoted"
    reason = "shadow: the engine planned otherwise"
    if entry.source == Fastpath.Source.SEED:
        model.objects.filter(pk=entry.pk).update(trial_agreements=0, reason=reason)
        return "kept"
    retired = Fastpath.Status.RETIRED if model is Fastpath else Autopath.Status.RETIRED
    model.objects.filter(pk=entry.pk).update(status=retired, reason=reason)
    # The same plan learned into L1 from the same turns is no better: it never serves either.
    Autopath.objects.filter(
        owner_id=entry.owner_id, source=Autopath.Source.LEARNED, plan_hash=entry.plan_hash, verb=entry.verb,
        object=entry.object,
    ).exclude(status=Autopath.Status.RETIRED).update(status=Autopath.Status.RETIRED, reason=reason)  # fmt: skip
    logger.info("shadow stopped %s %s before it served", model.__name__, entry.pk)
    return "stopped"


def prove(model, entry_id, plan: dict, catalog: Catalog) -> None:
    """Off trial: it serves on its own, against the executors as they are now."""
    digests = executors_of(plan, catalog)
    if digests is not None:
        model.objects.filter(pk=entry_id).update(trial="", trial_agreements=0, executors=digests)
