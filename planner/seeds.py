"""Seed plans (planner/seed_plans.yaml): parametrized like learned plans and loaded into L0
(pinned fastpaths) and L1 (autopath champions) for every user, with source=seed. Loading is
idempotent: a seed already there is left as it is (the admin may have disabled it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from django.db import transaction

from planner import params as P
from planner.catalog import Catalog
from planner.memory.autopath import cluster_of
from planner.memory.justify import learnable
from planner.memory.probe import Probe, executors_of, row_fields
from planner.models import Autopath, Fastpath
from planner.plan import parse
from planner.validator import validate

SEED_FILE = Path(__file__).resolve().parent / "seed_plans.yaml"


class SeedError(ValueError):
    pass


@dataclass(frozen=True)
class Loaded:
    seeds: int
    created: int


def read(path: Path = SEED_FILE) -> list[dict]:
    seeds = yaml.safe_load(path.read_text())
    if not isinstance(seeds, list):
        raise SeedError(f"{path}: expected a list of {{request, plan}}")
    return seeds


@transaction.atomic
def load(catalog: Catalog, path: Path = SEED_FILE) -> Loaded:
    created = 0
    seeds = read(path)
    for number, seed in enumerate(seeds, 1):
        request, plan = seed.get("request"), seed.get("plan")
        if not isinstance(request, str) or not isinstance(plan, dict):
            raise SeedError(f"seed {number}: needs a request (text) and a plan (mapping)")
        plan = {"fillers": {}, "final_message": "", **plan}
        problems = [p for p in validate(parse(plan), catalog, request_text=request) if p.blocking]
        if problems:
            raise SeedError(f"seed {number} ({request!r}): {'; '.join(map(str, problems))}")
        probe = Probe.of(request, None, None)
        try:
            template, slots = learnable(plan, probe.values, catalog)
        except P.NotLearnable as exc:
            raise SeedError(f"seed {number} ({request!r}): {exc}") from exc
        digest = P.plan_hash(template)
        executors = executors_of(template, catalog)
        if not Fastpath.objects.filter(source=Fastpath.Source.SEED, key=probe.key, plan_hash=digest).exists():
            Fastpath.objects.create(
                **row_fields(probe, template, slots, executors), source=Fastpath.Source.SEED, pinned=True
            )
            created += 1
        if not Autopath.objects.filter(source=Autopath.Source.SEED, key=probe.key, plan_hash=digest).exists():
            cluster = cluster_of(probe, None)
            has_champion = Autopath.objects.filter(cluster=cluster, status=Autopath.Status.CHAMPION).exists()
            Autopath.objects.create(
                **row_fields(probe, template, slots, executors),
                source=Autopath.Source.SEED,
                cluster=cluster,
                status=Autopath.Status.CHALLENGER if has_champion else Autopath.Status.CHAMPION,
            )
    return Loaded(len(seeds), created)
