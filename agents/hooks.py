"""Hooks: shell commands a workspace runs at points of a turn, set in `.metnos/hooks.yaml`:

    pre_tool_use:
      - command: ./scripts/check.sh
        matcher: write_files|run_shell    # a regular expression on the tool name; all tools if absent
        timeout: 5                        # seconds (default 10, at most 60)
    post_tool_use: [...]
    session_start: [...]
    user_prompt_submit: [...]

Each command runs in the workspace with a scrubbed environment, gets the event as JSON on stdin and
as METNOS_* variables, and has a timeout. For `pre_tool_use` and `user_prompt_submit`, exit code 2
blocks (the tool call, or the prompt) and stderr is the reason the model or the user sees. A hook
that times out, is missing, or fails otherwise does not block; it is reported in the turn's trace.
An invalid hooks.yaml is reported (file and line) and no hook runs; the turn goes on."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from agents.dotfiles import DOT, DotfileError, parse_yaml

EVENTS = ("session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use")
BLOCKING = ("pre_tool_use", "user_prompt_submit")
DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S = 10.0, 60.0
SAFE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
OUTPUT_CAP = 4000


@dataclass(frozen=True)
class Hook:
    event: str
    command: str
    matcher: re.Pattern | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S


class Blocked(Exception):
    """A hook said no (exit code 2); the message is its stderr."""


def load(root: Path) -> tuple[list[Hook], str | None]:
    """The workspace's hooks, and the reason the file was not usable (or None)."""
    path = root / DOT / "hooks.yaml"
    rel = f"{DOT}/hooks.yaml"
    if not path.is_file() or path.is_symlink():
        return [], None
    try:
        data = parse_yaml(path.read_text(errors="replace"), rel) or {}
    except DotfileError as exc:
        return [], str(exc)
    if not isinstance(data, dict):
        return [], f"{rel}: expected a mapping of event names to lists of hooks"
    hooks = []
    for event, entries in data.items():
        if event not in EVENTS:
            return [], f"{rel}: unknown event {event!r}; events are {', '.join(EVENTS)}"
        for n, entry in enumerate(entries or [], 1):
            if not isinstance(entry, dict) or not isinstance(entry.get("command"), str) or not entry["command"].strip():
                return [], f"{rel}: {event} hook {n} needs a `command` string"
            try:
                matcher = re.compile(entry["matcher"]) if entry.get("matcher") else None
            except (re.error, TypeError) as exc:
                return [], f"{rel}: {event} hook {n} has an invalid matcher: {exc}"
            try:
                timeout = min(float(entry.get("timeout", DEFAULT_TIMEOUT_S)), MAX_TIMEOUT_S)
            except (TypeError, ValueError):
                return [], f"{rel}: {event} hook {n} has a timeout that is not a number"
            hooks.append(Hook(event, entry["command"], matcher, timeout))
    return hooks, None


class Hooks:
    """The hooks of one turn. `log` is what ran and how, for the turn's trace. It is also the
    executors' `ctx.hooks` (planner/executors/base.py): pre_tool and post_tool."""

    def __init__(self, root: Path, *, session_id: str, turn_id: str):
        self.root = root
        self.ids = {"session_id": session_id, "turn_id": turn_id}
        self.hooks, self.problem = load(root)
        self.log: list[dict] = []
        if self.problem:
            self.log.append({"event": "config", "error": self.problem})

    def run(self, event: str, payload: dict, tool: str | None = None) -> None:
        """Run the event's hooks in order; raises Blocked when a blocking one exits 2."""
        for hook in self.hooks:
            if hook.event != event or (hook.matcher is not None and not hook.matcher.search(tool or "")):
                continue
            record = self._run_one(hook, {"event": event, **self.ids, **payload}, tool)
            self.log.append(record)
            if record.get("exit_code") == 2 and event in BLOCKING:
                raise Blocked(record.get("stderr") or f"blocked by the {event} hook {hook.command!r}")

    def pre_tool(self, name: str, args: dict) -> str | None:
        try:
            self.run("pre_tool_use", {"tool": name, "args": args}, tool=name)
        except Blocked as exc:
            return str(exc)
        return None

    def post_tool(self, name: str, args: dict, result: dict) -> None:
        summary = {k: v for k, v in result.items() if k in ("ok", "error", "error_class", "count", "path", "exit_code")}
        self.run("post_tool_use", {"tool": name, "args": args, "result": summary}, tool=name)

    def _run_one(self, hook: Hook, payload: dict, tool: str | None) -> dict:
        workspace = str(self.root.resolve())
        env = {
            **SAFE_ENV,
            "HOME": workspace,
            "PWD": workspace,
            "METNOS_HOOK_EVENT": hook.event,
            "METNOS_SESSION_ID": self.ids["session_id"],
            "METNOS_TURN_ID": self.ids["turn_id"],
            "METNOS_WORKSPACE": workspace,
            "METNOS_TOOL_NAME": tool or "",
        }
        record: dict = {"event": hook.event, "command": hook.command}
        started = time.monotonic()
        proc = subprocess.Popen(
            ["/bin/sh", "-c", hook.command], cwd=workspace, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            stdout, stderr = proc.communicate(json.dumps(payload, default=str).encode(), timeout=hook.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            record.update(timed_out=True, error=f"the hook ran longer than {hook.timeout_s:g} s and was stopped")
            record["ms"] = int((time.monotonic() - started) * 1000)
            return record
        record.update(
            exit_code=proc.returncode,
            ms=int((time.monotonic() - started) * 1000),
            stdout=stdout[:OUTPUT_CAP].decode("utf-8", "replace").strip(),
            stderr=stderr[:OUTPUT_CAP].decode("utf-8", "replace").strip(),
        )
        if proc.returncode == 127:
            record["error"] = f"the hook's command was not found: {record['stderr'] or hook.command}"
        elif proc.returncode not in (0, 2):
            record["error"] = f"the hook failed with exit code {proc.returncode}"
        return record
