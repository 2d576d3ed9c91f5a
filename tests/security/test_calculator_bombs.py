"""Expressions that would take the worker's memory or hold its GIL for minutes: each is refused,
quickly and with a clear error, before it is computed. They run through planner.invoke, on the
executors' thread pool, exactly as a planned compute step runs; the memory they may take is
read from this process's own peak RSS (VmHWM, reset before each call)."""

import re
import time

import pytest

from planner.catalog import catalog
from planner.executors.base import ExecContext
from planner.invoke import invoke

MAX_SECONDS = 5
MAX_GROWTH_MB = 50

BOMBS = {
    "a list of a billion zeros": "[0]*10**9",
    "a power of a power of a power": "((10**1000)**1000)**1000",
    "a power tower": "9**9**9",
    "a 64-bit number to a 64-bit power": "(2**64)**(2**64)",
    "a large list repeated again": "[1]*10**8*10",
    "a tower of tens": "10**10**10",
    "a text repeated ten billion times": "'a'*10**10",
    "parentheses nested 5000 deep": "(" * 5000 + "1" + ")" * 5000,
    "a hundred thousand minus signs": "-" * 100000 + "1",
    "minus signs nested under the length cap": "-" * 1999 + "1",
    "a sum nested under the length cap": "1+" * 999 + "1",
    "a product that grows step by step": "*".join(["(10**100)"] * 150),
    "a number squared again and again": "(" * 12 + "2**64" + ")**2" * 12,
    "nested lists repeated": "[[[0]*1000]*1000]*1000",
    "a list of huge numbers": "[10**3000]*10000",
    "two large lists added": "[0]*15000 + [0]*15000",
    "rounding to a billion digits": "round(5, -10**9)",
    "too many operations": "+".join(["(1+1)"] * 330),
}
CLEAR = re.compile(
    r"too large|too long|nested more than|more than \d+ operations|text is not allowed|at most \d+ digits"
)


def peak_reset_and_rss_kb() -> int:
    # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0), so the peak read
    # after the call is this call's.
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    return status_kb("VmRSS")


def status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(f"{field}:"))


def compute(expression: str, tmp_path) -> dict:
    result, _ = invoke(catalog().get("compute"), {"expression": expression}, ExecContext(workspace=tmp_path))
    return result


@pytest.mark.parametrize("expression", BOMBS.values(), ids=BOMBS.keys())
def test_it_refuses_an_expression_bomb_quickly_and_without_taking_memory(tmp_path, expression):
    compute("1 + 1", tmp_path)  # the pool thread and the catalog exist before the measure
    before_kb = peak_reset_and_rss_kb()
    started = time.monotonic()
    result = compute(expression, tmp_path)
    elapsed = time.monotonic() - started
    grown_mb = (status_kb("VmHWM") - before_kb) / 1024
    assert result["ok"] is False and result["error_class"] == "invalid_args", result
    assert CLEAR.search(result["error"]), f"the error says why: {result['error']}"
    assert elapsed < MAX_SECONDS, f"refused after {elapsed:.1f} s"
    assert grown_mb < MAX_GROWTH_MB, f"the worker's memory grew by {grown_mb:.0f} MB"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("mean([3, 4, 5])", 4),
        ("mean(3, 4, 5)", 4),
        ("2**10", 1024),
        ("17 * 23", 391),
        ("15 * 80 / 100", 12),  # "15% of 80", as planner/expressions.py writes it
        ("80 * (1 + 22 / 100)", 97.6),
        ("2**1000", 2**1000),
        ("10**3000 + 1", 10**3000 + 1),
        ("sum([1]*10000)", 10000),
        ("+".join(["1"] * 300), 300),
        ("1**(10**3000)", 1),
        ("round(1234.5678, -2)", 1200),
        ("len([[0]*100]*100)", 100),
    ],
)
def test_it_still_computes_ordinary_arithmetic(tmp_path, expression, value):
    result = compute(expression, tmp_path)
    assert result == {"ok": True, "expression": expression, "value": value}


def test_it_refuses_a_result_that_is_not_a_real_number(tmp_path):
    result = compute("(-8) ** (1/3)", tmp_path)
    assert result["error_class"] == "invalid_args"
    assert result["error"] == "cannot compute: the result is not a real number"
