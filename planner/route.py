"""Asking the routing chain for a model on behalf of a turn, and once more when the chosen one
could not be reached."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from django.conf import settings

from planner.turn import TurnInput, TurnOutcome
from routing import policy as policies
from routing.chain import NoRoute, RouteDecision, RouteInputs, decide
from routing.fingerprint import TurnNeeds


class ExplicitModelUnavailable(Exception):
    """The user named a model for this message and it cannot be used: answering with another
    model would ignore them."""


def decide_for_turn(inp, needs: TurnNeeds, ids: dict, *, delegate: str | None = None) -> RouteDecision:
    inputs = RouteInputs(per_message=inp.model, sticky=inp.sticky_model, policy=policies.in_force(), delegate=delegate)
    decision = decide(needs, inputs, **ids)
    override = decision.verdicts[0]
    if override.verdict == "rejected" and override.reason == "not_configured":
        raise ExplicitModelUnavailable(f"Cannot use {override.model!r}: {override.detail}")
    return decision


def route(inp: TurnInput, needs: TurnNeeds, ids: dict) -> RouteDecision:
    delegate = settings.METNOS_PROPOSER_MODEL if needs.acts else None  # slot 5, for turns that act
    return decide_for_turn(inp, needs, ids, delegate=delegate)


def route_error(exc: Exception) -> TurnOutcome:
    return TurnOutcome(final_kind="error", text=str(exc), layer="route", error=str(exc))


def fail_over(
    inp: TurnInput,
    needs: TurnNeeds,
    ids: dict,
    failed: TurnOutcome,
    decision: RouteDecision,
    answer: Callable[[RouteDecision], TurnOutcome],
) -> tuple[TurnOutcome, RouteDecision]:
    """The chosen model could not be reached before it said (or, planning, ran) anything; the
    failure is already in the availability state. Route again, once, and let `answer` redo the
    turn with the next model if the chain now picks another one. A model the user named for this
    message is not replaced."""
    if decision.slot == "per_message_override":
        return failed, decision
    try:
        retry = route(inp, needs, ids)
    except (NoRoute, ExplicitModelUnavailable):
        return failed, decision
    if retry.model.name == decision.model.name:
        return failed, decision
    outcome = answer(retry)
    outcome = replace(
        outcome,
        model_calls=failed.model_calls + outcome.model_calls,
        cost_usd=failed.cost_usd + outcome.cost_usd,
    )
    outcome.trace["failover"] = {"from": decision.model.name, "error": failed.error, "to": retry.model.name}
    return outcome, retry
