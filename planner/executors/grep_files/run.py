import re

from planner.executors.base import ExecContext, ExecutorError

MAX_FILE_BYTES = 2_000_000


def run(args: dict, ctx: ExecContext) -> dict:
    try:
        regex = re.compile(args["pattern"], 0 if args.get("case_sensitive") else re.IGNORECASE)
    except re.error as exc:
        raise ExecutorError("invalid_args", f"not a valid regular expression: {exc}") from None
    if args.get("paths"):  # these files only (an earlier step's listing, from_step)
        files = [ctx.path(p) for p in args["paths"]]
    else:
        root = ctx.path(args.get("path") or ".")
        if not root.exists():
            raise ExecutorError("not_found", f"no file or folder {args.get('path')!r} in the workspace")
        files = [root] if root.is_file() else sorted(root.rglob(args.get("glob") or "*"))
    limit = args.get("max_matches", 200)
    matches, searched = [], 0
    for item in files:
        if not item.is_file() or any(p.startswith(".") for p in item.relative_to(ctx.workspace.resolve()).parts):
            continue
        try:
            real = ctx.path(str(item))
        except ExecutorError:
            continue
        if real.stat().st_size > MAX_FILE_BYTES:
            continue
        searched += 1
        for number, line in enumerate(real.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if regex.search(line):
                matches.append({"path": ctx.rel(real), "line": number, "text": line[:500]})
                if len(matches) >= limit:
                    return {
                        "ok": True,
                        "entries": matches,
                        "count": len(matches),
                        "files_searched": searched,
                        "truncated": True,
                    }
    return {"ok": True, "entries": matches, "count": len(matches), "files_searched": searched, "truncated": False}
