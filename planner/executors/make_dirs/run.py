"""Create folders in the workspace (with their parents), like `mkdir -p`. No file changes, so
nothing is checkpointed; a path that is a file refuses the whole call before any folder is made."""

from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    paths = list(dict.fromkeys(ctx.path(p) for p in args["paths"]))
    for path in paths:
        existing = path if path.exists() else next(p for p in path.parents if p.exists())
        if not existing.is_dir():
            raise ExecutorError("invalid_args", f"{ctx.rel(existing)!r} is a file, not a folder")
    created = [path for path in paths if not path.exists()]
    for path in created:
        path.mkdir(parents=True, exist_ok=True)
    return {
        "ok": True,
        "created": [ctx.rel(p) for p in created],
        "existing": [ctx.rel(p) for p in paths if p not in created],
        "count": len(paths),
    }
