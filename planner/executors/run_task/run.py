from planner.executors.base import ExecContext, ExecutorError


def run(args: dict, ctx: ExecContext) -> dict:
    """Starts the subagent and returns at once: the plan waits (without holding a worker) until
    the subagent's turn ends; its final answer then becomes this step's result."""
    if ctx.delegate is None:
        raise ExecutorError("unsupported", "subagents are not available here")
    profile = args.get("profile") or "explore"
    turn_id = ctx.delegate.start(profile, args["task"])
    return {"ok": True, "wait": {"kind": "subagent", "turn_id": turn_id, "profile": profile}}
