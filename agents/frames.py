"""The server → client frames of the websocket protocol (DESIGN.md)."""

from agents.models import Turn
from billing.cost import format_usd


def turn_started(turn: Turn) -> dict:
    return {"type": "turn.started", "turn_id": str(turn.id)}


def turn_completed(turn: Turn, text: str) -> dict:
    return {
        "type": "turn.completed",
        "turn_id": str(turn.id),
        "final_kind": turn.final_kind,
        "layer": turn.layer,
        "text": text,
        "usage": turn.usage,
        "cost_usd": format_usd(turn.cost_usd),
        "latency_ms": turn.latency_ms,
        "model_ms": turn.model_ms,
        "route": turn.route,
        "error": turn.error,
    }


def approval_request(turn: Turn) -> dict:
    """A step waits for the user's allow / deny / always (DESIGN.md's protocol)."""
    pending = turn.pending
    return {
        "type": "approval.request",
        "turn_id": str(turn.id),
        "request_id": pending["request_id"],
        "tool": pending["tool"],
        "args": pending["args"],
        "step": pending.get("step"),
    }


def error(message: str, turn_id: str | None = None) -> dict:
    frame = {"type": "error", "message": message}
    if turn_id:
        frame["turn_id"] = turn_id
    return frame
