from planner.executors.base import ExecContext, ExecutorError

DEFAULT_CHARS = 2000


def run(args: dict, ctx: ExecContext) -> dict:
    content = ctx.scratchpad.read(args["scratchpad_id"]) if ctx.scratchpad else None
    if content is None:
        raise ExecutorError("not_found", f"no scratchpad entry {args['scratchpad_id']!r} in this turn")
    mode, chars = args.get("mode", "full"), args.get("chars", DEFAULT_CHARS)
    if mode == "head":
        part = content[:chars]
    elif mode == "tail":
        part = content[-chars:]
    elif mode == "range":
        start = args.get("start", 0)
        part = content[start : args.get("end", start + chars)]
    else:
        part = content
    return {
        "ok": True,
        "scratchpad_id": args["scratchpad_id"],
        "mode": mode,
        "content": part,
        "total_chars": len(content),
    }
