"""Asking the routing chain for a model on behalf of a turn."""

from __future__ import annotations

from routing import policy as policies
from routing.chain import RouteDecision, RouteInputs, decide
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
