from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    root = ctx.path(args.get("path") or ".")
    if not root.is_dir():
        raise ExecutorError("not_found", f"no folder {args.get('path')!r} in the workspace")
    pattern = args["pattern"]
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise ExecutorError("outside_workspace", "the pattern must stay inside the workspace")
    limit = args.get("limit", 1000)
    matches = []
    for item in sorted(root.glob(pattern) if "/" in pattern or "**" in pattern else root.rglob(pattern)):
        rel_parts = item.relative_to(root).parts
        if item.is_file() and not any(p.startswith(".") for p in rel_parts):
            try:
                matches.append({"path": ctx.rel(ctx.path(str(item)))})
            except ExecutorError:
                continue  # a symlink that leads outside the workspace is not reported
            if len(matches) >= limit:
                break
    return {"ok": True, "entries": matches, "count": len(matches), "truncated": len(matches) >= limit}
