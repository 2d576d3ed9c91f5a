"""What every provider adapter shares: a typed error and a tiny base class."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from core.ir import ChatRequest, ChatResponse, StreamEvent

ErrorKind = Literal["auth", "rate_limit", "bad_request", "context_length", "server", "network", "timeout", "protocol"]

_PERMANENT = {"auth": True, "bad_request": True, "context_length": True}


class ProviderError(Exception):
    """A failed provider call. `permanent` says whether retrying the same call can help;
    retries and fallbacks are the routing chain's decision, never the adapter's."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None, retry_after_s: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def permanent(self) -> bool:
        return _PERMANENT.get(self.kind, False)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class ProviderAdapter:
    provider: str = ""

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise NotImplementedError

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        raise NotImplementedError

    def close(self) -> None:
        pass
