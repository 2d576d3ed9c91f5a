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
    ctx.checkpoint(path)
    append = bool(args.get("append"))
    last = _last_byte(path) if append and content else b""
    if last not in (b"", b"\n", b"\r"):
        content = "\n" + content  # appended text starts a new line, not the end of the last one
    elif last and not content.endswith("\n"):
        content += "\n"  # a file whose lines each end keeps them so: "DB_NAME=x" appended to an .env
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        fh.write(content)
    return {"ok": True, "path": ctx.rel(path), "bytes": len(content.encode("utf-8")), "appended": append}


def _last_byte(path) -> bytes:
    if not path.is_file() or path.stat().st_size == 0:
        return b""
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1)
