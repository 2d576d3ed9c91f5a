from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    if ctx.todos is None:
        raise ExecutorError("unsupported", "there is no task list here")
    items = ctx.todos.replace(args["items"])
    return {"ok": True, "items": items, "count": len(items), "done": sum(i["status"] == "done" for i in items)}
