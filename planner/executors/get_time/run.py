from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    name = args.get("tz") or "UTC"
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ExecutorError(
            "invalid_args", f"unknown time zone {name!r}; use an IANA name such as Europe/Rome"
        ) from None
    now = (ctx.now or datetime.now(UTC)).astimezone(zone)
    return {
        "ok": True,
        "iso": now.isoformat(timespec="seconds"),
        "date": now.date().isoformat(),
        "time": now.strftime("%H:%M:%S"),
        "weekday": now.strftime("%A"),
        "tz": name,
    }
