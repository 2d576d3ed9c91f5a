from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    if ctx.recurring is None:
        raise ExecutorError("unsupported", "recurring tasks are not available here")
    grace = args.get("grace_window_minutes", 30)
    return ctx.recurring.schedule(args["name"], args["prompt"], args["schedule"], args.get("times"), grace)
