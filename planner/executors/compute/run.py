"""A safe evaluator for arithmetic and statistics: the expression is parsed with `ast` and only
numbers, lists, arithmetic operators and a whitelist of functions are evaluated. No eval()."""

import ast
import math
import operator
import statistics

from planner.executors.base import ExecContext, ExecutorError

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}  # fmt: skip
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_FUNCTIONS = {
    "abs": abs, "round": round, "min": min, "max": max, "sum": sum, "len": len,
    "sqrt": math.sqrt, "log": math.log, "log10": math.log10, "exp": math.exp, "floor": math.floor, "ceil": math.ceil,
    "mean": statistics.fmean, "median": statistics.median, "stdev": statistics.stdev, "pstdev": statistics.pstdev,
    "variance": statistics.variance, "mode": statistics.mode,
}  # fmt: skip
_AGGREGATES = {"sum", "mean", "median", "stdev", "pstdev", "variance", "mode"}
_CONSTANTS = {"pi": math.pi, "e": math.e}
MAX_EXPONENT = 1000
MAX_LENGTH = 2000


def _eval(node):
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(item) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ExecutorError("invalid_args", f"exponent {right} is too large")
        return _BINARY[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        values = [_eval(arg) for arg in node.args]
        if node.func.id in _AGGREGATES and len(values) > 1:
            values = [values]  # mean(3, 4, 5) means mean([3, 4, 5])
        return _FUNCTIONS[node.func.id](*values)
    raise ExecutorError("invalid_args", f"not allowed in an expression: {ast.dump(node)[:80]}")


def run(args: dict, ctx: ExecContext) -> dict:
    expression = args["expression"]
    if len(expression) > MAX_LENGTH:
        raise ExecutorError("invalid_args", "the expression is too long")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ExecutorError("invalid_args", f"not a valid expression: {exc.msg}") from None
    try:
        value = _eval(tree)
    except (ZeroDivisionError, ValueError, OverflowError, TypeError, statistics.StatisticsError) as exc:
        raise ExecutorError("invalid_args", f"cannot compute: {exc}") from None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return {"ok": True, "expression": expression, "value": value}
