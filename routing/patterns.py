"""The pattern store behind slot 4: past routing outcomes and a K-NN recommendation over them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from pgvector.django import CosineDistance

from routing.evaluator import score_turn
from routing.models import RoutingPattern


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
    return RoutingPattern.objects.create(
        fingerprint=fingerprint,
        model_name=model,
        cost_usd=cost_usd,
        latency_ms=latency_ms,
        final_kind=final_kind,
        errors=errors,
        score=score_turn(final_kind=final_kind, errors=errors),
        turn_id=turn_id,
        workspace=workspace,
    )


def rescore(*, turn_id, feedback: str | None = None, retried: bool | None = None) -> int:
    """Apply later evidence (explicit feedback, a retry of the same request) to a turn's outcome."""
    updated = 0
    for pattern in RoutingPattern.objects.filter(turn_id=turn_id):
        if feedback is not None:
            pattern.feedback = feedback
        if retried is not None:
            pattern.retried = retried
        pattern.score = score_turn(
            final_kind=pattern.final_kind, errors=pattern.errors, feedback=pattern.feedback, retried=pattern.retried
        )
        pattern.save(update_fields=["feedback", "retried", "score"])
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
    """K nearest past outcomes → per model: success mean and cost efficiency, combined as
    (1 - cost_weight) * success_mean + cost_weight * cost_efficiency. The best model wins when
    its confidence (score discounted by how few samples back it) clears min_confidence."""
    k = k or settings.METNOS_PATTERN_K
    cost_weight = settings.METNOS_PATTERN_COST_WEIGHT if cost_weight is None else cost_weight
    min_confidence = settings.METNOS_PATTERN_MIN_CONFIDENCE if min_confidence is None else min_confidence
    max_distance = settings.METNOS_PATTERN_MAX_DISTANCE if max_distance is None else max_distance
    # pgvector's default hnsw.ef_search (40) already exceeds k (20 by default).
    rows = list(
        RoutingPattern.objects.annotate(distance=CosineDistance("fingerprint", fingerprint))
        .order_by("distance")
        .values_list("model_name", "score", "cost_usd", "distance")[:k]
    )
    by_model: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for model, score, cost, distance in rows:
        if distance <= max_distance:
            by_model[model].append((score, float(cost)))
    if not by_model:
        return None
    means = {m: (sum(s for s, _ in v) / len(v), sum(c for _, c in v) / len(v), len(v)) for m, v in by_model.items()}
    cheapest = min(cost for _, cost, _ in means.values())
    candidates = []
    for model, (success, cost, n) in means.items():
        efficiency = 1.0 if cost <= 0 else (cheapest / cost if cheapest > 0 else 0.0)
        score = (1 - cost_weight) * success + cost_weight * efficiency
        candidates.append(Candidate(model, n, round(success, 4), cost, round(efficiency, 4), round(score, 4)))
    candidates.sort(key=lambda c: c.score, reverse=True)
    best = candidates[0]
    confidence = round(best.score * best.samples / (best.samples + settings.METNOS_PATTERN_PRIOR_SAMPLES), 4)
    if confidence < min_confidence:
        return None
    return Recommendation(model=best.model, confidence=confidence, candidates=tuple(candidates))
