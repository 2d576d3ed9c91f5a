"""The websocket frame budget, on a clock the test moves."""

from agents.consumers import FrameBudget


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_burst_passes_then_frames_drop_with_one_notice_a_second_and_a_flood_closes():
    clock = Clock()
    budget = FrameBudget(rate=5, burst=3, close_after=10, clock=clock)
    assert [budget.take() for _ in range(3)] == ["ok"] * 3
    assert [budget.take() for _ in range(3)] == ["notice", "drop", "drop"]
    clock.now += 0.2  # one frame's worth of refill
    assert budget.take() == "ok"
    assert budget.take() == "drop"  # the notice was less than a second ago
    clock.now += 1.0
    assert [budget.take() for _ in range(5)] == ["ok"] * 3 + ["notice", "drop"]
    assert [budget.take() for _ in range(8)][-1] == "close"  # ten dropped in a row
