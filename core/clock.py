import time
import uuid
from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def monotonic_ms() -> float:
    return time.monotonic() * 1000.0


def new_id() -> uuid.UUID:
    """IDs that appear in URLs are random UUIDs, never sequential."""
    return uuid.uuid4()
