"""The in-process event bus. Every meaningful action is emitted as a typed event;
subscribers (the trace store, later the billing ledger and the pattern recorder) project it."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.clock import now

logger = logging.getLogger(__name__)

# The event types Metnos emits. Emitting an unknown type is a programming error.
EVENT_TYPES = frozenset(
    {
        "turn.started",
        "route.decided",
        "llm.call_completed",
        "plan.proposed",
        "plan.validated",
        "step.executed",
        "layer.resolved",
        "tool.called",
        "memory.eviction",
        "pattern.matched",
        "pattern.shadowed",
        "followup.resolved",
        "file.named",
        "turn.completed",
        "error",
    }
)

ALL = "*"


@dataclass(frozen=True)
class Event:
    type: str
    payload: dict[str, Any]
    session_id: str | None = None
    turn_id: str | None = None
    ts: datetime = field(default_factory=now)


Handler = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = defaultdict(list)

    def subscribe(self, event_type: str, handler: Handler) -> None:
        if event_type != ALL and event_type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {event_type!r}")
        if handler not in self._handlers[event_type]:
            self._handlers[event_type].append(handler)

    def unsubscribe(self, event_type: str, handler: Handler) -> None:
        if handler in self._handlers[event_type]:
            self._handlers[event_type].remove(handler)

    def emit(
        self,
        event_type: str,
        payload: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        turn_id: str | None = None,
    ) -> Event:
        if event_type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {event_type!r}")
        event = Event(event_type, payload or {}, session_id=session_id, turn_id=turn_id)
        for handler in (*self._handlers[event_type], *self._handlers[ALL]):
            # One broken subscriber must not break the action that emitted the event,
            # nor starve the other subscribers.
            try:
                handler(event)
            except Exception:
                logger.exception("event handler %r failed on %s", handler, event_type)
        return event


bus = EventBus()
