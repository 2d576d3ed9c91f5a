from planner.executors.base import ExecContext


def run(args: dict, ctx: ExecContext) -> dict:
    return {"ok": True, "text": args["text"]}
