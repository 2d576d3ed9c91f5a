"""Slash commands answered by the server without a turn or a model call. (The full set, with
custom commands, is the agent workspace's; this holds the ones already built.)"""

from __future__ import annotations

from decimal import Decimal

from agents.models import ChatSession
from billing import analytics
from billing.cost import format_usd

COMMANDS = {"/cost": "this session's spend per turn, by model and role"}


def is_command(text: str) -> bool:
    return text.strip().startswith("/") and text.strip().split()[0] in COMMANDS


def run(session: ChatSession, text: str) -> str:
    name = text.strip().split()[0]
    if name == "/cost":
        return cost(session)
    raise ValueError(f"unknown command {name}")


def cost(session: ChatSession) -> str:
    rows = analytics.session_cost(session.id)
    if not rows:
        return "No model calls in this session yet: $0."
    total = sum(Decimal(r["cost_usd"]) for r in rows)
    turns = list(session.turns.order_by("created_at").values_list("id", flat=True))
    number = {str(t): i for i, t in enumerate(turns, 1)}
    lines = [f"This session: ${format_usd(total)} over {sum(r['calls'] for r in rows)} model call(s)."]
    for r in rows:
        lines.append(
            f"turn {number.get(r['turn_id'], '?')}: {r['model']} ({r['role']}), {r['calls']} call(s): ${r['cost_usd']}"
        )
    return "\n".join(lines)
