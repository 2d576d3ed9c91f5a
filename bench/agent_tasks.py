"""Multi-turn agent tasks over the real websocket: each task is 2 to 5 messages in one session, in a
workspace of its own, and after every message the disk and the answer are checked. It measures
how often a whole task comes out right, and how often a follow-up ("do the same for c.md",
"save that to b.md", "open the second one", "show me the rest", "undo") is resolved with no
model call.

Starts its own llama.cpp server, daphne and Celery worker on free ports, against the benches'
database (metnos_bench), with workspaces in a temporary folder. Each task gets a new user (plan
memory is per user, so no task is served a plan another task taught: the result does not depend
on the order of the tasks or on the split), a new workspace and a new session. Approvals are
answered "allow". With plan memory on (the default) the seed plans are loaded, as setup does.

Task file (JSON Lines, one task a line; `--cases FILE` reads any file in this format):
  {"id": "en-read-same", "lang": "en" | "it",
   "setup": {"files": {"notes/a.md": "its content", ...}},     written into the fresh workspace
   "turns": [{"say": "read notes/a.md",                        the message, sent as typed
              "followup": false,                               true: it leans on an earlier turn
              "expect": {"answer_contains": ["..."],           substrings of the answer (case folded)
                         "answer_not_contains": ["..."],
                         "files": {"path": "exact content" | null},   null: nothing at that path
                         "file_contains": {"path": "substring" | ["...", ...]},
                         "dirs": ["path", ...],                folders that must exist
                         "final_kind": "answer"}}, ...]}       answer | ask | error | command ...
A message the server answers as a command (/undo, "annulla") has final_kind "command", makes no
model call and no turn. Paths are relative to the workspace.

A task succeeds when every check of every turn holds. A follow-up turn is resolved when its
checks hold and its turn made no model call (Turn.model_calls, summed over the turns it started).
--split tune|held|all picks the task lines by their 1-based number: tune = even, held = odd.
--quick runs the split's first QUICK_TASKS tasks. --misses prints one line per failed task (of the
tune half: a held-out task is never printed, only counted) with
its first failing turn and checks. Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

CASES = ROOT / "bench" / "cases" / "agent_tasks.jsonl"
QUICK_TASKS = 2
TURN_TIMEOUT_S = 180.0
EXPECT_KEYS = {"answer_contains", "answer_not_contains", "files", "file_contains", "dirs", "final_kind"}


@dataclass
class TurnResult:
    say: str
    followup: bool
    final_kind: str = ""
    layer: str = ""
    text: str = ""
    model_calls: int = 0
    ms: float = 0.0
    failures: list[str] = field(default_factory=list)


def pct(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1) if ordered else None


def inside(root: Path, relative: str) -> Path:
    """A case's path, kept inside the workspace (a task file is data, not a way out of it)."""
    path = (root / relative).resolve()
    if not path.is_relative_to(root.resolve()):
        raise ValueError(f"{relative!r} leaves the workspace")
    return path


def strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def validate(task: dict) -> None:
    if not isinstance(task.get("id"), str) or not isinstance(task.get("lang"), str):
        raise ValueError("a task needs an id and a lang")
    files = (task.get("setup") or {}).get("files") or {}
    turns = task.get("turns")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise ValueError("setup.files maps paths to text")
    if not isinstance(turns, list) or not turns:
        raise ValueError("a task has turns")
    for turn in turns:
        expect = turn.get("expect") or {}
        if not isinstance(turn.get("say"), str) or not isinstance(turn.get("followup", False), bool):
            raise ValueError("a turn needs `say` (text) and a boolean `followup`")
        if unknown := set(expect) - EXPECT_KEYS:  # a misspelt check would pass silently
            raise ValueError(f"unknown checks {sorted(unknown)}")
        for key in ("answer_contains", "answer_not_contains", "dirs"):
            if not strings(expect.get(key, [])):
                raise ValueError(f"{key} is a list of strings")
        if not all(v is None or isinstance(v, str) for v in expect.get("files", {}).values()):
            raise ValueError("files maps paths to their exact content or null")
        for wanted in expect.get("file_contains", {}).values():
            if not isinstance(wanted, str) and not strings(wanted):
                raise ValueError("file_contains maps paths to a string or a list of strings")
        for path in [*files, *expect.get("files", {}), *expect.get("file_contains", {}), *expect.get("dirs", [])]:
            inside(Path("/workspace"), path)


def load(path: Path, split: str) -> list[dict]:
    tasks = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or (split == "tune" and number % 2 == 1) or (split == "held" and number % 2 == 0):
            continue
        try:
            task = json.loads(line)
            validate(task)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise SystemExit(f"{path}:{number}: {exc}") from exc
        tasks.append({**task, "line": number})
    return tasks


