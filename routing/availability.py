"""Which models and providers are usable right now, shared by every process through Redis.

State machine, per model and per provider:
- A model goes unavailable after 5 consecutive failures within 2 minutes.
- A provider goes unavailable on any auth error or refused connection (nothing listens), or on
  2 or more network errors (timeouts included) within 30 seconds.
- A rate_limit error with Retry-After cools the model down for that long.
- Unavailable state recovers after 5 minutes with no attempts, or on the first success.
Request errors (bad_request, context_length) say nothing about the model and are not counted."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import redis
from django.conf import settings

from routing.providers.base import ProviderError

MODEL_FAILURES, MODEL_WINDOW_S = 5, 120.0
PROVIDER_NETWORK_FAILURES, PROVIDER_WINDOW_S = 2, 30.0
RECOVER_AFTER_S = 300.0

_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0)
    return _client


class Availability:
    def __init__(
        self, *, client: redis.Redis | None = None, clock: Callable[[], float] = time.time, prefix: str | None = None
    ):
        self._client = client
        self.clock = clock
        self._prefix = prefix

    @property
    def prefix(self) -> str:
        return self._prefix or settings.METNOS_AVAILABILITY_PREFIX

    @property
    def client(self) -> redis.Redis:
        return self._client or _redis()

    def _model_key(self, model: str) -> str:
        return f"{self.prefix}:model:{model}"

    def _provider_key(self, provider: str) -> str:
        return f"{self.prefix}:provider:{provider}"

    # -- reads ---------------------------------------------------------------
    def unavailable_reasons(self, pairs: list[tuple[str, str]]) -> dict[str, str]:
        """For (model, provider) pairs, the models that cannot be used now, with why. One round trip."""
        if not pairs:
            return {}
        keys = [k for model, provider in pairs for k in (self._model_key(model), self._provider_key(provider))]
        try:
            raw = self.client.mget(keys)
        except redis.RedisError:
            return {}  # no availability data is not a reason to refuse every model
        now = self.clock()
        reasons = {}
        for i, (model, provider) in enumerate(pairs):
            why = self._reason(raw[2 * i], now, f"model {model}") or self._reason(
                raw[2 * i + 1], now, f"provider {provider}"
            )
            if why:
                reasons[model] = why
        return reasons

    def unavailable_reason(self, model: str, provider: str) -> str | None:
        return self.unavailable_reasons([(model, provider)]).get(model)

    @staticmethod
    def _reason(raw: bytes | None, now: float, what: str) -> str | None:
        if not raw:
            return None
        state = json.loads(raw)
        if state.get("cooldown_until", 0) > now:
            return f"{what} is rate limited for {state['cooldown_until'] - now:.0f} s more"
        if state.get("down") and now - state.get("last_attempt", 0) < RECOVER_AFTER_S:
            return f"{what} is unavailable ({state.get('cause', 'failures')})"
        return None

    # -- writes --------------------------------------------------------------
    def record_success(self, model: str, provider: str) -> None:
        try:
            self.client.delete(self._model_key(model), self._provider_key(provider))
        except redis.RedisError:
            pass

    def record_failure(self, model: str, provider: str, error: ProviderError) -> None:
        if error.kind in ("bad_request", "context_length"):
            return
        now = self.clock()
        try:
            if error.kind == "auth":
                self._update(self._provider_key(provider), lambda s: s | {"down": True, "cause": "auth error"}, now)
            elif getattr(error, "refused", False):  # nothing listens: down now, not after a count
                self._update(
                    self._provider_key(provider), lambda s: s | {"down": True, "cause": "connection refused"}, now
                )
            elif error.kind in ("network", "timeout"):
                self._update(
                    self._provider_key(provider),
                    lambda s: _count(s, now, PROVIDER_WINDOW_S, PROVIDER_NETWORK_FAILURES, "network errors"),
                    now,
                )
            if error.kind == "rate_limit":
                cooldown = error.retry_after_s or 0.0
                self._update(self._model_key(model), lambda s: s | {"cooldown_until": now + cooldown}, now)
            elif error.kind != "auth":
                self._update(
                    self._model_key(model),
                    lambda s: _count(s, now, MODEL_WINDOW_S, MODEL_FAILURES, "consecutive failures"),
                    now,
                )
        except redis.RedisError:
            pass

    def _update(self, key: str, change: Callable[[dict], dict], now: float) -> None:
        """Read-modify-write under WATCH, so concurrent workers do not lose each other's counts."""

        def apply(pipe: redis.client.Pipeline) -> None:
            raw = pipe.get(key)
            state = json.loads(raw) if raw else {}
            if state.get("down") and now - state.get("last_attempt", 0) >= RECOVER_AFTER_S:
                state = {}  # it had recovered; this failure starts a new count
            state = change(state) | {"last_attempt": now}
            pipe.multi()
            pipe.set(key, json.dumps(state), ex=int(RECOVER_AFTER_S * 4))

        self.client.transaction(apply, key)

    def reset(self) -> None:
        keys = list(self.client.scan_iter(f"{self.prefix}:*"))
        if keys:
            self.client.delete(*keys)


def _count(state: dict, now: float, window_s: float, threshold: int, cause: str) -> dict:
    failures = [t for t in state.get("failures", []) if now - t <= window_s] + [now]
    return state | {"failures": failures, "down": state.get("down") or len(failures) >= threshold, "cause": cause}


availability = Availability()
