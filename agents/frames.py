"""The server → client frames of the websocket protocol (DESIGN.md): every frame the browser
gets is built here. This module imports no service: services, the worker and the consumer all
build their frames with it."""

from agents.models import Turn
from billing.cost import format_usd


def turn_started(turn: Turn) -> dict:
    return {"type": "turn.started", "turn_id": str(turn.id)}


def delta(turn_id, text: str) -> dict:
    """Streamed answer text, batched (push.DeltaBatcher)."""
    return {"type": "delta", "turn_id": str(turn_id), "text": text}


def step(turn_id, event: dict) -> dict:
    """A plan step started or ended; `event` is what the engine reported (planner.turn.Sink)."""
    return {"type": "step", "turn_id": str(turn_id), **event}


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


def turn_resumed(turn: Turn, decision: str) -> dict:
    return {"type": "turn.resumed", "turn_id": str(turn.id), "decision": decision}


def todos(items: list[dict]) -> dict:
    """The session's whole task list, after the agent changed it."""
    return {"type": "todos", "items": items}


def command_result(command: str, text: str) -> dict:
    """A slash command's reply; it runs no turn."""
    return {"type": "command.result", "command": command, "text": text}


def error(message: str, turn_id: str | None = None) -> dict:
    frame = {"type": "error", "message": message}
    if turn_id:
        frame["turn_id"] = turn_id
    return frame
