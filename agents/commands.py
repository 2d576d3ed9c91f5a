"""Slash commands answered by the server without a turn or a model call. (The full set, with
custom commands, is the agent workspace's; these are the ones built so far.)"""

from __future__ import annotations

import difflib
import re
from decimal import Decimal

from agents.models import ChatSession
from billing import analytics
from billing.cost import format_usd
from routing.availability import availability
from routing.registry import UnknownModel, current

COMMANDS = {
    "/help": "this list",
    "/model": "/model NAME pins a model for this session (an alias or id); /model - unpins; /model shows it",
    "/models": "the models you can use, their aliases and whether they are available",
    "/cost": "this session's spend per turn, by model and role",
}
_COMMAND = re.compile(r"^/[a-z][a-z-]*$")


def is_command(text: str) -> bool:
    """`/word …`: a command (known or not). `/etc/hosts …` is a path, not a command."""
    first = text.strip().split(maxsplit=1)[0] if text.strip() else ""
    return bool(_COMMAND.match(first))


def run(session: ChatSession, text: str) -> str:
    name, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    if name == "/help":
        return "Commands:\n" + "\n".join(f"{command}: {what}" for command, what in COMMANDS.items())
    if name == "/model":
        return model(session, rest)
    if name == "/models":
        return models()
    if name == "/cost":
        return cost(session)
    close = difflib.get_close_matches(name, COMMANDS, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return f"Unknown command {name}.{hint} /help lists the commands."


def model(session: ChatSession, name: str) -> str:
    if not name:
        return f"This session uses {session.sticky_model}." if session.sticky_model else "No model is pinned."
    if name == "-":
        session.sticky_model = ""
        session.save(update_fields=["sticky_model", "updated_at"])
        return "Unpinned: the routing chain chooses again."
    try:
        chosen = current().resolve(name)
    except UnknownModel as exc:
        return f"Not pinned: {exc}."
    session.sticky_model = chosen.name
    session.save(update_fields=["sticky_model", "updated_at"])
    ready = "" if chosen.configured else f" (it cannot serve until {chosen.api_key_env} is set)"
    return f"Pinned {chosen.name} for this session{ready}."


def models() -> str:
    lines = []
    for m in sorted(current().all(), key=lambda m: m.name):
        if not m.enabled:
            continue
        reason = None if not m.configured else availability.unavailable_reason(m.name, m.provider)
        state = "not configured" if not m.configured else (f"unavailable: {reason}" if reason else "available")
        aliases = f" (aliases: {', '.join(m.aliases)})" if m.aliases else ""
        lines.append(f"{m.name}{aliases}: {m.provider}, {state}")
    return "\n".join(lines) or "No models are configured."


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
