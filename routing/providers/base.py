"""What every provider adapter shares: a typed error, the HTTP transport (httpx, pooled, with
timeouts) and a server-sent-events reader. Adapters only translate shapes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from core.ir import ChatRequest, ChatResponse, StreamEvent
from routing.params import NO_RULES, ParamRules

ErrorKind = Literal[
    "auth", "rate_limit", "bad_request", "context_length", "server", "network", "timeout", "protocol", "budget"
]

_PERMANENT = {"auth": True, "bad_request": True, "context_length": True, "budget": True}
_CONTEXT_HINTS = ("context length", "context_length", "maximum context", "prompt is too long", "too many tokens")


class ProviderError(Exception):
    """A failed provider call. `permanent` says whether retrying the same call can help;
    retries and fallbacks are the routing chain's decision, never the adapter's."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after_s: float | None = None,
        provider: str = "",
        refused: bool = False,
    ):
        super().__init__(message)
        self.refused = refused  # nothing listens at the address: the server is down, not slow
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s
        self.provider = provider

    @property
    def permanent(self) -> bool:
        return _PERMANENT.get(self.kind, False)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait, in any form a provider sends it: OpenAI's `retry-after-ms` (it is the
    more precise, so it wins), then `Retry-After` as seconds or as an HTTP date (RFC 9110)."""
    import email.utils
    import math
    import time
    from datetime import UTC

    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name) or "")
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(seconds / divisor, 0.0)
    try:
        moment = email.utils.parsedate_to_datetime(headers.get("retry-after") or "")
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # `-0000`: an HTTP date is GMT all the same
        moment = moment.replace(tzinfo=UTC)
    return max(moment.timestamp() - time.time(), 0.0)


def error_for_status(status: int, body: str, headers: httpx.Headers) -> ProviderError:
    lowered = body.lower()
    if status in (401, 403):
        return ProviderError("auth", body or "unauthorized", status=status)
    if status == 429:
        return ProviderError("rate_limit", body or "rate limited", status=status, retry_after_s=_retry_after(headers))
    if status in (400, 404, 413, 422):
        kind = "context_length" if status == 413 or any(h in lowered for h in _CONTEXT_HINTS) else "bad_request"
        return ProviderError(kind, body or "bad request", status=status)
    return ProviderError("server", body or f"HTTP {status}", status=status)


@dataclass(frozen=True)
class Timeouts:
    """How long a call may wait, in seconds. A call answered in one piece gets `total_s` from start
    to end: providers write nothing until the whole answer is ready, so a read timeout would cut
    every long answer (the official SDKs wait 600 s too). A streamed call gets `first_byte_s` for
    the response to start, then `idle_s` between reads and no total: an answer that keeps arriving
    is never cut, one that stalls is."""

    connect_s: float = 5.0
    first_byte_s: float = 300.0
    idle_s: float = 120.0
    total_s: float = 600.0

    @classmethod
    def uniform(cls, seconds: float, *, connect_s: float = 5.0) -> Timeouts:
        """One limit for every wait after connecting."""
        return cls(connect_s=connect_s, first_byte_s=seconds, idle_s=seconds, total_s=seconds)


def _read_timeout(response: httpx.Response, seconds: float) -> None:
    """Set the read timeout of the rest of a response whose headers have arrived. httpcore takes it
    from the request's timeout extension when the body starts to be read, so the wait for the
    first byte and the waits between chunks can differ within one request."""
    response.request.extensions["timeout"]["read"] = max(seconds, 0.001)


class ProviderAdapter:
    """An adapter for one wire format. Subclasses implement `complete` and `stream`, and pass the
    payload they built through `_outgoing`, which applies the model's parameter rules."""

    provider: str = ""

    def __init__(
        self,
        *,
        base_url: str,
        headers: dict[str, str] | None = None,
        timeouts: Timeouts | None = None,
        timeout_s: float | None = None,
        rules: ParamRules = NO_RULES,
    ):
        self.base_url = base_url.rstrip("/")
        self.timeouts = timeouts or (Timeouts.uniform(timeout_s) if timeout_s is not None else Timeouts())
        self.rules = rules
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Content-Type": "application/json", **(headers or {})},
            timeout=self._whole_call_timeout(),
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=50),
        )

    def _whole_call_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeouts.total_s, connect=self.timeouts.connect_s)

    def _stream_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeouts.first_byte_s, connect=self.timeouts.connect_s)

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise NotImplementedError

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        raise NotImplementedError

    def close(self) -> None:
        self._client.close()

    # -- transport ---------------------------------------------------------
    def _error(self, kind: ErrorKind, message: str, **kw) -> ProviderError:
        return ProviderError(kind, message, provider=self.provider, **kw)

    def _check(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            body = response.read().decode("utf-8", "replace")[:1000]
        except httpx.HTTPError:
            body = ""
        error = error_for_status(response.status_code, body, response.headers)
        error.provider = self.provider
        raise error

    def _outgoing(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.rules.apply(body, model=str(body.get("model") or ""))

    def _transport_error(self, exc: httpx.HTTPError, waiting: str = "") -> ProviderError:
        if isinstance(exc, httpx.TimeoutException):
            if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
                waiting = f"no connection within {self.timeouts.connect_s:g} s"
            return self._error("timeout", f"{self.provider} at {self.base_url} timed out ({waiting or 'no answer'})")
        refused = isinstance(exc, httpx.ConnectError)
        return self._error(
            "network", f"model unreachable at {self.base_url}: {exc.__class__.__name__}", refused=refused
        )

    def _post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """One call answered in one piece, within the total timeout."""
        total = self.timeouts.total_s
        deadline = time.monotonic() + total
        waiting = f"no complete answer within {total:g} s"
        try:
            with self._client.stream("POST", path, json=body, timeout=self._whole_call_timeout()) as response:
                self._check(response)
                _read_timeout(response, deadline - time.monotonic())
                chunks = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise self._error("timeout", f"{self.provider} at {self.base_url} timed out ({waiting})")
            data = json.loads(b"".join(chunks))
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, waiting) from exc
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._error("protocol", f"{self.provider} returned a body that is not JSON") from None
        if not isinstance(data, dict):
            raise self._error("protocol", f"{self.provider} returned JSON that is not an object")
        return data

    def _sse(self, path: str, body: dict[str, Any]) -> Iterator[tuple[str, str]]:
        """Yield (event name, data) per server-sent event; the name is "" when none was sent. It
        fails when the response does not start within the first-byte timeout or when nothing
        arrives for the idle timeout, never because the whole stream is long."""
        waiting = f"no response within {self.timeouts.first_byte_s:g} s"
        try:
            with self._client.stream("POST", path, json=body, timeout=self._stream_timeout()) as response:
                self._check(response)
                _read_timeout(response, self.timeouts.idle_s)
                waiting = f"nothing received for {self.timeouts.idle_s:g} s"
                event, data = "", []
                for line in response.iter_lines():
                    if not line:
                        if data:
                            yield event, "\n".join(data)
                        event, data = "", []
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].lstrip())
                if data:
                    yield event, "\n".join(data)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, waiting) from exc

    def _json_event(self, data: str) -> dict[str, Any]:
        try:
            parsed = json.loads(data)
        except json.JSONDecodeError:
            raise self._error("protocol", f"invalid JSON in the event stream: {data[:120]}") from None
        if not isinstance(parsed, dict):
            raise self._error("protocol", "an event in the stream is not a JSON object")
        return parsed
