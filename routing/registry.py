"""Configured models, their aliases, and one pooled adapter per model per process."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from routing.providers.base import ProviderAdapter
from routing.providers.local import LocalLlamaAdapter


class UnknownModel(LookupError):
    pass


@dataclass(frozen=True)
class ModelConfig:
    id: str
    provider: str
    api_model: str
    base_url: str
    context_window: int
    max_output_tokens: int
    aliases: tuple[str, ...] = ()
    # USD per million tokens; the billing app owns versioned prices, this is the list default.
    input_price_per_mtok: Decimal = Decimal("0")
    output_price_per_mtok: Decimal = Decimal("0")


def configured_models() -> dict[str, ModelConfig]:
    local = ModelConfig(
        id=f"local/{settings.METNOS_LOCAL_MODEL_NAME}",
        provider="local",
        api_model=settings.METNOS_LOCAL_MODEL_NAME,
        base_url=settings.METNOS_LOCAL_MODEL_URL,
        context_window=settings.METNOS_LOCAL_MODEL_CTX,
        max_output_tokens=settings.METNOS_LOCAL_MAX_TOKENS,
        aliases=("local", "default", settings.METNOS_LOCAL_MODEL_NAME),
    )
    return {local.id: local}


def default_model() -> ModelConfig:
    return next(iter(configured_models().values()))


def resolve(name: str | None) -> ModelConfig:
    models = configured_models()
    if not name:
        return default_model()
    if name in models:
        return models[name]
    for model in models.values():
        if name in model.aliases:
            return model
    raise UnknownModel(f"unknown model {name!r}; configured: {', '.join(sorted(models))}")


_adapters: dict[tuple, ProviderAdapter] = {}
_lock = threading.Lock()


def adapter_for(model: ModelConfig) -> ProviderAdapter:
    key = (model.id, model.base_url)
    with _lock:
        adapter = _adapters.get(key)
        if adapter is None:
            if model.provider != "local":
                raise UnknownModel(f"no adapter for provider {model.provider!r}")
            adapter = LocalLlamaAdapter(
                base_url=model.base_url,
                timeout_s=settings.METNOS_MODEL_TIMEOUT_S,
                connect_timeout_s=settings.METNOS_MODEL_CONNECT_TIMEOUT_S,
            )
            _adapters[key] = adapter
        return adapter
