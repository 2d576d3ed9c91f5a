"""L0 fastpath: a remembered plan for every request the full plan answered, served with no
model call. Stage 1 is an exact match on the request's canonical key (planner.canonical: the
same request in other words, numbers or operators in words, a kind of file by name; a B-tree
lookup, no embedding); stage 2
is a cosine K-NN over embeddings (pgvector HNSW) under the guards in planner.memory.probe; stage 3,
when nothing is near by meaning, is an equal signature (the same request in other words or in
Italian: the embedding model is English-only), under the same guards.

Entries are made by `learn` from every turn the engine completed, age out (`age`, nightly),
are superseded by a newer plan for the same masked request, retire when an executor they use
is gone, go on trial when one has changed (planner.memory.shadow), and can be pinned, disabled or
removed in the admin. Each keeps its own admission bound (planner.memory.bounds) and what it
saved (planner.memory.accounts)."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from core.clock import monotonic_ms, now
from planner import params as P
from planner.catalog import Catalog
from planner.memory import accounts, shadow
from planner.memory.justify import learnable
from planner.memory.probe import Probe, Recall, admit, columns, count_use, executors_of, row_fields
from planner.models import AntiAutopath, Fastpath

logger = logging.getLogger(__name__)
NEIGHBOURS = 5


# The active entries a user's lookups may see (their own and the seeds: planner.memory.probe.owner_scope),
# less those whose plan is banned. Raw SQL: the lookup runs before every turn, and building the same
# queryset each time cost more than the query.
_ACTIVE = f"""
    SELECT {columns(Fastpath, "f")}, {{distance}} AS distance FROM {Fastpath._meta.db_table} f
    WHERE f.status = 'active' AND (f.owner_id = %(owner)s OR f.owner_id IS NULL) AND {{where}}
      AND NOT EXISTS (SELECT 1 FROM {AntiAutopath._meta.db_table} a WHERE a.plan_hash = f.plan_hash
                      AND (a.owner_id = %(owner)s OR a.owner_id IS NULL) AND a.expires_at > %(now)s)
    ORDER BY {{order}} LIMIT %(limit)s"""  # noqa: S608 (the table names and clauses are ours)
_OWN_FIRST = "f.owner_id DESC NULLS LAST, f.created_at DESC"
_DISTANCE = "f.embedding <=> %(vector)s::vector"


def _active(probe: Probe, *, where: str, order: str, limit: int, distance: str = "0", **params) -> list[Fastpath]:
    sql = _ACTIVE.format(distance=distance, where=where, order=order)
    params |= {"owner": probe.owner_id, "now": now(), "limit": limit}
    return list(Fastpath.objects.raw(sql, params))


def lookup(probe: Probe, catalog: Catalog, started: float) -> Recall | None:
    # Stage 1: the same canonical form. The user's own entries before seeds.
    for entry in _active(probe, where="f.key = %(key)s", order=_OWN_FIRST, limit=3, key=probe.key):
        if not shadow.current(entry, catalog):
            continue
        admitted = admit(entry, probe, catalog, stage=1, cosine=1.0)
        if admitted:
            return Recall("fastpath", entry, admitted[0], admitted[1], 1, 1.0, monotonic_ms() - started)
    # Stage 2: the nearest entries by meaning, then every guard.
    vector = probe.vector
    nearest = _active(probe, where="TRUE", order=_DISTANCE, limit=NEIGHBOURS, distance=_DISTANCE, vector=vector)
    for entry in nearest:
        cosine = 1.0 - float(entry.distance)
        if cosine < settings.METNOS_MEMORY_MIN_COSINE:
            break
        if not shadow.current(entry, catalog):
            continue
        admitted = admit(entry, probe, catalog, stage=2, cosine=cosine)
        if admitted:
            return Recall("fastpath", entry, admitted[0], admitted[1], 2, cosine, monotonic_ms() - started)
    # Stage 3: nothing near by meaning, but the same request in other words: an equal signature
    # (verbs and objects as their labels, so «elenca i file» is «list the files»), then every guard.
    if probe.intent.verb and len(probe.signature) >= 2 and any(t.startswith("v:") for t in probe.signature):
        signature = json.dumps(list(probe.signature))
        found = _active(probe, where="f.signature = %(signature)s::jsonb", order=_OWN_FIRST, limit=5,
                        distance=_DISTANCE, vector=vector, signature=signature)  # fmt: skip
        same = [entry for entry in found if shadow.current(entry, catalog)]
        # Words the signature does not keep can still tell plans apart («save» and «append» are
        # both writing): when the entries it finds disagree, the request is not served from here.
        if len({entry.plan_hash for entry in same}) == 1:
            for entry in same:
                cosine = 1.0 - float(entry.distance)
                admitted = admit(entry, probe, catalog, stage=3, cosine=cosine)
                if admitted:
                    return Recall("fastpath", entry, admitted[0], admitted[1], 3, cosine, monotonic_ms() - started)
    return None


@transaction.atomic
def learn(
    probe: Probe,
    plan: dict,
    catalog: Catalog,
    *,
    turn_id: str | None,
    latency_ms: int = 0,
    source: str = Fastpath.Source.LEARNED,
    owner_id: int | None = None,
    cold: accounts.Cold | None = None,
) -> Fastpath | None:
    """Remember a plan that just succeeded for this request; None when it cannot be remembered
    safely (planner.params.NotLearnable) or names an executor the catalog lacks. `cold` is what
    the turn that planned it cost (planner.memory.accounts). A new learned entry starts on trial
    when shadow runs (planner.memory.shadow)."""
    try:
        template, slots = learnable(plan, probe.values, catalog)
    except P.NotLearnable as exc:
        logger.info("not remembered: %s", exc)
        return None
    executors = executors_of(template, catalog)
    if executors is None:
        return None
    digest = P.plan_hash(template)
    owner_id = probe.owner_id if owner_id is None and source == Fastpath.Source.LEARNED else owner_id
    existing = (
        Fastpath.objects.select_for_update()
        .filter(key=probe.key, owner_id=owner_id, status=Fastpath.Status.ACTIVE)
        .order_by("-created_at")
    )
    same = [e for e in existing if e.plan_hash == digest]
    if same:
        Fastpath.objects.filter(pk=same[0].pk).update(
            successes=F("successes") + 1, last_used_at=now(), latency_ms_total=F("latency_ms_total") + latency_ms
        )
        if cold is not None:
            accounts.add_cold(Fastpath, same[0].pk, cold)
        return same[0]
    entry = Fastpath.objects.create(
        **row_fields(probe, template, slots, executors),
        owner_id=owner_id,
        source=source,
        successes=1,
        latency_ms_total=latency_ms,
        source_turn_id=turn_id,
        pinned=source == Fastpath.Source.SEED,
        trial=shadow.initial(source),
    )
    if cold is not None:
        accounts.add_cold(Fastpath, entry.pk, cold)
    for older in existing:
        if older.pk != entry.pk and not older.pinned:
            older.status, older.superseded_by, older.reason = Fastpath.Status.SUPERSEDED, entry, "a newer plan"
            older.save(update_fields=["status", "superseded_by", "reason", "updated_at"])
    return entry


def used(entry: Fastpath, *, success: bool, latency_ms: int, **more) -> None:
    count_use(Fastpath, entry.pk, success=success, latency_ms=latency_ms, **more)


def disable(entry_id, reason: str) -> int:
    return Fastpath.objects.filter(pk=entry_id).update(status=Fastpath.Status.DISABLED, reason=reason[:200])


def age(catalog: Catalog) -> dict[str, int]:
    """Retire what is stale or can no longer run. Idempotent: a second run finds nothing new."""
    cutoff = now() - timedelta(days=settings.METNOS_FASTPATH_MAX_IDLE_DAYS)
    active = Fastpath.objects.filter(status=Fastpath.Status.ACTIVE)
    stale = active.filter(pinned=False).filter(
        Q(last_used_at__lt=cutoff) | Q(last_used_at__isnull=True, created_at__lt=cutoff)
    )
    reason = f"unused for {settings.METNOS_FASTPATH_MAX_IDLE_DAYS} days"
    idle = stale.update(status=Fastpath.Status.RETIRED, reason=reason)
    return {"idle": idle, **shadow.age(active, Fastpath.Status.RETIRED, catalog)}
