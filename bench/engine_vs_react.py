"""The engine against ReAct on the same workspace tasks, in one run, on the same model, with no
memory layers. Success is checked on the workspace and in the answer's facts, not its wording.
`--model` picks another configured model (its key must be in the environment).
Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="metnos-bench-ws-"))
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("line 1\nline 2\nline 3\nline 4\n")
    (root / "notes" / "b.md").write_text("# B\nTODO: call Ada\n")
    (root / "data.txt").write_text("3\n4\n5\n")
    return root


# (request, check(workspace, answer) -> bool)
TASKS = [
    ("read notes/a.md and tell me its last 2 lines", lambda ws, a: "line 3" in a and "line 4" in a),
    ("find the .md files and count them", lambda ws, a: re.search(r"\b2\b", a) is not None),
    (
        "write a summary of notes/b.md to summary.md",
        lambda ws, a: (ws / "summary.md").is_file() and (ws / "summary.md").stat().st_size > 0,
    ),
    ("how many .txt files are there?", lambda ws, a: re.search(r"\b1\b", a) is not None),
    ("what is today's date in UTC?", lambda ws, a: time.strftime("%Y-%m-%d", time.gmtime()) in a),
    ("calculate the mean of 3, 4 and 5", lambda ws, a: re.search(r"\b4(\.0)?\b", a) is not None),
    ("list the files in notes", lambda ws, a: "a.md" in a and "b.md" in a),
    ("which lines mention TODO in my notes?", lambda ws, a: "call Ada" in a),
    (
        "save the text 'buy milk' to todo.txt",
        lambda ws, a: (ws / "todo.txt").is_file() and "buy milk" in (ws / "todo.txt").read_text(),
    ),
    ("show the first line of notes/b.md", lambda ws, a: "# B" in a),
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="one task in both modes (about a minute with the 135M model)"
    )
    parser.add_argument("--model", default="", help="a configured model name or alias for both modes")
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos").rsplit("/", 1)[0]
    os.environ.update(
        {
            "DATABASE_URL": f"{base}/metnos_bench",
            "DJANGO_SETTINGS_MODULE": "metnos_site.settings",
            "METNOS_AVAILABILITY_PREFIX": f"bench:{uuid.uuid4().hex}",
            "METNOS_ROUTING_FILE": "",
            "METNOS_PLAN_MEMORY": "false",  # the engine alone: no fastpath or autopath
        }
    )
    subprocess.run([sys.executable, "scripts/ensure_database.py"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    import django

    django.setup()
    import logging

    from django.conf import settings

    from planner.dispatch import run_turn
    from planner.turn import TurnInput
    from tests import live

    logging.getLogger("metnos.vaglio").setLevel(logging.WARNING)
    server = None
    if not args.model:
        port = live.free_port()
        server = live.start_model_server(port)
        settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{port}"
    else:
        settings.METNOS_PROPOSER_MODEL = args.model
    tasks = TASKS[:1] if args.quick else TASKS
    stats = {mode: {"calls": [], "seconds": [], "ok": 0} for mode in ("engine", "react")}
    rows = []
    try:
        for text, check in tasks:
            for mode in ("engine", "react"):
                ws = workspace()
                started = time.monotonic()
                outcome = run_turn(
                    TurnInput(
                        turn_id=str(uuid.uuid4()),
                        session_id=str(uuid.uuid4()),
                        user_id=0,
                        text=text,
                        workspace_path=ws,
                        mode=mode,
                    )
                )
                seconds = time.monotonic() - started
                ok = outcome.final_kind == "answer" and outcome.layer != "terminator" and check(ws, outcome.text)
                stats[mode]["calls"].append(outcome.model_calls)
                stats[mode]["seconds"].append(seconds)
                stats[mode]["ok"] += ok
                rows.append(
                    {
                        "task": text,
                        "mode": mode,
                        "ok": ok,
                        "calls": outcome.model_calls,
                        "s": round(seconds, 2),
                        "final_kind": outcome.final_kind,
                        "layer": outcome.layer,
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        if server:
            server.stop()
    engine, react = stats["engine"], stats["react"]
    result = {
        "bench": "engine_vs_react",
        "model": args.model or settings.METNOS_PROPOSER_MODEL,
        "tasks": len(tasks),
        "engine_calls_per_turn": round(statistics.mean(engine["calls"]), 2),
        "react_calls_per_turn": round(statistics.mean(react["calls"]), 2),
        "engine_p50_s": pct(engine["seconds"], 0.5),
        "engine_p95_s": pct(engine["seconds"], 0.95),
        "react_p50_s": pct(react["seconds"], 0.5),
        "react_p95_s": pct(react["seconds"], 0.95),
        "speedup": round(statistics.median(react["seconds"]) / max(statistics.median(engine["seconds"]), 1e-9), 2),
        "engine_success": round(engine["ok"] / len(tasks), 2),
        "react_success": round(react["ok"] / len(tasks), 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
