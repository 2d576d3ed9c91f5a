from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    if ctx.skills is None:
        raise ExecutorError("unsupported", "no skills are available here")
    try:
        content = ctx.skills.load(args["name"])
    except LookupError as exc:
        raise ExecutorError("not_found", str(exc)) from None
    return {"ok": True, "name": args["name"], "content": content}
