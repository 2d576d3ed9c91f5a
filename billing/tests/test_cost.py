from decimal import Decimal

from billing.cost import FREE, Price, call_cost, format_usd
from core.ir import Usage


def test_a_local_model_costs_nothing():
    assert call_cost(usage=Usage(input_tokens=1000, output_tokens=500), price=FREE) == Decimal("0E-8")


def test_each_token_class_is_billed_at_its_own_rate_and_quantized_to_1e_8():
    price = Price(
        input_per_mtok=Decimal("3"),
        output_per_mtok=Decimal("15"),
        cache_read_per_mtok=Decimal("0.30"),
        cache_write_per_mtok=Decimal("3.75"),
    )
    usage = Usage(input_tokens=1001, output_tokens=333, cache_read_tokens=2000, cache_write_tokens=7)
    expected = (Decimal(1001) * 3 + Decimal(333) * 15 + Decimal(2000) * Decimal("0.30") + 7 * Decimal("3.75")) / 10**6
    cost = call_cost(usage=usage, price=price)
    assert cost == expected.quantize(Decimal("0.00000001"))
    assert cost.as_tuple().exponent == -8


def test_usd_text_is_fixed_point_never_exponent_form():
    assert format_usd(Decimal("0E-8")) == "0.00000000"
    assert format_usd(Decimal("1.5")) == "1.50000000"
