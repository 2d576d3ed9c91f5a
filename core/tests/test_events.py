import uuid

import pytest

from core import trace
from core.events import ALL, EventBus, bus
from core.models import TraceEvent


def test_subscribers_receive_their_type_and_wildcards_receive_all():
    local = EventBus()
    seen = []
    local.subscribe("turn.started", lambda e: seen.append(("typed", e.type)))
    local.subscribe(ALL, lambda e: seen.append(("all", e.type)))
    local.emit("turn.started", {"x": 1})
    local.emit("turn.completed")
    assert seen == [("typed", "turn.started"), ("all", "turn.started"), ("all", "turn.completed")]


def test_an_unknown_event_type_is_a_programming_error():
    with pytest.raises(ValueError):
        EventBus().emit("turn.exploded")
    with pytest.raises(ValueError):
        EventBus().subscribe("nope", print)


def test_a_failing_subscriber_does_not_stop_the_others():
    local = EventBus()
    seen = []

    def broken(event):
        raise RuntimeError("boom")

    local.subscribe(ALL, broken)
    local.subscribe(ALL, lambda e: seen.append(e.type))
    local.emit("error", {"message": "x"})
    assert seen == ["error"]


@pytest.mark.django_db
def test_every_bus_event_is_written_to_the_trace_store():
    turn_id = uuid.uuid4()
    bus.emit("route.decided", {"winner": "local/x"}, turn_id=str(turn_id))
    row = TraceEvent.objects.get(turn_id=turn_id)
    assert row.type == "route.decided" and row.payload == {"winner": "local/x"}


@pytest.mark.django_db
def test_a_batch_writes_its_events_together_when_it_ends_even_on_error():
    turn_id = uuid.uuid4()
    with pytest.raises(RuntimeError):
        with trace.batch():
            bus.emit("turn.started", {}, turn_id=str(turn_id))
            bus.emit("route.decided", {}, turn_id=str(turn_id))
            assert not TraceEvent.objects.filter(turn_id=turn_id).exists()
            raise RuntimeError("worker code failed")
    assert list(TraceEvent.objects.filter(turn_id=turn_id).values_list("type", flat=True)) == [
        "turn.started",
        "route.decided",
    ]
