"""The trace store: a bus subscriber that writes every event to Postgres.

Outside a batch each event is written at once, inside whatever transaction the emitter is in.
Inside `batch()` (a chat turn, a gateway call) events are collected and written with one
multi-row INSERT when the batch ends, also when it ends with an exception."""

from __future__ import annotations

import threading
from contextlib import contextmanager

from core.events import ALL, Event, bus

_local = threading.local()


def _row(event: Event):
    from core.models import TraceEvent

    return TraceEvent(
        ts=event.ts, type=event.type, session_id=event.session_id, turn_id=event.turn_id, payload=event.payload
    )


def record(event: Event) -> None:
    pending = getattr(_local, "pending", None)
    if pending is not None:
        pending.append(event)
        return
    _row(event).save(force_insert=True)


@contextmanager
def batch():
    if getattr(_local, "pending", None) is not None:  # nested: the outer batch writes
        yield
        return
    _local.pending = []
    try:
        yield
    finally:
        events, _local.pending = _local.pending, None
        if events:
            from core.models import TraceEvent

            TraceEvent.objects.bulk_create([_row(e) for e in events])


def install() -> None:
    bus.subscribe(ALL, record)
