"""What the chat's model picker lists: every enabled model, with its tier, context size, price per
million tokens, where it runs, and whether it can serve now (and why not). Picking one pins it
for the session (slot 2 of the routing chain); a model chosen for one message is slot 1."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal

from billing.pricing import price_at
from core.clock import now
from routing.availability import availability
from routing.registry import current


@dataclass(frozen=True)
class Choice:
    name: str
    aliases: list[str]
    provider: str
    tier: str
    where: str  # "local" | "cloud"
    context_window: int
    input_per_mtok: str | None  # USD, None when no price is on file
    output_per_mtok: str | None
    supports_tools: bool
    supports_vision: bool
    available: bool
    unavailable_reason: str | None


def _per_mtok(amount: Decimal) -> str:
    """A price to read ("3.00", "0.15", "0.0375"), not the ledger's eight decimals."""
    text = f"{Decimal(amount).quantize(Decimal('0.0001')).normalize():f}"
    whole, _, cents = text.partition(".")
    return f"{whole}.{cents.ljust(2, '0')}"


def choices() -> list[dict]:
    models = [m for m in current().all() if m.enabled]
    down = availability.unavailable_reasons([(m.name, m.provider) for m in models if m.configured])
    at = now()
    out = []
    for m in models:
        price, _ = price_at(provider_kind=m.provider_kind, api_model=m.api_model, at=at)
        if not m.configured:
            reason = f"not configured: set {m.api_key_env} on the server" if m.api_key_env else "not configured"
        else:
            reason = down.get(m.name)
        out.append(
            Choice(
                name=m.name,
                aliases=list(m.aliases),
                provider=m.provider,
                tier=m.tier,
                where="local" if m.is_local else "cloud",
                context_window=m.context_window,
                input_per_mtok=_per_mtok(price.input_per_mtok) if price else None,
                output_per_mtok=_per_mtok(price.output_per_mtok) if price else None,
                supports_tools=m.supports_tools,
                supports_vision=m.supports_vision,
                available=reason is None,
                unavailable_reason=reason,
            )
        )
    # Those that can serve first, local before cloud, then by name.
    out.sort(key=lambda c: (not c.available, c.where != "local", c.name))
    return [asdict(c) for c in out]
