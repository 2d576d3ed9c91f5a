"""L1 autopath: the memory that grows from observations. Plans that worked are grouped by
semantic cluster (embedding neighbours with the same intent and an agreeing signature); in each
cluster only the champion is served. A new plan enters as a challenger and replaces the champion
only after proving better over at least METNOS_AUTOPATH_MIN_PROOF successes (`promote`).
Plans that failed repeatedly for an intent become anti-autopaths: never served, excluded from
re-proposal, until they expire (METNOS_ANTI_AUTOPATH_DAYS).

Lookup runs only after L0 missed and when the intent is complete (verb and object)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from pgvector.django import CosineDistance

from core.clock import monotonic_ms, now
from planner import params as P
from planner.catalog import Catalog
from planner.intent import TOOL_VERBS
from planner.memory import accounts, shadow
from planner.memory.justify import learnable
from planner.memory.probe import (
    Probe,
    Recall,
    admit,
    columns,
    count_use,
    executors_of,
    owner_scope,
    row_fields,
    signatures_agree,
)
from planner.models import AntiAutopath, Autopath, Observation

NEIGHBOURS = 5


def family(verb: str | None) -> list[str]:
    """The verbs whose tools overlap with this one's (planner.memory.probe.verbs_agree)."""
    if verb is None:
        return []
    tools = set(TOOL_VERBS.get(verb, ()))
    return [v for v, t in TOOL_VERBS.items() if v == verb or tools & set(t)]


def score(successes: int, failures: int) -> float:
    """The success rate with one success and one failure assumed (Laplace): three successes out
    of three (0.8) beat one out of one (0.67), and a plan with no record starts at 0.5."""
    return (successes + 1) / (successes + failures + 2)


# A user's champions (their own and the seeds) of the probe's verb family and object, nearest first,
# less those whose plan is banned. Raw SQL, as planner.memory.fastpath's: it runs before every turn
# the fastpath misses.
_CHAMPIONS = f"""
    SELECT {columns(Autopath, "c")}, c.embedding <=> %(vector)s::vector AS distance FROM {Autopath._meta.db_table} c
    WHERE c.status = 'champion' AND (c.owner_id = %(owner)s OR c.owner_id IS NULL)
      AND c.verb = ANY(%(verbs)s) AND c.object = %(object)s AND c.embedding IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM {AntiAutopath._meta.db_table} a WHERE a.plan_hash = c.plan_hash
                      AND (a.owner_id = %(owner)s OR a.owner_id IS NULL) AND a.expires_at > %(now)s)
    ORDER BY distance LIMIT %(limit)s"""  # noqa: S608 (the table names are ours)


def lookup(probe: Probe, catalog: Catalog, started: float) -> Recall | None:
    params = {"vector": probe.vector, "owner": probe.owner_id,
              "verbs": family(probe.intent.verb), "object": probe.intent.object or "", "now": now(),
              "limit": NEIGHBOURS}  # fmt: skip
    for entry in Autopath.objects.raw(_CHAMPIONS, params):
        cosine = 1.0 - float(entry.distance)
        if not shadow.current(entry, catalog):
            continue
        stage = 1 if entry.key == probe.key else 2
        admitted = admit(entry, probe, catalog, stage=stage, cosine=cosine)
        if admitted:
            return Recall("autopath", entry, admitted[0], admitted[1], stage, cosine, monotonic_ms() - started)
    return None


def banned(owner_id: int | None, entry) -> bool:
    """Whether this user (or everyone) has banned the entry's plan."""
    return AntiAutopath.objects.filter(owner_scope(owner_id), plan_hash=entry.plan_hash, expires_at__gt=now()).exists()


def banned_hashes(owner_id: int | None, verb: str | None, obj: str | None) -> set[str]:
    return set(
        AntiAutopath.objects.filter(
            owner_scope(owner_id), verb=verb or "", object=obj or "", expires_at__gt=now()
        ).values_list("plan_hash", flat=True)
    )