def converse(ws, text: str, model: str) -> dict:
    """Send one message, allow every approval it asks for, and return how it ended: the final
    turn.completed, a command.result (final_kind "command") or an error frame (final_kind "error"),
    with the ids of the turns it started."""
    message = {"type": "message", "text": text, **({"model": model} if model else {})}
    ws.send(json.dumps(message))
    started, turn_ids = time.monotonic(), set()
    while True:
        remaining = TURN_TIMEOUT_S - (time.monotonic() - started)
        if remaining <= 0:
            raise TimeoutError(f"no answer within {TURN_TIMEOUT_S:g} s")
        frame = json.loads(ws.recv(timeout=remaining))
        kind = frame["type"]
        if frame.get("turn_id"):
            turn_ids.add(frame["turn_id"])
        if kind == "approval.request":
            ws.send(json.dumps({"type": "approve", "request_id": frame["request_id"], "decision": "allow"}))
        elif kind == "command.result":
            return {"final_kind": "command", "layer": "command", "text": frame["text"], "turn_ids": turn_ids}
        elif kind == "error" and not frame.get("turn_id"):
            return {"final_kind": "error", "layer": "", "text": frame["message"], "turn_ids": turn_ids}
        elif kind == "turn.completed" and frame["final_kind"] != "awaiting":
            return {**frame, "turn_ids": turn_ids}


def check(expect: dict, done: dict, root: Path) -> list[str]:
    """Every check of one turn that does not hold, in words."""
    failures, answer = [], (done.get("text") or "").casefold()
    if "final_kind" in expect and done["final_kind"] != expect["final_kind"]:
        failures.append(f"final_kind is {done['final_kind']!r}, not {expect['final_kind']!r}")
    failures += [f"the answer lacks {s!r}" for s in expect.get("answer_contains", []) if s.casefold() not in answer]
    failures += [f"the answer has {s!r}" for s in expect.get("answer_not_contains", []) if s.casefold() in answer]
    for relative, want in expect.get("files", {}).items():
        got = read(inside(root, relative))
        if want is None and inside(root, relative).exists():
            failures.append(f"{relative} exists")
        elif want is not None and got is None:
            failures.append(f"no {relative}")
        elif want is not None and got != want:
            failures.append(f"{relative} holds {got!r:.120}, not {want!r:.120}")
    for relative, wanted in expect.get("file_contains", {}).items():
        got = read(inside(root, relative))
        for piece in [wanted] if isinstance(wanted, str) else wanted:
            if got is None or piece not in got:
                failures.append(f"{relative} lacks {piece!r}" if got is not None else f"no {relative}")
    failures += [f"no folder {relative}" for relative in expect.get("dirs", []) if not inside(root, relative).is_dir()]
    return failures


def read(path: Path) -> str | None:
    return path.read_text(errors="replace") if path.is_file() else None


