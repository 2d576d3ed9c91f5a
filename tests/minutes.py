"""Rate limits count per calendar minute (billing.gate.check_rate): a test that makes a burst and
reads its count must not straddle two minutes."""

import time

from core.clock import now


def early_in_a_minute(needed_s: float = 10) -> None:
    """Wait, when needed, until at least `needed_s` of the current minute are left."""
    moment = now()
    second = moment.second + moment.microsecond / 1e6
    if second > 60 - needed_s:
        time.sleep(60.2 - second)
