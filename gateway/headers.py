"""The headers a gateway response carries, in the inbound shape's own names: its request id on
every response (`x-request-id` in the OpenAI shape, `request-id` in Anthropic's), and what is left
of the key's and its user's rate limits (billing's requests and tokens per minute) once a call has
met them, as each real API reports its own limits.

A call that was admitted is known by its ledger row: its request id is `req_` and the row id's
hex, so the row, and its `llm.call_completed` trace event (`ledger_id`), are found from the id a
client reports. A request that ends before admission gets an id of its own."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import redis

from billing import gate

logger = logging.getLogger(__name__)

REQUEST_ID = {"openai": "x-request-id", "responses": "x-request-id", "anthropic": "request-id"}
_ID_ATTR, _EXTRA_ATTR = "metnos_request_id", "metnos_headers"


def request_id(request) -> str:
    rid = getattr(request, _ID_ATTR, None)
    if rid is None:
        rid = f"req_{uuid.uuid4().hex}"
        setattr(request, _ID_ATTR, rid)
    return rid


def admitted(request, ledger_id) -> None:
    setattr(request, _ID_ATTR, f"req_{uuid.UUID(str(ledger_id)).hex}")


def add(request, values: dict[str, str]) -> None:
    """Headers for whatever response this request gets, its error included."""
    setattr(request, _EXTRA_ATTR, {**getattr(request, _EXTRA_ATTR, {}), **values})


def stamp(request, response, shape_name: str):
    """The request's headers on its response; those the response already has stay."""
    for name, value in ((REQUEST_ID[shape_name], request_id(request)), *getattr(request, _EXTRA_ATTR, {}).items()):
        if name not in response:
            response[name] = value
    return response


@dataclass(frozen=True)
class Window:
    limit: int
    remaining: int
    used: int


@dataclass(frozen=True)
class Left:
    """The tightest of the key's and the user's limits, for requests and for tokens, in the
    calendar minute that ends at `resets_at` (billing's fixed windows)."""

    requests: Window | None
    tokens: Window | None
    resets_at: datetime

    @property
    def exceeded(self) -> str | None:
        if self.requests and self.requests.used > self.requests.limit:
            return "requests"
        if self.tokens and self.tokens.used > self.tokens.limit:
            return "tokens"
        return None


def rate_left(identity: gate.Identity, at: datetime) -> Left | None:
    """What is left this minute, read after billing counted the call; None when no limit
    applies or Redis cannot say (the headers are advice, never a reason to fail a call)."""
    try:
        used = gate.rate_used(identity, at=at)
    except redis.RedisError as exc:
        logger.warning("no rate-limit headers: Redis cannot say what is left (%s)", exc)
        return None
    if not used:
        return None
    requests, tokens = [], []
    for lim, used_requests, used_tokens in used:
        if lim.rpm:
            requests.append(Window(lim.rpm, max(lim.rpm - used_requests, 0), used_requests))
        if lim.tpm:
            tokens.append(Window(lim.tpm, max(lim.tpm - used_tokens, 0), used_tokens))

    def tightest(windows: list[Window]) -> Window | None:
        return min(windows, key=lambda w: (w.remaining, w.limit - w.used)) if windows else None

    resets_at = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return Left(tightest(requests), tightest(tokens), resets_at)


def rate_headers(shape_name: str, left: Left | None, at: datetime) -> dict[str, str]:
    """OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset as a duration,
    `54s`) or Anthropic's `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` (reset
    as an RFC 3339 time)."""
    if left is None:
        return {}
    out = {}
    for kind, window in (("requests", left.requests), ("tokens", left.tokens)):
        if window is None:
            continue
        if shape_name != "anthropic":
            seconds = max((left.resets_at - at).total_seconds(), 0.0)
            out |= {f"x-ratelimit-limit-{kind}": str(window.limit),
                    f"x-ratelimit-remaining-{kind}": str(window.remaining),
                    f"x-ratelimit-reset-{kind}": f"{seconds:.3f}".rstrip("0").rstrip(".") + "s"}  # fmt: skip
        else:
            out |= {f"anthropic-ratelimit-{kind}-limit": str(window.limit),
                    f"anthropic-ratelimit-{kind}-remaining": str(window.remaining),
                    f"anthropic-ratelimit-{kind}-reset": left.resets_at.strftime("%Y-%m-%dT%H:%M:%SZ")}  # fmt: skip
    return out
