"""A number in one unit, in another: "convert 5 miles to km", «quanti km sono 26 miglia?», "how many
pounds is 70 kg?", "100 °F in celsius". The one-step plan computes it (compute, with the factor
written out, rounded to two decimals) and says it in the request's words, with no model call:
"5 miles = 8.05 km". Lengths, weights, volumes and temperatures; anything else is left to the
rest of the cascade."""

from __future__ import annotations

import re

from planner.plan import Plan, parse
from planner.text import fold

# Each unit: its words (EN/IT, singular and plural, symbols) → (kind, factor to the kind's base unit).
_UNITS = {
    ("km", "kms", "kilometer", "kilometers", "kilometre", "kilometres", "chilometro", "chilometri"): ("len", 1000.0),
    ("m", "meter", "meters", "metre", "metres", "metro", "metri"): ("len", 1.0),
    ("cm", "centimeter", "centimeters", "centimetre", "centimetres", "centimetro", "centimetri"): ("len", 0.01),
    ("mm", "millimeter", "millimeters", "millimetro", "millimetri"): ("len", 0.001),
    ("mile", "miles", "mi", "miglio", "miglia"): ("len", 1609.344),
    ("yard", "yards", "yd", "iarda", "iarde"): ("len", 0.9144),
    ("foot", "feet", "ft", "piede", "piedi"): ("len", 0.3048),
    ("inch", "inches", "in", "pollice", "pollici"): ("len", 0.0254),
    ("kg", "kilo", "kilos", "kilogram", "kilograms", "chilo", "chili", "chilogrammo", "chilogrammi"): ("mass", 1.0),
    ("g", "gram", "grams", "grammo", "grammi"): ("mass", 0.001),
    ("lb", "lbs", "pound", "pounds", "libbra", "libbre"): ("mass", 0.45359237),
    ("oz", "ounce", "ounces", "oncia", "once"): ("mass", 0.028349523125),
    ("l", "liter", "liters", "litre", "litres", "litro", "litri"): ("vol", 1.0),
    ("ml", "milliliter", "milliliters", "millilitro", "millilitri"): ("vol", 0.001),
    ("gallon", "gallons", "gal", "gallone", "galloni"): ("vol", 3.785411784),
    ("c", "°c", "celsius", "centigradi", "gradi celsius"): ("temp", "c"),
    ("f", "°f", "fahrenheit", "gradi fahrenheit"): ("temp", "f"),
}
_SAID = {"c": "°C", "°c": "°C", "f": "°F", "°f": "°F"}
_WORD = {word: unit for words, unit in _UNITS.items() for word in words}
_UNIT = "|".join(sorted((re.escape(w) for w in _WORD), key=len, reverse=True))
_NUMBER = r"(?P<n>-?\d+(?:[.,]\d+)?)"
# "convert 5 miles to km", "5 miles in km", "how many km is 5 miles", «quanti km sono 26 miglia».
_FORWARD = re.compile(
    rf"(?:^|\b(?:convert|converti|trasforma|what is|what's|whats|quanto fa|quanto sono|quanto e)\s+)"
    rf"{_NUMBER}\s*(?P<a>{_UNIT})\s+(?:to|in|into|a)\s+(?P<b>{_UNIT})\s*[?.!]*$"
)
_BACKWARD = re.compile(
    rf"^(?:how many|quanti|quante)\s+(?P<b>{_UNIT})\s+(?:is|are|sono|fanno|e|in)\s+{_NUMBER}\s*(?P<a>{_UNIT})\s*[?.!]*$"
)


def conversion(folded: str) -> tuple[float, str, str] | None:
    """(number, from unit, to unit) for a conversion between two units of one kind, or None."""
    text = re.sub(r"\s+", " ", folded.strip().removeprefix("please ").removeprefix("per favore "))
    match = _FORWARD.search(text) or _BACKWARD.match(text)
    if match is None:
        return None
    a, b = _WORD[match["a"]], _WORD[match["b"]]
    if a[0] != b[0] or match["a"] == match["b"]:
        return None
    return float(match["n"].replace(",", ".")), match["a"], match["b"]


def plan_for(text: str, *, tools: set[str]) -> Plan | None:
    """compute's plan for a unit conversion, with the answer said in units."""
    found = conversion(fold(text))
    if found is None or "compute" not in tools:
        return None
    number, a, b = found
    expression = _expression(number, _WORD[a], _WORD[b])
    said = f"{number:g} {_SAID.get(a, a)} = ${{step1.value}} {_SAID.get(b, b)}"  # «26 miglia = 41.84 km»
    return parse({"steps": [{"tool": "compute", "args": {"expression": expression}}], "final_message": said})


def _expression(number: float, a: tuple, b: tuple) -> str:
    if a[0] == "temp":
        celsius = f"({number:g} - 32) * 5 / 9" if a[1] == "f" else f"{number:g}"
        return f"round({celsius}, 2)" if b[1] == "c" else f"round({celsius} * 9 / 5 + 32, 2)"
    return f"round({number:g} * {a[1]!r} / {b[1]!r}, 2)"