@transaction.atomic
def record_success(
    probe: Probe,
    plan: dict,
    catalog: Catalog,
    *,
    latency_ms: int = 0,
    source: str = Autopath.Source.LEARNED,
    owner_id: int | None = None,
    champion: bool = False,
    cold: accounts.Cold | None = None,
) -> Autopath | None:
    """Count a success of `plan` (literal, as executed) for this request: into its cluster's
    entry for the same plan, or as a new challenger. Then the cluster's promotion is settled.
    `cold` is what the turn that planned it cost (planner.memory.accounts)."""
    try:
        template, slots = learnable(plan, probe.values, catalog)
    except P.NotLearnable:
        return None
    executors = executors_of(template, catalog)
    if executors is None:
        return None
    digest = P.plan_hash(template)
    owner_id = probe.owner_id if owner_id is None and source == Autopath.Source.LEARNED else owner_id
    cluster = cluster_of(probe, owner_id)
    entry = (
        Autopath.objects.select_for_update()
        .filter(cluster=cluster, plan_hash=digest, owner_id=owner_id)
        .exclude(status=Autopath.Status.RETIRED)
        .first()
    )
    if entry is not None:
        Autopath.objects.filter(pk=entry.pk).update(
            successes=F("successes") + 1, latency_ms_total=F("latency_ms_total") + latency_ms, last_used_at=now()
        )
    else:
        entry = Autopath.objects.create(
            **row_fields(probe, template, slots, executors),
            owner_id=owner_id,
            source=source,
            successes=1,
            latency_ms_total=latency_ms,
            cluster=cluster,
            status=Autopath.Status.CHAMPION if champion else Autopath.Status.CHALLENGER,
        )
    if cold is not None:
        accounts.add_cold(Autopath, entry.pk, cold)
    promote(cluster)
    return entry


def cluster_of(probe: Probe, owner_id: int | None) -> uuid.UUID:
    """The cluster of the nearest autopath with the same intent and an agreeing signature, or
    a new one."""
    candidates = (
        Autopath.objects.filter(
            Q(owner_id=owner_id) if owner_id else Q(owner__isnull=True),
            verb=probe.intent.verb or "",
            object=probe.intent.object or "",
            slot_counts=probe.values.counts,
        )
        .exclude(status=Autopath.Status.RETIRED)
        .annotate(distance=CosineDistance("embedding", list(probe.embedding)))
        .order_by("distance")[:NEIGHBOURS]
    )
    for entry in candidates:
        if 1.0 - float(entry.distance) < settings.METNOS_AUTOPATH_CLUSTER_COSINE:
            break
        if entry.key == probe.key or signatures_agree(tuple(entry.signature), probe.signature):
            return entry.cluster
    return uuid.uuid4()


def used(entry: Autopath, *, success: bool, latency_ms: int, **more) -> None:
    count_use(Autopath, entry.pk, success=success, latency_ms=latency_ms, **more)
    promote(entry.cluster)


def demote(entry_id, reason: str) -> None:
    """Negative feedback on an answer it served: it stops being served at once."""
    entry = Autopath.objects.filter(pk=entry_id).first()
    if entry is None:
        return
    Autopath.objects.filter(pk=entry.pk).update(
        status=Autopath.Status.CHALLENGER if entry.status == Autopath.Status.CHAMPION else entry.status,
        failures=F("failures") + 1,
        reason=f"feedback: {reason}"[:200],
        score=0.0,  # it has to earn its way back (promote)
    )


