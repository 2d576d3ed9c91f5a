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
        if args.get("tail_lines"):
            lines = lines[-args["tail_lines"] :]
        elif args.get("head_lines"):
            lines = lines[: args["head_lines"]]
        content = "\n".join(lines) if (args.get("tail_lines") or args.get("head_lines")) else text
        entries.append(
            {
                "path": ctx.rel(path),
                "content": content,
                "lines": len(text.splitlines()),
                "size": size,
                "truncated": size > MAX_BYTES,
            }
        )
    return {"ok": True, "entries": entries, "count": len(entries)}