def run_task(task: dict, stack: dict, model: str) -> list[TurnResult]:
    """One task, start to end, as a new user in a new workspace and session."""
    from django.contrib.auth import get_user_model

    from agents import services
    from agents.models import Turn
    from tests.e2e.client import ChatClient

    username, password = f"bench-{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    user = get_user_model().objects.create_user(username=username, password=password)
    stack["users"].append(user)
    workspace = services.workspace_create(owner=user, name=task["id"][:100])
    session = services.session_create(owner=user, title=task["id"], workspace=workspace)
    root = services.workspace_path(workspace)
    for relative, content in (task.get("setup") or {}).get("files", {}).items():
        path = inside(root, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    client = ChatClient(stack["http"], stack["ws"])
    client.login(username, password)
    results = []
    with client.websocket(str(session.id)) as ws:
        for turn in task["turns"]:
            result = TurnResult(say=turn["say"], followup=turn.get("followup", False))
            results.append(result)
            started = time.monotonic()
            try:
                done = converse(ws, turn["say"], model)
            except TimeoutError as exc:
                result.final_kind, result.failures = "timeout", [str(exc)]
                break  # the turn may still be running: the next message would race it
            result.ms = (time.monotonic() - started) * 1000
            result.final_kind, result.layer, result.text = done["final_kind"], done.get("layer") or "", done["text"]
            result.model_calls = sum(Turn.objects.filter(id__in=done["turn_ids"]).values_list("model_calls", flat=True))
            result.failures = check(turn.get("expect") or {}, done, root)
    return results


def start(stack: dict, args, workspaces: str) -> None:
    """llama.cpp, daphne and a worker on their own ports and the stack's queue, into `stack` (so
    that stop() ends what did start, should a later one fail)."""
    from tests import live

    model_port = live.free_port()
    stack["processes"].append(live.start_model_server(model_port))
    env = {
        "DATABASE_URL": os.environ["DATABASE_URL"],
        "METNOS_LOCAL_MODEL_URL": f"http://127.0.0.1:{model_port}",
        "METNOS_CELERY_QUEUE": stack["queue"],
        "METNOS_WORKSPACES_ROOT": workspaces,
        "METNOS_AVAILABILITY_PREFIX": f"bench:{stack['queue']}",
        "METNOS_ROUTING_FILE": "",
        "METNOS_PLAN_MEMORY": "false" if args.no_memory else "true",
    }
    web_port = live.free_port()
    stack["processes"].append(live.start_web(web_port, env))
    stack["processes"].append(live.start_worker(env, stack["queue"]))
    stack.update(http=f"http://127.0.0.1:{web_port}", ws=f"ws://127.0.0.1:{web_port}")
    # The worker's pool process loads the embedding model after "ready."; a greeting waits for it,
    # so the first task's first turn is not timed with it.
    warm_up = {"id": "warm-up", "turns": [{"say": "hello"}]}
    run_task(warm_up, stack, args.model)


def stop(stack: dict) -> None:
    import redis
    from django.conf import settings

    for process in reversed(stack["processes"]):
        process.stop()
    for user in stack["users"]:
        user.delete()
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete(stack["queue"])
    client.close()


def report(tasks: list[dict], outcomes: list[list[TurnResult]], args) -> dict:
    turns = [t for results in outcomes for t in results]
    followups = [t for t in turns if t.followup]
    passed = sum(
        len(r) == len(task["turns"]) and not any(t.failures for t in r) for task, r in zip(tasks, outcomes, strict=True)
    )
    return {
        "bench": "agent_tasks",
        "split": args.split,
        "quick": args.quick,
        "model": args.model or "default",
        "memory": not args.no_memory,
        "tasks": len(tasks),
        "turns": len(turns),
        "success_rate": round(passed / len(tasks), 3) if tasks else None,
        "followup_turns": len(followups),
        "followup_resolved_rate": (
            round(sum(not t.failures and t.model_calls == 0 for t in followups) / len(followups), 3)
            if followups
            else None
        ),
        "model_calls_per_turn": round(sum(t.model_calls for t in turns) / len(turns), 3) if turns else None,
        "turn_p50_ms": pct([t.ms for t in turns if t.final_kind != "timeout"], 0.5),
        # totals only (a held-out task is never shown): the share of turns whose checks hold, and the
        # layers that answered the turns that failed
        "turn_pass_rate": round(sum(not t.failures for t in turns) / len(turns), 3) if turns else None,
        "failed_by_layer": dict(Counter(t.layer or t.final_kind for t in turns if t.failures).most_common()),
        "first_turns_failed": sum(bool(r and r[0].failures) for r in outcomes),
    }


def miss_line(task: dict, results: list[TurnResult]) -> dict | None:
    for number, turn in enumerate(results, 1):
        if turn.failures:
            return {"task": task["id"], "line": task["line"], "turn": number, "say": turn.say, "failed": turn.failures,
                    "final_kind": turn.final_kind, "layer": turn.layer, "model_calls": turn.model_calls,
                    "answer": turn.text[:200]}  # fmt: skip
    if len(results) < len(task["turns"]):
        return {"task": task["id"], "line": task["line"], "failed": ["not every turn ran"]}
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="", help="a configured model for every message (default: the platform's)")
    parser.add_argument("--no-memory", action="store_true", help="plan memory off (METNOS_PLAN_MEMORY=false)")
    parser.add_argument("--quick", action="store_true", help=f"the split's first {QUICK_TASKS} tasks")
    parser.add_argument("--cases", type=Path, default=CASES, help="a task file (JSON Lines, format above)")
    parser.add_argument("--split", choices=("tune", "held", "all"), default="all")
    parser.add_argument("--misses", action="store_true", help="print each failed task with its failing check")
    args = parser.parse_args()
    tasks = load(args.cases, args.split)
    tasks = tasks[:QUICK_TASKS] if args.quick else tasks

    workspaces = tempfile.mkdtemp(prefix="metnos-bench-agent-")
    os.environ.update({"METNOS_WORKSPACES_ROOT": workspaces, "METNOS_ROUTING_FILE": ""})
    benchdb.setup()
    if args.model:
        from routing.registry import UnknownModel, resolve

        try:
            resolve(args.model)
        except UnknownModel as exc:
            raise SystemExit(str(exc)) from exc
    if not args.no_memory:
        from planner import seeds
        from planner.catalog import catalog

        seeds.load(catalog())
    stack = {"processes": [], "users": [], "queue": f"metnos-bench-{uuid.uuid4().hex[:8]}"}
    outcomes = []
    try:
        start(stack, args, workspaces)
        for task in tasks:
            results = run_task(task, stack, args.model)
            outcomes.append(results)
            row = [{"say": t.say, "kind": t.final_kind, "layer": t.layer, "calls": t.model_calls, "ms": round(t.ms),
                    "failed": t.failures} for t in results]  # fmt: skip
            if task["line"] % 2 == 0:  # a held-out task is never shown, only counted
                print(json.dumps({"task": task["id"], "turns": row}, ensure_ascii=False), file=sys.stderr)
    finally:
        stop(stack)
        shutil.rmtree(workspaces, ignore_errors=True)
    if args.misses:
        for task, results in zip(tasks, outcomes, strict=True):
            if task["line"] % 2 == 0 and (line := miss_line(task, results)):
                print(json.dumps(line, ensure_ascii=False))
    print(json.dumps(report(tasks, outcomes, args)))


if __name__ == "__main__":
    main()
