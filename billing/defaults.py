"""The first price version: list prices of the default cloud models, USD per million tokens.

Sources: Anthropic's public pricing page (Claude Opus 4.5, Sonnet 4.5, Haiku 4.5: input, output,
cache read, 5-minute cache write) and OpenAI's public pricing page (GPT-5, GPT-5 mini: input,
output, cached input; OpenAI bills no cache writes), as published in late 2025. Local models cost
nothing and need no row. A new price version is a new PriceVersion with a later effective_from
(admin), then `manage.py reprice --since DATE`."""

from datetime import UTC, datetime
from decimal import Decimal

VERSION = "list-2025-11"
PRICES = [
    # provider kind, api model, input, output, cache read, cache write
    ("anthropic", "claude-opus-4-5", "5", "25", "0.50", "6.25"),
    ("anthropic", "claude-sonnet-4-5", "3", "15", "0.30", "3.75"),
    ("anthropic", "claude-haiku-4-5", "1", "5", "0.10", "1.25"),
    ("openai", "gpt-5", "1.25", "10", "0.125", None),
    ("openai", "gpt-5-mini", "0.25", "2", "0.025", None),
    # OpenRouter names the same models with a vendor prefix (and reports its own cost).
    ("openrouter", "anthropic/claude-sonnet-4.5", "3", "15", "0.30", "3.75"),
    ("openrouter", "openai/gpt-5", "1.25", "10", "0.125", None),
]


def seed(PriceVersion, ModelPrice) -> None:
    """Idempotent: the first version and its prices, where missing."""
    version, _ = PriceVersion.objects.get_or_create(
        name=VERSION,
        defaults={
            "effective_from": datetime(2025, 1, 1, tzinfo=UTC),
            "source": "Anthropic and OpenAI public pricing pages, late 2025 (see this migration's docstring).",
        },
    )
    for kind, model, inp, out, read, write in PRICES:
        ModelPrice.objects.get_or_create(
            version=version,
            provider_kind=kind,
            api_model=model,
            defaults={
                "input_per_mtok": Decimal(inp),
                "output_per_mtok": Decimal(out),
                "cache_read_per_mtok": Decimal(read) if read else None,
                "cache_write_per_mtok": Decimal(write) if write else None,
            },
        )
