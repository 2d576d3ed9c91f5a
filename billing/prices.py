"""List prices of the default cloud models, USD per million tokens. Local models cost nothing.

Sources: Anthropic's public pricing page (Claude Opus 4.5, Sonnet 4.5, Haiku 4.5: input, output,
5-minute cache write, cache read) and OpenAI's public pricing page (GPT-5, GPT-5 mini: input,
output, cached input), as published in late 2025."""

from decimal import Decimal

from billing.cost import FREE, Price

LIST_PRICES: dict[str, Price] = {
    "claude-opus-4-5": Price(Decimal("5"), Decimal("25"), Decimal("0.50"), Decimal("6.25")),
    "claude-sonnet-4-5": Price(Decimal("3"), Decimal("15"), Decimal("0.30"), Decimal("3.75")),
    "claude-haiku-4-5": Price(Decimal("1"), Decimal("5"), Decimal("0.10"), Decimal("1.25")),
    "gpt-5": Price(Decimal("1.25"), Decimal("10"), Decimal("0.125")),
    "gpt-5-mini": Price(Decimal("0.25"), Decimal("2"), Decimal("0.025")),
}


def list_price(*, provider_kind: str, api_model: str) -> Price | None:
    """The price of a call to `api_model`; None when we do not know it (the caller says so)."""
    if provider_kind == "local":
        return FREE
    return LIST_PRICES.get(api_model)
