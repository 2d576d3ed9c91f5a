"""Which price applies to a call: the newest price version whose `effective_from` is not after
the call. Versions are kept in memory and reloaded when the table changes (checked at most
every few seconds), so pricing a call costs no query."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Max

from billing.cost import FREE, Price, call_cost
from billing.models import ModelPrice, PriceVersion
from core.ir import Usage

_RELOAD_EVERY_S = 5.0
_lock = threading.Lock()
_state: dict = {"checked": 0.0, "signature": None, "versions": []}  # versions: newest first


def _signature() -> tuple:
    versions = PriceVersion.objects.aggregate(n=Count("id"), last=Max("id"), newest=Max("effective_from"))
    prices = ModelPrice.objects.aggregate(n=Count("id"), last=Max("id"))
    return (versions["n"], versions["last"], versions["newest"], prices["n"], prices["last"])


def _load() -> list[tuple[datetime, int, dict[tuple[str, str], Price]]]:
    out = []
    for version in PriceVersion.objects.prefetch_related("prices").order_by("-effective_from"):
        table = {
            (p.provider_kind, p.api_model): Price(
                p.input_per_mtok, p.output_per_mtok, p.cache_read_per_mtok, p.cache_write_per_mtok
            )
            for p in version.prices.all()
        }
        out.append((version.effective_from, version.pk, table))
    return out


def _versions(force: bool = False):
    now = time.monotonic()
    if force or now - _state["checked"] > _RELOAD_EVERY_S:
        with _lock:
            signature = _signature()
            if force or signature != _state["signature"]:
                _state["versions"] = _load()
                _state["signature"] = signature
            _state["checked"] = now
    return _state["versions"]


def invalidate() -> None:
    _state["checked"] = 0.0
    _state["signature"] = None


def price_at(*, provider_kind: str, api_model: str, at: datetime) -> tuple[Price | None, int | None]:
    """(price, version id) for a call made at `at`; local models are free. (None, None) when no
    version in force knows the model: the caller records the call at $0 and says so."""
    if provider_kind == "local":
        return FREE, None
    for effective_from, version_id, table in _versions():
        if effective_from <= at:
            price = table.get((provider_kind, api_model)) or table.get(("*", api_model))
            if price is not None:
                return price, version_id
    return None, None


def worst_case(price: Price | None, *, prompt_tokens: int, max_tokens: int) -> Decimal:
    """What a call can cost at most: the whole prompt at the input rate and every output token."""
    if price is None:
        return Decimal("0")
    return call_cost(usage=Usage(input_tokens=prompt_tokens, output_tokens=max_tokens), price=price)
