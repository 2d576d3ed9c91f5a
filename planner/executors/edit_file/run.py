"""Replace an exact piece of text in one file: the edit a coding agent makes most.

`old` must occur exactly once unless `replace_all` is set, so an edit never lands on the wrong one
of two look-alike lines. When it does not occur, the error quotes the file's nearest lines with
their numbers, so the next try can copy the text as the file has it."""

import difflib
import heapq

from planner.executors.base import ExecContext, ExecutorError

MAX_BYTES = 1_000_000
NEAREST, CUTOFF = 3, 0.5
SHOWN_CHARS, SHOWN_LINES = 200, 10


def run(args: dict, ctx: ExecContext) -> dict:
    path = ctx.path(args["path"])
    old, new = args["old"], args["new"]
    if old == new:
        raise ExecutorError("invalid_args", "old and new are the same text: nothing would change")
    if not path.exists():
        raise ExecutorError("not_found", f"no file {args['path']!r} in the workspace")
    if not path.is_file():
        raise ExecutorError("invalid_args", f"{args['path']!r} is a folder, not a file")
    if path.stat().st_size > MAX_BYTES:
        raise ExecutorError("too_large", f"{ctx.rel(path)} is larger than {MAX_BYTES} bytes")
    rel = ctx.rel(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ExecutorError("unsupported", f"{rel} is not a UTF-8 text file") from None
    count = text.count(old)
    if not count and "\r\n" in text:  # the model writes "\n"; a file from Windows has "\r\n"
        old, new = _crlf(old), _crlf(new)
        count = text.count(old)
    if not count:
        raise ExecutorError("not_found", _not_found(rel, text, old))
    if count > 1 and not args.get("replace_all"):
        lines = _lines_of(text, old)
        shown = ", ".join(map(str, lines[:SHOWN_LINES])) + (", …" if len(lines) > SHOWN_LINES else "")
        raise ExecutorError(
            "invalid_args",
            f"the text to replace occurs {count} times in {rel} (lines {shown}); include more of the "
            "text around it so that it occurs once, or set replace_all",
        )
    ctx.checkpoint(path)
    path.write_bytes(text.replace(old, new).encode("utf-8"))
    return {"ok": True, "path": rel, "replacements": count, "line": _lines_of(text, old)[0]}


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _lines_of(text: str, old: str) -> list[int]:
    """The line each occurrence of `old` starts on (1-based), in order; occurrences do not overlap."""
    lines, at = [], text.find(old)
    while at >= 0:
        lines.append(text.count("\n", 0, at) + 1)
        at = text.find(old, at + len(old))
    return lines


def _not_found(rel: str, text: str, old: str) -> str:
    nearest = _nearest(text.splitlines(), old)
    if not nearest:
        return f"the text to replace is not in {rel}, and no line of it is close; read the file first"
    shown = "; ".join(f"line {n}: {window[:SHOWN_CHARS]!r}" for n, window in nearest)
    return (
        f"the text to replace is not in {rel}; the nearest lines are {shown}. Copy the text exactly as the file has it"
    )


def _nearest(lines: list[str], old: str) -> list[tuple[int, str]]:
    """Up to NEAREST runs of as many lines as `old` has, most alike first (difflib's ratio, at
    least CUTOFF; whitespace at the ends ignored; on a tie the earlier run), as (first line
    number, text). quick_ratio bounds ratio from above, so the exact ratio is computed only for
    the runs that could still place: a long file costs one quick pass, not a full diff per line."""
    width = max(1, len(old.splitlines()))
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(old.strip())  # the side difflib indexes, so it is indexed once
    bounded = []
    for start in range(max(1, len(lines) - width + 1)):
        window = "\n".join(lines[start : start + width])
        matcher.set_seq1(window.strip())
        if matcher.real_quick_ratio() >= CUTOFF and (bound := matcher.quick_ratio()) >= CUTOFF:
            bounded.append((bound, -start, window))
    best: list[tuple[float, int, str]] = []
    for bound, neg_start, window in sorted(bounded, reverse=True):
        if len(best) == NEAREST and bound < best[-1][0]:
            break
        matcher.set_seq1(window.strip())
        if (ratio := matcher.ratio()) >= CUTOFF:
            best = heapq.nlargest(NEAREST, [*best, (ratio, neg_start, window)])
    return [(1 - neg_start, window) for _, neg_start, window in best]
