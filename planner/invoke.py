"""Invoking one executor with crash containment: whatever happens inside, the caller gets a
structured result, `{"ok": True, ...}` or `{"ok": False, "error", "error_class"}`, and the turn
goes on. Args are validated against the manifest's schema first; the call runs under the
executor's timeout; output is capped."""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from django.db import connections

from planner.catalog import Executor
from planner.executors.base import ExecContext, ExecutorError

logger = logging.getLogger(__name__)

OUTPUT_CAP_CHARS = 1_000_000
# Executors run on this pool so a timeout can return control; a thread that never ends is
# abandoned (Python cannot kill it), which is why every executor also has its own inner limits.
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="metnos-exec")


def failure(error_class: str, error: str) -> dict:
    return {"ok": False, "error": error, "error_class": error_class}


def validate_args(executor: Executor, args: object) -> str | None:
    if not isinstance(args, dict):
        return "args must be a JSON object"
    errors = sorted(executor.validator.iter_errors(args), key=lambda e: (list(e.path), e.message))
    if not errors:
        return None
    return "; ".join(f"{'.'.join(str(p) for p in e.path) or 'args'}: {e.message}" for e in errors[:3])


def _cap(result: dict) -> dict:
    text = json.dumps(result, default=str)
    if len(text) <= OUTPUT_CAP_CHARS:
        return result
    return {
        **failure("too_large", f"the result was {len(text)} characters; the cap is {OUTPUT_CAP_CHARS}"),
        "preview": text[:2000],
    }


def _run(executor: Executor, args: dict, ctx: ExecContext) -> dict:
    try:
        return executor.run(args, ctx)
    finally:
        # An executor that used the database (memory, scratchpad) did it on this pool thread:
        # its connection goes back now rather than being held by an idle thread.
        connections.close_all()


_OS_ERRORS = (
    (FileExistsError, "{} is a file, where a folder is needed"),
    (NotADirectoryError, "a part of {} is a file, not a folder"),
    (IsADirectoryError, "{} is a folder, not a file"),
    (FileNotFoundError, "{} does not exist"),
    (PermissionError, "{} cannot be changed: permission denied"),
)


def _said(exc: OSError, ctx: ExecContext) -> str:
    """An error of the file system, with its path as the workspace names it."""
    name = "a path"
    if exc.filename:
        try:
            name = ctx.rel(Path(exc.filename))
        except (ValueError, OSError, ExecutorError):
            name = Path(str(exc.filename)).name
    return next(text for kind, text in _OS_ERRORS if isinstance(exc, kind)).format(name)


def invoke(executor: Executor, args: dict, ctx: ExecContext) -> tuple[dict, float]:
    """Run the executor; returns (result, latency in ms)."""
    started = time.perf_counter()
    problem = validate_args(executor, args)
    if problem:
        return failure("invalid_args", problem), 0.0
    future = _pool.submit(_run, executor, args, ctx)
    try:
        result = future.result(timeout=executor.timeout_s)
    except FutureTimeout:
        result = failure("timeout", f"{executor.name} did not finish within {executor.timeout_s:.0f} s")
    except ExecutorError as exc:
        result = failure(exc.error_class, exc.message)
    except (FileExistsError, NotADirectoryError, IsADirectoryError, FileNotFoundError, PermissionError) as exc:
        result = failure("invalid_args", _said(exc, ctx))  # the user's path, never the server's
    except Exception as exc:
        logger.warning("executor %s crashed", executor.name, exc_info=True)
        result = failure("crashed", f"{executor.name} failed: {exc.__class__.__name__}: {str(exc)[:300]}")
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        result = failure("bad_output", f"{executor.name} returned {type(result).__name__}, not a result object")
    elif not result["ok"] and "error_class" not in result:
        result = {**result, "error_class": "crashed", "error": result.get("error") or "failed without a reason"}
    try:
        result = _cap(result)
    except (TypeError, ValueError):
        result = failure("bad_output", f"{executor.name} returned a result that is not JSON")
    return result, (time.perf_counter() - started) * 1000