def promote(cluster: uuid.UUID | None = None) -> int:
    """Settle champion and challengers, per cluster (or all). A challenger becomes champion when
    the cluster has none and it has METNOS_AUTOPATH_MIN_PROOF successes, or when it has that
    many and a better score than the champion. Idempotent. Returns how many changed."""
    changed = 0
    clusters = (
        [cluster]
        if cluster
        else list(Autopath.objects.exclude(status=Autopath.Status.RETIRED).values_list("cluster", flat=True).distinct())
    )
    proof = settings.METNOS_AUTOPATH_MIN_PROOF
    for key in clusters:
        with transaction.atomic():
            entries = list(
                Autopath.objects.select_for_update().filter(cluster=key).exclude(status=Autopath.Status.RETIRED)
            )
            for e in entries:
                fresh = round(score(e.successes, e.failures), 6)
                if e.reason.startswith("feedback") and e.status == Autopath.Status.CHALLENGER:
                    fresh = min(fresh, e.score)  # demoted by a person: it has to earn its way back
                if fresh != e.score:
                    Autopath.objects.filter(pk=e.pk).update(score=fresh)
                    e.score = fresh
            champion = next((e for e in entries if e.status == Autopath.Status.CHAMPION), None)
            challengers = sorted(
                (e for e in entries if e.status == Autopath.Status.CHALLENGER and e.successes >= proof),
                key=lambda e: (-e.score, -e.successes),
            )
            best = next((c for c in challengers if not banned(c.owner_id, c)), None)
            if best is None or (champion is not None and best.score <= champion.score):
                continue
            if champion is not None:
                Autopath.objects.filter(pk=champion.pk).update(status=Autopath.Status.CHALLENGER)
            Autopath.objects.filter(pk=best.pk).update(status=Autopath.Status.CHAMPION, reason="")
            changed += 1
    return changed


def record_failure(probe: Probe, plan: dict, *, reason: str) -> AntiAutopath | None:
    """A plan failed for this request. After METNOS_ANTI_AUTOPATH_FAILURES failures of the same
    (parametrized) plan for the same intent within the expiry window, it is banned."""
    try:
        template, _ = P.parametrize(plan, probe.values)
    except P.NotLearnable:
        template = plan
    digest = P.plan_hash(template)
    window = now() - timedelta(days=settings.METNOS_ANTI_AUTOPATH_DAYS)
    failures = Observation.objects.filter(
        owner_id=probe.owner_id,
        verb=probe.intent.verb or "",
        object=probe.intent.object or "",
        plan_hash=digest,
        success=False,
        created_at__gte=window,
    ).count()
    if failures + 1 < settings.METNOS_ANTI_AUTOPATH_FAILURES:
        return None
    return ban(probe.owner_id, probe.intent.verb, probe.intent.object, template, reason, failures + 1)


def ban(owner_id, verb, obj, template: dict, reason: str, failures: int = 1) -> AntiAutopath:
    anti, _ = AntiAutopath.objects.update_or_create(
        owner_id=owner_id,
        verb=verb or "",
        object=obj or "",
        plan_hash=P.plan_hash(template),
        defaults={
            "plan": template,
            "reason": reason[:200],
            "failures": failures,
            "expires_at": now() + timedelta(days=settings.METNOS_ANTI_AUTOPATH_DAYS),
        },
    )
    Autopath.objects.filter(
        Q(owner_id=owner_id) if owner_id else Q(owner__isnull=True),
        plan_hash=anti.plan_hash,
        verb=anti.verb,
        object=anti.object,
        status=Autopath.Status.CHAMPION,
    ).update(status=Autopath.Status.CHALLENGER, reason=f"banned: {reason}"[:200])
    return anti


def age(catalog: Catalog) -> dict[str, int]:
    """Expire anti-autopaths, retire autopaths an executor of which is gone and challengers unused
    for METNOS_FASTPATH_MAX_IDLE_DAYS, and put on trial those whose executors changed
    (planner.memory.shadow). Idempotent."""
    expired, _ = AntiAutopath.objects.filter(expires_at__lte=now()).delete()
    cutoff = now() - timedelta(days=settings.METNOS_FASTPATH_MAX_IDLE_DAYS)
    idle = (
        Autopath.objects.filter(status=Autopath.Status.CHALLENGER, source=Autopath.Source.LEARNED)
        .filter(Q(last_used_at__lt=cutoff) | Q(last_used_at__isnull=True, created_at__lt=cutoff))
        .update(status=Autopath.Status.RETIRED, reason="unused")
    )
    executors = shadow.age(Autopath.objects.exclude(status=Autopath.Status.RETIRED), Autopath.Status.RETIRED, catalog)
    return {"anti_expired": expired, "idle": idle, **executors}


def compact_observations() -> int:
    """Drop observations older than METNOS_OBSERVATION_RETENTION_DAYS. Idempotent."""
    cutoff = now() - timedelta(days=settings.METNOS_OBSERVATION_RETENTION_DAYS)
    deleted, _ = Observation.objects.filter(created_at__lt=cutoff).delete()
    return deleted
