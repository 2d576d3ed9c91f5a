"""What every provider adapter shares: a typed error, the HTTP transport (httpx, pooled, with
timeouts) and a server-sent-events reader. Adapters only translate shapes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import httpx

from core.ir import ChatRequest, ChatResponse, StreamEvent

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
    raw = headers.get("retry-after")
    try:
        return float(raw) if raw else None
    except ValueError:
        return None


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


class ProviderAdapter:
    """An adapter for one wire format. Subclasses implement `complete` and `stream`."""

    provider: str = ""

    def __init__(
        self,
        *,
        base_url: str,
        headers: dict[str, str] | None = None,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
    ):
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Content-Type": "application/json", **(headers or {})},
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=50),
        )

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

    def _transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        if isinstance(exc, httpx.TimeoutException):
            return self._error("timeout", f"{self.provider} at {self.base_url} timed out")
        refused = isinstance(exc, httpx.ConnectError)
        return self._error(
            "network", f"model unreachable at {self.base_url}: {exc.__class__.__name__}", refused=refused
        )

    def _post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(path, json=body)
            self._check(response)
            data = response.json()
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._error("protocol", f"{self.provider} returned a body that is not JSON") from None
        if not isinstance(data, dict):
            raise self._error("protocol", f"{self.provider} returned JSON that is not an object")
        return data

    def _sse(self, path: str, body: dict[str, Any]) -> Iterator[tuple[str, str]]:
        """Yield (event name, data) per server-sent event; the name is "" when none was sent."""
        try:
            with self._client.stream("POST", path, json=body) as response:
                self._check(response)
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
            raise self._transport_error(exc) from exc

    def _json_event(self, data: str) -> dict[str, Any]:
        try:
            parsed = json.loads(data)
        except json.JSONDecodeError:
            raise self._error("protocol", f"invalid JSON in the event stream: {data[:120]}") from None
        if not isinstance(parsed, dict):
            raise self._error("protocol", "an event in the stream is not a JSON object")
        return parsed
