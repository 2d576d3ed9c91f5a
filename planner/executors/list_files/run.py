from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    root = ctx.path(args.get("path") or ".")
    if not root.exists():
        raise ExecutorError("not_found", f"no folder {args.get('path')!r} in the workspace")
    if not root.is_dir():
        raise ExecutorError("invalid_args", f"{args.get('path')!r} is a file; use read_files")
    limit = args.get("limit", 200)
    walker = root.rglob("*") if args.get("recursive") else root.iterdir()
    entries = []
    for item in sorted(walker):
        if any(part.startswith(".") for part in item.relative_to(root).parts):
            continue  # hidden files and the .metnos folder stay out of listings
        try:
            real = ctx.path(str(item))
        except ExecutorError:
            continue  # a symlink that leads outside the workspace is not listed
        entries.append(
            {
                "path": ctx.rel(item),
                "type": "dir" if real.is_dir() else "file",
                "size": real.stat().st_size if real.is_file() else 0,
            }
        )
        if len(entries) >= limit:
            break
    return {"ok": True, "entries": entries, "count": len(entries), "truncated": len(entries) >= limit}
