"""The availability state machine, driven by a controllable clock against real Redis."""

import pytest

from routing.availability import Availability
from routing.providers.base import ProviderError


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def avail(clock, availability_prefix):
    state = Availability(clock=clock, prefix=f"{availability_prefix}:sm")
    yield state
    state.reset()


def fail(avail, kind, model="m1", provider="p1", **kw):
    avail.record_failure(model, provider, ProviderError(kind, "boom", **kw))


def test_a_model_goes_unavailable_after_five_consecutive_failures_within_two_minutes(avail, clock):
    for _ in range(4):
        fail(avail, "server")
        clock.advance(20)
    assert avail.unavailable_reason("m1", "p1") is None
    fail(avail, "server")
    assert "model m1 is unavailable" in avail.unavailable_reason("m1", "p1")
    assert avail.unavailable_reason("m2", "p1") is None, "other models of the provider are unaffected"


def test_failures_spread_over_more_than_two_minutes_do_not_add_up(avail, clock):
    for _ in range(5):
        fail(avail, "server")
        clock.advance(40)
    assert avail.unavailable_reason("m1", "p1") is None


def test_a_success_resets_the_consecutive_count_and_recovers_at_once(avail, clock):
    for _ in range(4):
        fail(avail, "timeout", provider=f"p{_}")
    avail.record_success("m1", "p1")
    fail(avail, "server")
    assert avail.unavailable_reason("m1", "p1") is None
    for _ in range(5):
        fail(avail, "server")
    assert avail.unavailable_reason("m1", "p1")
    avail.record_success("m1", "p1")
    assert avail.unavailable_reason("m1", "p1") is None


def test_any_auth_error_takes_the_whole_provider_down(avail):
    fail(avail, "auth", model="m1", provider="anthropic")
    assert "provider anthropic is unavailable (auth error)" in avail.unavailable_reason("m2", "anthropic")
    assert avail.unavailable_reason("m3", "openai") is None


def test_two_network_errors_within_thirty_seconds_take_the_provider_down(avail, clock):
    fail(avail, "network")
    clock.advance(31)
    fail(avail, "network")
    assert avail.unavailable_reason("m9", "p1") is None, "31 s apart: one SSL hiccup each"
    clock.advance(10)
    fail(avail, "timeout")
    assert "network errors" in avail.unavailable_reason("m9", "p1")


def test_state_recovers_after_five_minutes_without_attempts(avail, clock):
    fail(avail, "auth")
    clock.advance(299)
    assert avail.unavailable_reason("m1", "p1")
    clock.advance(2)
    assert avail.unavailable_reason("m1", "p1") is None


def test_a_rate_limit_cools_the_model_down_for_retry_after(avail, clock):
    fail(avail, "rate_limit", retry_after_s=30)
    assert "rate limited for 30 s" in avail.unavailable_reason("m1", "p1")
    clock.advance(31)
    assert avail.unavailable_reason("m1", "p1") is None


def test_request_errors_say_nothing_about_the_model(avail):
    for _ in range(10):
        fail(avail, "bad_request")
        fail(avail, "context_length")
    assert avail.unavailable_reason("m1", "p1") is None


def test_the_state_is_shared_across_instances_like_across_processes(avail, clock, availability_prefix):
    other_process = Availability(clock=clock, prefix=f"{availability_prefix}:sm")
    fail(avail, "auth")
    assert other_process.unavailable_reason("m1", "p1")
