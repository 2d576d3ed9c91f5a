"""The heuristic evaluator: how well a finished turn went, in [0, 1], from what we can observe
without a model: its final kind, its errors, the user's explicit feedback, and whether the
user asked the same thing again right after."""

from __future__ import annotations

BASE = {
    "answer": 1.0,
    "ask": 0.8,
    "awaiting": 0.8,
    "needs_inputs": 0.6,
    "cap_steps": 0.2,
    "cap_same_executor": 0.2,
    "loop_break": 0.1,
    "error": 0.0,
}
FEEDBACK = ("up", "down", "wrong_plan")


def score_turn(*, final_kind: str, errors: int = 0, feedback: str = "", retried: bool = False) -> float:
    score = BASE.get(final_kind, 0.0) - 0.1 * max(0, errors)
    if retried:
        score *= 0.3  # the user asked again: the answer did not serve them
    if feedback == "up":
        score = max(score, 0.9)
    elif feedback == "down":
        score = min(score, 0.2)
    elif feedback == "wrong_plan":
        score = 0.0
    return round(max(0.0, min(1.0, score)), 4)
