from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    if ctx.recurring is None:
        raise ExecutorError("unsupported", "recurring tasks are not available here")
    return ctx.recurring.show(args["name"])
