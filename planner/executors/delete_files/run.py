"""Delete files and folders from the workspace, keeping every deleted file for /undo first.

A folder with anything in it goes only with `recursive` (an empty one goes as it is), the
workspace root never, and a symbolic link is removed as
a link (its target stays). Every path is checked before the first one is deleted."""

import shutil

from planner.executors.base import ExecContext, ExecutorError

MAX_FILES = 5000


def run(args: dict, ctx: ExecContext) -> dict:
    root = ctx.path(".")
    targets = []
    for user_path in args["paths"]:
        path = ctx.entry(user_path)
        if path == root:
            raise ExecutorError("forbidden", "the workspace itself cannot be deleted")
        if not path.exists() and not path.is_symlink():
            raise ExecutorError("not_found", f"no file or folder {user_path!r} in the workspace")
        if _is_folder(path) and not args.get("recursive") and any(path.iterdir()):  # an empty one just goes
            raise ExecutorError(
                "invalid_args", f"{user_path!r} is a folder; set recursive to delete it and everything in it"
            )
        targets.append(path)
    folders = [p for p in targets if _is_folder(p)]
    # A path named twice, or one inside a folder that goes too, is deleted once.
    targets = [p for p in dict.fromkeys(targets) if not any(f in p.parents for f in folders)]
    files = [file for path in targets for file in ctx.files_under(path, MAX_FILES)]
    if len(files) > MAX_FILES:
        raise ExecutorError("too_large", f"the paths hold more than {MAX_FILES} files")
    for file in files:
        ctx.checkpoint(file)
    for path in targets:
        if _is_folder(path):
            shutil.rmtree(path)
        else:
            path.unlink()
    return {
        "ok": True,
        "deleted": [ctx.rel(p) for p in targets],
        "count": len(targets),
        "files": len(files),
        "folders": sum(1 for p in targets if p in folders),
    }


def _is_folder(path) -> bool:
    return path.is_dir() and not path.is_symlink()
