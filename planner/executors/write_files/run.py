from planner.executors.base import ExecContext, ExecutorError

MAX_BYTES = 1_000_000


def run(args: dict, ctx: ExecContext) -> dict:
    path = ctx.path(args["path"])
    content = args["content"]
    data = content.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise ExecutorError("too_large", f"content is {len(data)} bytes; the limit is {MAX_BYTES}")
    if path.exists() and path.is_dir():
        raise ExecutorError("invalid_args", f"{args['path']!r} is a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "a" if args.get("append") else "w"
    with path.open(mode, encoding="utf-8") as fh:
        fh.write(content)
    return {"ok": True, "path": ctx.rel(path), "bytes": len(data), "appended": bool(args.get("append"))}
