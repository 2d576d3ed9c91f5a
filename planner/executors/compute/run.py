"""A safe evaluator for arithmetic and statistics: the expression is parsed with `ast` and only
numbers, lists, arithmetic operators and a whitelist of functions are evaluated. No eval().

Executors run on threads that cannot be killed, and a big-integer operation holds the GIL until
it ends, so no clock can stop `9**9**9` or `[0]*10**9` once it has started. Every operation that
can grow a value (`**`, `*`, `+` of lists, `round` to a negative number of digits) is therefore
sized from its operands before it runs and refused when the result would pass the caps; the
expression's length, operation count and nesting depth are capped before anything runs."""

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

MAX_LENGTH = 2000  # characters of the expression
MAX_OPERATIONS = 500  # operators and calls in it
MAX_DEPTH = 500  # nesting; also keeps the recursive evaluation far from Python's recursion limit
# An integer's size: ~3000 decimal digits, under Python's 4300-digit str() limit, so the result
# can always be written out.
MAX_BITS = 10_000
# A value's size in machine words: one per number or list slot, plus an integer's extra words.
# It bounds a list's memory and its JSON, nested lists counted whole (`[[0]*100]*100` is 10100).
MAX_SIZE = 20_000
MAX_ROUND_DIGITS = 300


def _refuse(why: str) -> ExecutorError:
    return ExecutorError("invalid_args", f"the result would be too large: {why}")


def _size(value) -> int:
    if isinstance(value, list):
        return 1 + sum(map(_size, value))
    if isinstance(value, int):
        return 1 + value.bit_length() // 64
    return 1


def _check_int(value):
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise _refuse(f"a number of {value.bit_length()} bits (the limit is {MAX_BITS})")
    return value


def _power(base, exponent):
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        # |base| >= 2, so the result has at least `exponent` bits: compare before multiplying by
        # a float, which a huge exponent would overflow.
        if exponent > MAX_BITS or exponent * math.log2(abs(base)) > MAX_BITS:
            raise _refuse(f"{_short(base)} ** {_short(exponent)} has more than {MAX_BITS} bits")
    result = base**exponent
    if isinstance(result, complex):  # (-8) ** (1/3)
        raise ExecutorError("invalid_args", "cannot compute: the result is not a real number")
    return result


def _times(left, right):
    if isinstance(left, int) and isinstance(right, list):
        left, right = right, left
    if isinstance(left, list) and isinstance(right, int):
        if right > 0 and (right > MAX_SIZE or _size(left) * right > MAX_SIZE):
            raise _refuse(f"a list of size {_size(left)} repeated {_short(right)} times (the limit is {MAX_SIZE})")
        return left * right
    if isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > MAX_BITS + 1:
            raise _refuse(f"a product of more than {MAX_BITS} bits")
    return left * right


def _plus(left, right):
    if isinstance(left, list) and isinstance(right, list) and _size(left) + _size(right) > MAX_SIZE:
        raise _refuse(f"a list of size {_size(left) + _size(right)} (the limit is {MAX_SIZE})")
    return left + right


def _round(value, digits=None):
    if isinstance(digits, int) and abs(digits) > MAX_ROUND_DIGITS:
        # round(5, -10**9) computes 10**10**9 before it rounds anything.
        raise ExecutorError("invalid_args", f"round to at most {MAX_ROUND_DIGITS} digits")
    return round(value, digits)


_SIZED = {ast.Pow: _power, ast.Mult: _times, ast.Add: _plus}
_SIZED_FUNCTIONS = {"round": _round}


def _short(number: int) -> str:
    return str(number) if number.bit_length() < 64 else f"a {number.bit_length()}-bit number"


def _eval(node):
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return _check_int(node.value)
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        items = list(map(_eval, node.elts))
        if _size(items) > MAX_SIZE:
            raise _refuse(f"a list of size {_size(items)} (the limit is {MAX_SIZE})")
        return items
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        return _check_int(_SIZED.get(type(node.op), _BINARY[type(node.op)])(left, right))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        values = list(map(_eval, node.args))
        if node.func.id in _AGGREGATES and len(values) > 1:
            values = [values]  # mean(3, 4, 5) means mean([3, 4, 5])
        function = _SIZED_FUNCTIONS.get(node.func.id, _FUNCTIONS[node.func.id])
        return _check_int(function(*values))
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        raise ExecutorError("invalid_args", "text is not allowed in an expression, only numbers and lists")
    raise ExecutorError("invalid_args", f"not allowed in an expression: {ast.dump(node)[:80]}")


def _check_shape(tree: ast.AST) -> None:
    """Counts operations and measures nesting without recursion, so a deep tree cannot make the
    check itself overflow the stack."""
    operations, pending = 0, [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ExecutorError("invalid_args", f"the expression is nested more than {MAX_DEPTH} deep")
        if isinstance(node, ast.BinOp | ast.UnaryOp | ast.Call):
            operations += 1
            if operations > MAX_OPERATIONS:
                raise ExecutorError("invalid_args", f"the expression has more than {MAX_OPERATIONS} operations")
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def run(args: dict, ctx: ExecContext) -> dict:
    expression = args["expression"]
    if len(expression) > MAX_LENGTH:
        raise ExecutorError("invalid_args", f"the expression is too long (the limit is {MAX_LENGTH} characters)")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ExecutorError("invalid_args", f"not a valid expression: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):  # a NUL byte; nesting the parser cannot hold
        raise ExecutorError("invalid_args", "not a valid expression") from None
    _check_shape(tree)
    try:
        value = _eval(tree)
    except (ZeroDivisionError, ValueError, OverflowError, TypeError, statistics.StatisticsError) as exc:
        raise ExecutorError("invalid_args", f"cannot compute: {exc}") from None
    except RecursionError:  # the depth cap keeps well inside the limit; this is the backstop
        raise ExecutorError("invalid_args", "the expression is nested too deeply") from None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return {"ok": True, "expression": expression, "value": value}
