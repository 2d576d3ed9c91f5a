"""Move or rename files and folders inside the workspace.

One shape for both uses, `{paths, to}`: `to` is a folder to move the entries into when it is one
already, ends with "/", or several entries move (missing folders are created); otherwise it is the
one entry's new path. A flat shape rather than a list of {from, to} pairs: a small model fills two
plain arguments reliably, plan memory turns them into two path slots, and the validator and the
vaglio screen them as any other path argument. Every move is checked before the first one runs.
Moving onto an existing file needs `overwrite`; nothing ever replaces a folder."""

import shutil
from pathlib import Path

from planner.executors.base import ExecContext, ExecutorError

MAX_FILES = 5000


def run(args: dict, ctx: ExecContext) -> dict:
    sources = [ctx.entry(p) for p in args["paths"]]
    to = args["to"]
    if len(sources) > 1 or to.endswith("/") or ctx.path(to).is_dir():
        folder = ctx.path(to)
        if folder.exists() and not folder.is_dir():
            raise ExecutorError("invalid_args", f"{to!r} is a file, not a folder to move into")
        pairs = [(source, folder / source.name) for source in sources]
    else:
        pairs = [(sources[0], ctx.entry(to))]
    _check(pairs, ctx, bool(args.get("overwrite")))
    for source, destination in pairs:
        if destination.is_file() and not destination.is_symlink():
            ctx.checkpoint(destination)  # the file the move replaces
        for file in ctx.files_under(source, MAX_FILES):
            ctx.checkpoint(file)
            ctx.checkpoint(destination / file.relative_to(source))
    moved = []
    for source, destination in pairs:
        destination.parent.mkdir(parents=True, exist_ok=True)
        moved.append({"from": ctx.rel(source), "to": ctx.rel(destination)})
        if destination.is_symlink():
            destination.unlink()  # overwrite replaces the link itself; a move would follow it
        shutil.move(source, destination)
    return {"ok": True, "moved": moved, "count": len(moved)}


def _check(pairs: list[tuple[Path, Path]], ctx: ExecContext, overwrite: bool) -> None:
    root = ctx.path(".")
    folders = [s for s, _ in pairs if s.is_dir() and not s.is_symlink()]
    destinations: set[Path] = set()
    for source, destination in pairs:
        name = ctx.rel(source)
        if source == root:
            raise ExecutorError("forbidden", "the workspace itself cannot be moved")
        if not source.exists() and not source.is_symlink():
            raise ExecutorError("not_found", f"no file or folder {name!r} in the workspace")
        if any(folder in source.parents for folder in folders):
            raise ExecutorError("invalid_args", f"{name!r} is inside a folder that moves too")
        if destination == source:
            raise ExecutorError("invalid_args", f"{name!r} is already there")
        if source in destination.parents:
            raise ExecutorError("invalid_args", f"{name!r} cannot move into itself")
        if destination in destinations:
            raise ExecutorError("invalid_args", f"two entries would move to {ctx.rel(destination)!r}")
        destinations.add(destination)
        parent = next(p for p in (destination.parent, *destination.parent.parents) if p.exists())
        if not parent.is_dir():
            raise ExecutorError("invalid_args", f"{ctx.rel(parent)!r} is a file, not a folder to move into")
        if destination.exists() or destination.is_symlink():
            _replaceable(source, destination, ctx, overwrite)


def _replaceable(source: Path, destination: Path, ctx: ExecContext, overwrite: bool) -> None:
    there = ctx.rel(destination)
    if destination.is_dir() and not destination.is_symlink():
        raise ExecutorError("invalid_args", f"{there!r} already exists and is a folder")
    if source.is_dir() and not source.is_symlink():
        raise ExecutorError("invalid_args", f"{there!r} already exists; a folder cannot replace a file")
    if not overwrite:
        raise ExecutorError("invalid_args", f"{there!r} already exists; set overwrite to replace it")
