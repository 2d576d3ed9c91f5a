"""The server → client frames of the websocket protocol (DESIGN.md): every frame the browser
gets is built here. This module imports no service: services, the worker and the consumer all
build their frames with it."""

from django.utils.translation import gettext as _

from agents.models import Turn
from billing.cost import format_usd
from planner import pre_fastpath


def turn_started(turn: Turn, text: str = "") -> dict:
    """An edit or a regeneration names the turn it replaces and carries the message it asks."""
    frame = {"type": "turn.started", "turn_id": str(turn.id)}
    redo = turn.options.get("redo")
    if redo:
        frame |= {"replaces": redo["of"], "redo": redo["kind"], "text": text}
    return frame


def turn_queued(turn_id, *, position: int, running: int, limit: int) -> dict:
    """The turn waits: its owner already has `limit` turns running (METNOS_MAX_RUNNING_TURNS_PER_USER).
    It stays queued, `position` in their line, and starts when one of them ends."""
    return {"type": "turn.queued", "turn_id": str(turn_id), "position": position, "running": running, "limit": limit}


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
        "route_label": route_label(turn, text),
        "error": turn.error,
    }


MEMORY_LAYERS = ("fastpath", "autopath")


def route_label(turn: Turn, text: str = "") -> str:
    """The route a turn took, in a few words the chat shows under the answer: the layer that
    answered, and the tools that ran (from the trace: the engine's attempts, a remembered plan's
    steps, ReAct's or a resumed plan's steps)."""
    layer, tools = turn.layer, tools_used(turn.trace or {})
    named = ", ".join(tools)
    if turn.final_kind == "error" or not layer:
        return ""
    if turn.final_kind == "awaiting":
        waits_for = (turn.pending or {}).get("kind")
        return _("waiting for a subagent") if waits_for == "subagent" else _("waiting for your approval")
    if layer == "pre_fastpath":
        return _("listed what I can do") if pre_fastpath.lists_capabilities(text) else _("greeting")
    if layer in MEMORY_LAYERS:
        saved = saved_seconds(turn.trace or {})
        if saved is not None:
            label = _("served from memory, saved ~%(seconds)s s") % {"seconds": saved}
            return f"{label}: {named}" if tools else label
        return _("from memory: %(tools)s") % {"tools": named} if tools else _("from memory")
    if layer == "decision" or turn.final_kind in ("ask", "needs_inputs"):
        return _("asked a question")
    if layer == "fork":
        return _("handed to a subagent")
    if layer == "terminator":
        return _("could not finish (tools: %(tools)s)") % {"tools": named} if tools else _("could not finish")
    if tools:
        return _("used tools: %(tools)s") % {"tools": named}
    return _("answered directly") if layer in ("direct", "engine", "react", "recovery") else ""


def saved_seconds(trace: dict) -> str | None:
    """The time a use from memory saved against the cold path (planner.memory.accounts), in a few
    digits ("2", "0.4"); None when nothing measured says."""
    saved = (trace.get("memory") or {}).get("saved") or {}
    ms = saved.get("ms") or 0
    if saved.get("basis") == "none" or ms < 100:
        return None
    seconds = ms / 1000
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.1f}".removesuffix(".0")


def tools_used(trace: dict) -> list[str]:
    """The tools that ran, in order, once each; a step that failed or was blocked ran nothing."""
    steps = [s for a in trace.get("attempts") or [] for s in a.get("steps") or []]
    steps += (trace.get("memory_steps") or []) + (trace.get("steps") or [])
    return list(dict.fromkeys(s["tool"] for s in steps if isinstance(s, dict) and s.get("ok") and s.get("tool")))


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
