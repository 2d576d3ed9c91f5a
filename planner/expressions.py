"""Compute expressions from a request's numbers, for the cold path (planner/cold_args.py): "15%
of 80", an arithmetic expression written out ("17 * 23", "3 più 4"), or one operation word over
the numbers ("the mean of 3, 4 and 5")."""

from __future__ import annotations

import re

from planner import params as P


class AmbiguousExpression(Exception):
    """An expression and more besides: which one is asked is not clear."""


# One operation word → how its numbers make an expression.
OPERATIONS = {
    "mean": "mean", "average": "mean", "avg": "mean", "media": "mean",
    "median": "median", "mediana": "median",
    "sum": "sum", "total": "sum", "somma": "sum", "totale": "sum", "add up": "sum", "sommami": "sum", "sommi": "sum",
    "product": "product", "multiply": "product", "prodotto": "product", "moltiplica": "product",
    "max": "max", "maximum": "max", "largest": "max", "biggest": "max", "highest": "max", "massimo": "max",
    "min": "min", "minimum": "min", "smallest": "min", "lowest": "min", "minimo": "min",
    "sqrt": "sqrt", "square root": "sqrt", "radice quadrata": "sqrt",
}  # fmt: skip
_NUMBER = r"-?\d+(?:\.\d+)?"
_PERCENT = re.compile(rf"({_NUMBER})\s*(?:%|percent|per ?cento)\s+(?:of|di|del|della|dei|delle)\s+({_NUMBER})")
_WORD_OPERATORS = (
    (r"plus|piu", "+"), (r"minus|meno", "-"), (r"times|multiplied by|moltiplicato per|per", "*"),
    (r"divided by|diviso per|diviso|over", "/"),
)  # fmt: skip
# An operation's verb on two numbers: "add 5 and 7", "subtract 3 from 10", «dividi 84 per 4»
# (where «per» divides, not multiplies).
_VERB_FORMS = (
    (
        re.compile(rf"\b(?:add|sum|somma|aggiungi)\s+({_NUMBER})\s+(?:and|to|plus|e|a|con|piu)\s+({_NUMBER})\b"),
        "{0} + {1}",
    ),
    (re.compile(rf"\b(?:subtract|sottrai|togli)\s+({_NUMBER})\s+(?:from|da)\s+({_NUMBER})\b"), "{1} - {0}"),
    (re.compile(rf"\b(?:multiply|moltiplica)\s+({_NUMBER})\s+(?:by|and|times|per|e|con)\s+({_NUMBER})\b"), "{0} * {1}"),
    (re.compile(rf"\b(?:divide|dividi)\s+({_NUMBER})\s+(?:by|per|into|e)\s+({_NUMBER})\b"), "{0} / {1}"),
)
_OPERAND = rf"\(*\s*{_NUMBER}\s*\)*"
_ARITHMETIC = re.compile(rf"{_OPERAND}(?:\s*(?:\*\*|[-+*/\u00d7\u00f7^x])\s*{_OPERAND})+")


def operation_verb(folded: str) -> bool:
    """Whether the request is an operation's verb on two numbers ("add 5 and 7")."""
    return any(form.search(folded) for form, _ in _VERB_FORMS)


def expression(numbers: list[P.Value], folded: str) -> tuple[str, frozenset[str]] | None:
    """A compute expression from every number the request gives: "15% of 80", an arithmetic
    expression written out ("17 * 23", "3 più 4"), or one operation word over the numbers."""
    if not numbers:
        return None
    uses = frozenset(n.name for n in numbers)
    for form, written in _VERB_FORMS:
        if len(numbers) == 2 and (verb := form.search(folded)):
            return written.format(*verb.groups()), uses
    operations = {op for word, op in OPERATIONS.items() if re.search(rf"\b{word}\b", folded)}
    percent = _PERCENT.search(folded)
    if percent and len(numbers) == 2 and not operations:
        return f"{percent.group(1)} * {percent.group(2)} / 100", uses
    written = folded
    for spelled, symbol in _WORD_OPERATORS:
        written = re.sub(rf"(?<=\d)\s+(?:{spelled})\s+(?=[\d(-])", f" {symbol} ", written)
    arithmetic = [m.group(0).strip() for m in _ARITHMETIC.finditer(written)]
    if arithmetic:
        expression = arithmetic[0].replace("\u00d7", "*").replace("\u00f7", "/").replace("^", "**")
        expression = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(])", " * ", expression)
        covered = re.findall(_NUMBER, re.sub(r"(?<=[\d)])\s*-\s*", " ", expression))
        if operations or len(arithmetic) > 1 or len(covered) != len(numbers):
            raise AmbiguousExpression  # an expression and more besides: which one is asked is not clear
        if expression.count("(") != expression.count(")"):
            return None
        return expression, uses
    if len(operations) != 1:
        if len(operations) > 1:
            raise AmbiguousExpression
        return None
    operation = operations.pop()
    texts = [n.text for n in numbers]
    if operation == "sqrt":
        return f"sqrt({texts[0]})", uses if len(texts) == 1 else None
    if len(texts) < 2:
        return None
    if operation == "product":
        return " * ".join(texts), uses
    return f"{operation}([{', '.join(texts)}])", uses
