"""The configured models as an in-process snapshot of the database, and one pooled adapter per
provider endpoint. The snapshot is rebuilt when an admin edit bumps a version number in the
shared cache, so every process sees the change on its next decision."""

from __future__ import annotations

import difflib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from core.tokens import counter, estimate
from routing import params as param_rules
from routing.local import model_path
from routing.providers.anthropic import AnthropicAdapter
from routing.providers.base import ProviderAdapter, Timeouts
from routing.providers.local import LocalLlamaAdapter
from routing.providers.openai_compat import OpenAICompatAdapter, OpenRouterAdapter

VERSION_KEY = "metnos:routing:registry-version"
_VERSION_CHECK_S = 1.0
# The plan length a model may propose when its row does not say (routing/defaults.py gives the
# local tiers their own).
PLAN_STEPS = 20


class UnknownModel(LookupError):
    pass


@dataclass(frozen=True)
class ModelConfig:
    name: str
    provider: str
    provider_kind: str
    api_model_name: str = ""
    stored_base_url: str = ""
    api_key_env: str = ""
    timeouts: Timeouts = field(default_factory=Timeouts)
    aliases: tuple[str, ...] = ()
    tier: str = ""
    supports_vision: bool = False
    supports_tools: bool = True
    supports_system_prompt: bool = True
    supports_structured_output: bool = False
    context_window: int = 8192
    max_output_tokens: int = 4096
    params: dict = field(default_factory=dict)
    enabled: bool = True

    @property
    def is_local(self) -> bool:
        return self.provider_kind == "local"

    @property
    def rules(self) -> param_rules.ParamRules:
        """What the provider's API refuses or names differently (params["rules"]; routing/params.py)."""
        return param_rules.parse(self.params.get("rules"))

    @property
    def call_timeouts(self) -> Timeouts:
        """The local server keeps its own settings: it is started with them (METNOS_MODEL_TIMEOUT_S
        bounds every wait, as it always has)."""
        if self.is_local:
            seconds = settings.METNOS_MODEL_TIMEOUT_S
            return Timeouts.uniform(seconds, connect_s=settings.METNOS_MODEL_CONNECT_TIMEOUT_S)
        return self.timeouts

    @property
    def base_url(self) -> str:
        if self.is_local and not self.stored_base_url:
            return settings.METNOS_LOCAL_MODEL_URL
        return self.stored_base_url

    @property
    def api_model(self) -> str:
        if self.is_local and not self.api_model_name:
            return settings.METNOS_LOCAL_MODEL_NAME
        return self.api_model_name

    @property
    def api_key(self) -> str:
        return os.environ.get(self.api_key_env, "") if self.api_key_env else ""

    @property
    def configured(self) -> bool:
        """Usable at all: enabled, and a cloud model only when its key is in the environment."""
        return self.enabled and (self.is_local or bool(self.api_key))

    def output_budget(self, requested: int | None = None) -> int:
        """The max_tokens to send: what was asked (or the tier's budget), never above the model's real maximum."""
        wanted = requested or self.params.get("max_tokens") or self.max_output_tokens
        return max(1, min(int(wanted), self.max_output_tokens))

    def budget(self, kind: str) -> int:
        """The max_tokens for one kind of call the agent makes: `plan` (a whole plan), `action` (one
        ReAct action), `answer` (a value the engine asks for, an answer it writes). The row's
        params["<kind>_max_tokens"] sets it (the local tiers: short, grammar-decoded); a model
        without one may write up to its output budget, so a plan can carry a whole file."""
        return self.output_budget(self.params.get(f"{kind}_max_tokens"))

    def count_tokens(self, text: str) -> int:
        """Tokens in `text` for this model: a local model's own tokenizer (the shipped GGUF, read
        vocab-only), the estimate for any other (core.tokens)."""
        return _local_counter(settings.METNOS_LOCAL_MODEL_PATH)(text) if self.is_local else estimate(text)

    @property
    def plan_steps(self) -> int:
        """The most steps a plan from this model may have: params["plan_max_steps"] (the local
        tiers: a short plan a small model can write), else PLAN_STEPS."""
        return max(1, int(self.params.get("plan_max_steps") or PLAN_STEPS))


@lru_cache(maxsize=2)
def _local_counter(configured_path: str) -> Callable[[str], int]:
    try:
        return counter(str(model_path()))
    except ImproperlyConfigured:
        return estimate  # no GGUF here (a cloud-only deployment): the estimate


