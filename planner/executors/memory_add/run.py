from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    if ctx.memory is None:
        raise ExecutorError("unsupported", "this agent has no memory (a subagent cannot write its parent's)")
    return ctx.memory.add(args.get("file", "memory"), args["text"])
