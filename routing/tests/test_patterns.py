import uuid
from decimal import Decimal

import pytest

from routing import patterns
from routing.evaluator import score_turn
from routing.fingerprint import TurnNeeds, fingerprint
from routing.models import PatternCell, RoutingPattern

pytestmark = pytest.mark.django_db


def test_the_evaluator_scores_from_final_kind_errors_feedback_and_retries():
    assert score_turn(final_kind="answer") == 1.0
    assert score_turn(final_kind="error") == 0.0
    assert score_turn(final_kind="answer", errors=2) == 0.8
    assert score_turn(final_kind="answer", retried=True) == 0.3
    assert score_turn(final_kind="answer", feedback="down") == 0.2
    assert score_turn(final_kind="needs_inputs", feedback="up") == 0.9
    assert score_turn(final_kind="answer", feedback="wrong_plan") == 0.0


def test_similar_turns_share_a_neighbourhood_and_different_ones_do_not():
    a = fingerprint(TurnNeeds(text="summarize notes/a.md please", estimated_tokens=200))
    b = fingerprint(TurnNeeds(text="summarize notes/b.md now", estimated_tokens=220))
    c = fingerprint(
        TurnNeeds(text="```python\ndef f(): pass\n```\nwhy does this fail?", has_tools=True, estimated_tokens=9000)
    )
    patterns.record(fingerprint=a, model="m-a", cost_usd=Decimal(0), latency_ms=1, final_kind="answer")
    patterns.record(fingerprint=c, model="m-c", cost_usd=Decimal(0), latency_ms=1, final_kind="answer")
    recommendation = patterns.recommend(b, min_confidence=0.0)
    assert recommendation.model == "m-a"
    assert [c.model for c in recommendation.candidates] == ["m-a"], "the code question is too far away to count"


def test_cost_weight_prefers_the_cheaper_of_two_equally_good_models():
    fp = fingerprint(TurnNeeds(text="write a haiku", estimated_tokens=30))
    for _ in range(5):
        patterns.record(fingerprint=fp, model="pricey", cost_usd=Decimal("0.01"), latency_ms=1, final_kind="answer")
        patterns.record(fingerprint=fp, model="cheap", cost_usd=Decimal("0.001"), latency_ms=1, final_kind="answer")
    recommendation = patterns.recommend(fp, cost_weight=0.3, min_confidence=0.0)
    assert recommendation.model == "cheap"
    scores = {c.model: c.score for c in recommendation.candidates}
    assert scores["cheap"] == pytest.approx(1.0) and scores["pricey"] == pytest.approx(0.7 + 0.3 * 0.1)
    assert patterns.recommend(fp, cost_weight=0.0, min_confidence=0.0).candidates[0].score == 1.0


def test_feedback_and_retries_rescore_the_turns_outcome():
    turn_id = uuid.uuid4()
    fp = fingerprint(TurnNeeds(text="x"))
    patterns.record(fingerprint=fp, model="m", cost_usd=Decimal(0), latency_ms=1, final_kind="answer", turn_id=turn_id)
    assert patterns.rescore(turn_id=turn_id, retried=True) == 1
    assert RoutingPattern.objects.get(turn_id=turn_id).score == 0.3
    patterns.rescore(turn_id=turn_id, feedback="down")
    assert RoutingPattern.objects.get(turn_id=turn_id).score == 0.2


def test_outcomes_with_the_same_shape_fold_into_one_cell_and_rescoring_moves_its_totals():
    fp = fingerprint(TurnNeeds(text="list files in notes/", estimated_tokens=40))
    ids = [uuid.uuid4() for _ in range(3)]
    for turn_id in ids:
        patterns.record(
            fingerprint=fp, model="m", cost_usd=Decimal("0.001"), latency_ms=10, final_kind="answer", turn_id=turn_id
        )
    cell = PatternCell.objects.get()
    assert (cell.samples, cell.score_sum, cell.cost_sum, cell.latency_sum) == (3, 3.0, Decimal("0.003"), 30)
    patterns.rescore(turn_id=ids[0], feedback="wrong_plan")
    cell.refresh_from_db()
    assert cell.samples == 3 and cell.score_sum == pytest.approx(2.0)
    assert RoutingPattern.objects.count() == 3, "every outcome is kept for rescoring and audit"
