"""The trace store: a bus subscriber that writes every event to Postgres.

It writes inside whatever transaction the emitter is in, so a turn's trace commits
(or rolls back) together with the turn."""

from core.events import ALL, Event, bus


def record(event: Event) -> None:
    from core.models import TraceEvent

    TraceEvent.objects.create(
        ts=event.ts,
        type=event.type,
        session_id=event.session_id,
        turn_id=event.turn_id,
        payload=event.payload,
    )


def install() -> None:
    bus.subscribe(ALL, record)


def events_for_turn(turn_id) -> list[dict]:
    from core.models import TraceEvent

    return list(TraceEvent.objects.filter(turn_id=turn_id).order_by("ts").values("type", "ts", "payload"))
