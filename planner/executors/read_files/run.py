from planner.executors.base import ExecContext, ExecutorError

MAX_BYTES = 1_000_000


def run(args: dict, ctx: ExecContext) -> dict:
    entries = []
    for user_path in args["paths"]:
        path = ctx.path(user_path)
        if not path.exists():
            raise ExecutorError("not_found", f"no file {user_path!r} in the workspace")
        if not path.is_file():
            raise ExecutorError("invalid_args", f"{user_path!r} is a directory; use list_files")
        size = path.stat().st_size
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES)
        text = data.decode("utf-8", errors="replace")
        lines = text.splitlines()
        window = _window(len(lines), args)
        start = window[0] if window else 0
        entries.append(
            {
                "path": ctx.rel(path),
                "content": "\n".join(lines[window[0] : window[1]]) if window else text,
                "lines": len(lines),
                "first_line": start + 1,
                "size": size,
                "truncated": size > MAX_BYTES,
            }
        )
    return {"ok": True, "entries": entries, "count": len(entries)}


def _window(total: int, args: dict) -> tuple[int, int] | None:
    """The lines to return as (start, end) indexes, or None for the whole text. offset and limit
    come first (a model paging through a long file); then tail_lines, then head_lines."""
    if args.get("offset") or args.get("limit"):
        start = args.get("offset", 1) - 1
        return start, (start + args["limit"]) if args.get("limit") else total
    if args.get("tail_lines"):
        return max(0, total - args["tail_lines"]), total
    if args.get("head_lines"):
        return 0, args["head_lines"]
    return None
