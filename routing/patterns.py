"""The pattern store behind slot 4: past routing outcomes, rolled up per (fingerprint, model)
into cells, and a K-NN recommendation over the cells."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import connection, transaction

from routing.evaluator import score_turn
from routing.fingerprint import fingerprint_key
from routing.models import PatternCell, RoutingPattern

_CELLS = PatternCell._meta.db_table


@dataclass(frozen=True)
class Candidate:
    model: str
    samples: int
    success_mean: float
    mean_cost_usd: float
    cost_efficiency: float
    score: float


@dataclass(frozen=True)
class Recommendation:
    model: str
    confidence: float
    candidates: tuple[Candidate, ...]


def _vector(fp: list[float]) -> str:
    return "[" + ",".join(f"{x:g}" for x in fp) + "]"


_UPSERT = f"""
    INSERT INTO {_CELLS} AS cell (key, model_name, fingerprint, samples, score_sum, cost_sum, latency_sum, updated_at)
    VALUES (%s, %s, %s::vector, %s, %s, %s, %s, now())
    ON CONFLICT (key, model_name) DO UPDATE SET
        samples = cell.samples + EXCLUDED.samples,
        score_sum = cell.score_sum + EXCLUDED.score_sum,
        cost_sum = cell.cost_sum + EXCLUDED.cost_sum,
        latency_sum = cell.latency_sum + EXCLUDED.latency_sum,
        updated_at = now()
"""  # noqa: S608 (the table name is ours)


def _add_to_cell(*, fp: list[float], model: str, samples: int, score: float, cost: Decimal, latency_ms: int) -> None:
    """Fold outcomes into their cell: one atomic upsert, safe under concurrent workers."""
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, [fingerprint_key(fp), model, _vector(fp), samples, score, cost, latency_ms])


@transaction.atomic
def record(
    *,
    fingerprint: list[float],
    model: str,
    cost_usd: Decimal,
    latency_ms: int,
    final_kind: str,
    errors: int = 0,
    turn_id=None,
    workspace: str = "",
) -> RoutingPattern:
    score = score_turn(final_kind=final_kind, errors=errors)
    pattern = RoutingPattern.objects.create(
        fingerprint=fingerprint,
        model_name=model,
        cost_usd=cost_usd,
        latency_ms=latency_ms,
        final_kind=final_kind,
        errors=errors,
        score=score,
        turn_id=turn_id,
        workspace=workspace,
    )
    _add_to_cell(fp=fingerprint, model=model, samples=1, score=score, cost=Decimal(cost_usd), latency_ms=latency_ms)
    return pattern


@transaction.atomic
def rescore(*, turn_id, feedback: str | None = None, retried: bool | None = None) -> int:
    """Apply later evidence (explicit feedback, a retry of the same request) to a turn's outcome."""
    updated = 0
    for pattern in RoutingPattern.objects.select_for_update().filter(turn_id=turn_id):
        if feedback is not None:
            pattern.feedback = feedback
        if retried is not None:
            pattern.retried = retried
        old = pattern.score
        pattern.score = score_turn(
            final_kind=pattern.final_kind, errors=pattern.errors, feedback=pattern.feedback, retried=pattern.retried
        )
        pattern.save(update_fields=["feedback", "retried", "score"])
        fp = [float(x) for x in pattern.fingerprint]
        _add_to_cell(
            fp=fp, model=pattern.model_name, samples=0, score=pattern.score - old, cost=Decimal(0), latency_ms=0
        )
        updated += 1
    return updated


def recommend(
    fingerprint: list[float],
    *,
    k: int | None = None,
    cost_weight: float | None = None,
    min_confidence: float | None = None,
    max_distance: float | None = None,
) -> Recommendation | None:
    """K nearest cells → per model: success mean and cost efficiency, combined as
    (1 - cost_weight) * success_mean + cost_weight * cost_efficiency. The best model wins when
    its confidence (score discounted by how few samples back it) clears min_confidence."""
    k = k or settings.METNOS_PATTERN_K
    cost_weight = settings.METNOS_PATTERN_COST_WEIGHT if cost_weight is None else cost_weight
    min_confidence = settings.METNOS_PATTERN_MIN_CONFIDENCE if min_confidence is None else min_confidence
    max_distance = settings.METNOS_PATTERN_MAX_DISTANCE if max_distance is None else max_distance
    # Raw SQL: this runs on every decision that reaches slot 4, and the ORM's query building
    # costs more than the search. hnsw.ef_search is set on the database (migration 0003).
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT model_name, samples, score_sum, cost_sum::float8, fingerprint <=> %s::vector AS distance "  # noqa: S608
            f"FROM {_CELLS} ORDER BY distance LIMIT %s",
            [_vector(fingerprint), k],
        )
        rows = cursor.fetchall()
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for model, samples, score_sum, cost_sum, distance in rows:
        if distance <= max_distance and samples > 0:
            total = totals[model]
            total[0] += samples
            total[1] += score_sum
            total[2] += cost_sum
    if not totals:
        return None
    means = {m: (s / n, c / n, n) for m, (n, s, c) in totals.items()}
    cheapest = min(cost for _, cost, _ in means.values())
    candidates = []
    for model, (success, cost, n) in means.items():
        efficiency = 1.0 if cost <= 0 else (cheapest / cost if cheapest > 0 else 0.0)
        score = (1 - cost_weight) * success + cost_weight * efficiency
        candidates.append(Candidate(model, int(n), round(success, 4), cost, round(efficiency, 4), round(score, 4)))
    candidates.sort(key=lambda c: c.score, reverse=True)
    best = candidates[0]
    confidence = round(best.score * best.samples / (best.samples + settings.METNOS_PATTERN_PRIOR_SAMPLES), 4)
    if confidence < min_confidence:
        return None
    return Recommendation(model=best.model, confidence=confidence, candidates=tuple(candidates))
