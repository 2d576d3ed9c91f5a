"""How long a provider asks us to wait, in every form it may say it: `Retry-After` as seconds or
as an HTTP date, and OpenAI's `retry-after-ms`."""

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from routing.providers.base import _retry_after, error_for_status


def wait(**headers: str) -> float | None:
    return _retry_after(httpx.Headers({name.replace("_", "-"): value for name, value in headers.items()}))


def test_it_reads_seconds_whole_or_not():
    assert wait(retry_after="30") == 30.0
    assert wait(retry_after="1.5") == 1.5


def test_it_prefers_openais_milliseconds_to_the_rounded_seconds():
    assert wait(retry_after="46", retry_after_ms="45190") == pytest.approx(45.19)
    assert wait(retry_after_ms="250") == pytest.approx(0.25)


def test_it_reads_an_http_date_as_the_seconds_until_then():
    later = datetime.now(UTC) + timedelta(seconds=120)
    assert 115 <= wait(retry_after=format_datetime(later, usegmt=True)) <= 120
    assert 115 <= wait(retry_after=later.strftime("%a, %d %b %Y %H:%M:%S -0000")) <= 120


def test_a_date_in_the_past_or_a_negative_number_means_now():
    earlier = datetime.now(UTC) - timedelta(minutes=5)
    assert wait(retry_after=format_datetime(earlier, usegmt=True)) == 0.0
    assert wait(retry_after="-3") == 0.0


def test_it_ignores_what_it_cannot_read():
    assert wait() is None
    assert wait(retry_after="soon") is None
    assert wait(retry_after="inf") is None
    assert wait(retry_after_ms="later", retry_after="7") == 7.0


def test_a_rate_limit_carries_the_wait_in_any_form():
    headers = httpx.Headers({"retry-after-ms": "1200", "retry-after": "2"})
    error = error_for_status(429, "slow down", headers)
    assert error.kind == "rate_limit" and error.retry_after_s == pytest.approx(1.2)
