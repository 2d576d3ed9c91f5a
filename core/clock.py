import time
import uuid
from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def monotonic_ms() -> float:
    return time.monotonic() * 1000.0


def as_uuid(value) -> uuid.UUID | None:
    """`value` as a UUID, or None when it is empty or not one (ids from the wire or the engine)."""
    if not value:
        return None
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def new_id() -> uuid.UUID:
    """IDs that appear in URLs are random UUIDs, never sequential."""
    return uuid.uuid4()
