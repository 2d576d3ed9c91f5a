"""The cost of one model call, in Decimal USD quantized to 1e-8."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from core.ir import Usage

USD_QUANTUM = Decimal("0.00000001")
_PER = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    """USD per million tokens. Cache rates default to the input rate when a provider has none."""

    input_per_mtok: Decimal = Decimal("0")
    output_per_mtok: Decimal = Decimal("0")
    cache_read_per_mtok: Decimal | None = None
    cache_write_per_mtok: Decimal | None = None


FREE = Price()


def call_cost(*, usage: Usage, price: Price) -> Decimal:
    """Canonical usage keeps uncached input, cache reads and cache writes apart, so each part
    is billed at its own rate."""
    cache_read = price.input_per_mtok if price.cache_read_per_mtok is None else price.cache_read_per_mtok
    cache_write = price.input_per_mtok if price.cache_write_per_mtok is None else price.cache_write_per_mtok
    total = (
        usage.input_tokens * price.input_per_mtok
        + usage.output_tokens * price.output_per_mtok
        + usage.cache_read_tokens * cache_read
        + usage.cache_write_tokens * cache_write
    ) / _PER
    return total.quantize(USD_QUANTUM, rounding=ROUND_HALF_UP)


def format_usd(amount: Decimal) -> str:
    """Fixed-point text with the full quantum ("0.00000000"), never exponent form ("0E-8")."""
    return f"{Decimal(amount).quantize(USD_QUANTUM):f}"
