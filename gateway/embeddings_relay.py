"""The relay of an embeddings request to an OpenAI-compatible provider's /v1/embeddings: its
transport (pooled, with timeouts and typed errors) is the chat adapters' own base class, one relay
per provider endpoint as routing keeps one adapter per endpoint."""

from __future__ import annotations

import threading

from routing.providers.base import ProviderAdapter
from routing.registry import ModelConfig


class Relay(ProviderAdapter):
    """The transport of an OpenAI-compatible provider (pooled, with timeouts, typed errors), for
    its embeddings endpoint: the chat adapters know nothing of embeddings."""

    PATH = "/v1/embeddings"

    def __init__(self, *, provider: str, api_key: str, **kw):
        super().__init__(headers={"Authorization": f"Bearer {api_key}"} if api_key else {}, **kw)
        self.provider = provider

    def embed(self, body: dict) -> dict:
        answer = self._post_json(self.PATH, body)
        if not isinstance(answer.get("data"), list) or not isinstance(answer.get("usage") or {}, dict):
            raise self._error("protocol", f"{self.provider} answered /v1/embeddings without a `data` list")
        return answer


_relays: dict[tuple, Relay] = {}
_relays_lock = threading.Lock()


def relay_for(model: ModelConfig) -> Relay:
    key = (model.provider, model.base_url, model.api_key, model.call_timeouts)
    with _relays_lock:
        relay = _relays.get(key)
        if relay is None:
            relay = Relay(
                provider=model.provider,
                api_key=model.api_key,
                base_url=model.base_url,
                timeouts=model.call_timeouts,
            )
            _relays[key] = relay
        return relay