class Registry:
    def __init__(self, models: list[ModelConfig]):
        self.models = {m.name: m for m in models}
        self._by_alias = {alias: m for m in models for alias in m.aliases}

    def get(self, name: str) -> ModelConfig | None:
        return self.models.get(name) or self._by_alias.get(name)

    def resolve(self, name: str) -> ModelConfig:
        model = self.get(name)
        if model is None:
            known = sorted({*self.models, *self._by_alias})
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known)}"
            raise UnknownModel(f"unknown model {name!r}{hint}")
        return model

    def all(self) -> list[ModelConfig]:
        return list(self.models.values())


def _checked_params(row) -> dict:
    """The row's params, its rules checked now: a bad edit made outside the admin (which checks
    them too) fails loudly here, naming the model, rather than on its first call."""
    try:
        param_rules.parse((row.params or {}).get("rules"))
    except param_rules.InvalidRules as exc:
        raise ImproperlyConfigured(f"model {row.name}: params.rules: {exc}") from exc
    return dict(row.params or {})


def _load() -> Registry:
    from routing.models import ChatModel

    rows = ChatModel.objects.select_related("provider").all()
    return Registry(
        [
            ModelConfig(
                name=row.name,
                provider=row.provider.name,
                provider_kind=row.provider.kind,
                api_model_name=row.api_model,
                stored_base_url=row.provider.base_url,
                api_key_env=row.provider.api_key_env,
                timeouts=Timeouts(
                    connect_s=row.provider.connect_timeout_s,
                    first_byte_s=row.provider.first_byte_timeout_s,
                    idle_s=row.provider.idle_timeout_s,
                    total_s=row.provider.total_timeout_s,
                ),
                aliases=tuple(row.aliases),
                tier=row.tier,
                supports_vision=row.supports_vision,
                supports_tools=row.supports_tools,
                supports_system_prompt=row.supports_system_prompt,
                supports_structured_output=row.supports_structured_output,
                context_window=row.context_window,
                max_output_tokens=row.max_output_tokens,
                params=_checked_params(row),
                enabled=row.enabled and row.provider.enabled,
            )
            for row in rows
        ]
    )


class _Snapshot:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._registry: Registry | None = None
        self._version: int | None = None
        self._checked_at = 0.0

    def get(self) -> Registry:
        now = time.monotonic()
        if self._registry is not None and now - self._checked_at < _VERSION_CHECK_S:
            return self._registry
        version = cache.get(VERSION_KEY, 0)
        with self._lock:
            if self._registry is None or version != self._version:
                self._registry = _load()
                self._version = version
            self._checked_at = now
            return self._registry

    def invalidate(self) -> None:
        with self._lock:
            self._registry = None


_snapshot = _Snapshot()


def current() -> Registry:
    return _snapshot.get()


def bump_version() -> None:
    """Tell every process that the registry changed (called after a Provider/ChatModel write)."""
    try:
        cache.incr(VERSION_KEY)
    except ValueError:
        cache.set(VERSION_KEY, 1, timeout=None)
    _snapshot.invalidate()


def invalidate_local() -> None:
    _snapshot.invalidate()


def resolve(name: str) -> ModelConfig:
    return current().resolve(name)


_adapters: dict[tuple, ProviderAdapter] = {}
_adapters_lock = threading.Lock()


def adapter_for(model: ModelConfig) -> ProviderAdapter:
    """The pooled adapter of the model's endpoint, timeouts and parameter rules: models that share
    all of them share one connection pool, and an edit to any makes a new adapter."""
    key = (model.provider_kind, model.base_url, model.api_key, model.call_timeouts, model.rules)
    with _adapters_lock:
        adapter = _adapters.get(key)
        if adapter is None:
            adapter = _build_adapter(model)
            _adapters[key] = adapter
        return adapter


def _build_adapter(model: ModelConfig) -> ProviderAdapter:
    common = {"base_url": model.base_url, "timeouts": model.call_timeouts, "rules": model.rules}
    if model.provider_kind == "local":
        return LocalLlamaAdapter(**common)
    if model.provider_kind == "anthropic":
        return AnthropicAdapter(api_key=model.api_key, **common)
    if model.provider_kind == "openrouter":
        return OpenRouterAdapter(api_key=model.api_key, **common)
    if model.provider_kind == "openai":
        return OpenAICompatAdapter(api_key=model.api_key, **common)
    raise UnknownModel(f"no adapter for provider kind {model.provider_kind!r}")
