"""Chat-turn latency over a real websocket: time to first delta, time to the final frame, and
the server's own overhead (client-observed total minus the model server's time).

Starts its own llama.cpp server, daphne and Celery worker on free ports, against a database of
its own (metnos_bench). Also times the model server alone on the same prompt, side by side.

Memory mode (in the same run): a workspace request is sent cold, with plan memory empty, so the
engine plans it with the local model, and then again, so it is served from memory. Each pair
starts from an empty memory. It reports both p50s and their ratio.
Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

PROMPT = "Say hello in one short sentence."
MEMORY_REQUEST = "list the files in notes"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short run (under a minute)")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args()
    runs = args.runs or (8 if args.quick else 30)
    memory_runs = 3 if args.quick else 10

    db_url = benchdb.setup()
    queue = f"metnos-bench-{uuid.uuid4().hex[:8]}"
    import httpx
    from django.contrib.auth import get_user_model

    from tests import live
    from tests.e2e.client import ChatClient, run_turn

    model_port = live.free_port()
    model = live.start_model_server(model_port)
    model_url = f"http://127.0.0.1:{model_port}"
    import tempfile

    workspaces = tempfile.mkdtemp(prefix="metnos-bench-workspaces-")
    env = {
        "DATABASE_URL": db_url,
        "METNOS_LOCAL_MODEL_URL": model_url,
        "METNOS_CELERY_QUEUE": queue,
        "METNOS_WORKSPACES_ROOT": workspaces,
    }
    web_port = live.free_port()
    web = live.start_web(web_port, env)
    worker = live.start_worker(env, queue)
    username, password = f"bench-{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
    user = get_user_model().objects.create_user(username=username, password=password)
    try:
        client = ChatClient(f"http://127.0.0.1:{web_port}", f"ws://127.0.0.1:{web_port}")
        client.login(username, password)
        accepted, first, final, overhead, model_ms = [], [], [], [], []
        # A fresh session per turn: every run sends the same one-sentence prompt with no history.
        with client.websocket(client.create_session()) as ws:
            run_turn(ws, PROMPT)  # warm-up: connections, caches
        for _ in range(runs):
            with client.websocket(client.create_session()) as ws:
                session_frames = run_turn(ws, PROMPT)
            done_at, done = session_frames[-1]
            if done.get("final_kind") != "answer":
                raise SystemExit(f"turn failed: {done}")
            accepted.append(next(t for t, f in session_frames if f["type"] == "turn.started") * 1000)
            first.append(next(t for t, f in session_frames if f["type"] == "delta") * 1000)
            final.append(done_at * 1000)
            model_ms.append(done["model_ms"])
            overhead.append(done_at * 1000 - done["model_ms"])

        # The model server alone, same prompt and system prompt, streamed: the floor we add to.
        from django.conf import settings

        from routing.registry import resolve

        default = resolve(settings.METNOS_DEFAULT_MODEL)
        direct, direct_first = [], []
        body = {
            "model": "m",
            "stream": True,
            "max_tokens": default.output_budget(),
            "temperature": default.params.get("temperature"),
            "messages": [
                {"role": "system", "content": settings.METNOS_SYSTEM_PROMPT},
                {"role": "user", "content": PROMPT},
            ],
        }
        with httpx.Client(base_url=model_url, timeout=60) as http:
            for _ in range(runs):
                started = time.monotonic()
                first_at = None
                with http.stream("POST", "/v1/chat/completions", json=body) as response:
                    for line in response.iter_lines():
                        if first_at is None and '"content":' in line and '"content":null' not in line.replace(" ", ""):
                            first_at = time.monotonic()
                direct.append((time.monotonic() - started) * 1000)
                direct_first.append(((first_at or time.monotonic()) - started) * 1000)

        # Memory mode: cold (the engine plans with the local model), then from memory.
        from planner.models import AntiAutopath, Autopath, Fastpath, Observation

        folder = Path(workspaces) / f"user-{user.pk}" / "notes"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "a.md").write_text("line 1\nline 2\nline 3\nline 4\n")
        cold, warm = [], []
        for _ in range(memory_runs):
            for table in (Fastpath, Autopath, AntiAutopath, Observation):
                table.objects.all().delete()
            # Each in a fresh session, as the chat turns above: no history, and the second is not
            # a retry of the first (a retry lowers the first turn's routing score, a cost of its own).
            with client.websocket(client.create_session()) as ws:
                cold_frames = run_turn(ws, MEMORY_REQUEST, timeout_s=180)
            with client.websocket(client.create_session()) as ws:
                warm_frames = run_turn(ws, MEMORY_REQUEST)
            cold_done, warm_done = cold_frames[-1][1], warm_frames[-1][1]
            if cold_done.get("layer") not in ("engine", "recovery") or warm_done.get("layer") != "fastpath":
                raise SystemExit(f"memory mode: cold {cold_done.get('layer')}, then {warm_done.get('layer')}")
            cold.append(cold_frames[-1][0] * 1000)
            warm.append(warm_frames[-1][0] * 1000)
    finally:
        user.delete()
        worker.stop()
        web.stop()
        model.stop()

    result = {
        "bench": "turn_latency",
        "runs": runs,
        "turn_started_p50_ms": pct(accepted, 0.5),
        "first_delta_p50_ms": pct(first, 0.5),
        "first_delta_p95_ms": pct(first, 0.95),
        "final_p50_ms": pct(final, 0.5),
        "final_p95_ms": pct(final, 0.95),
        "model_p50_ms": pct(model_ms, 0.5),
        "server_overhead_p50_ms": pct(overhead, 0.5),
        "server_overhead_p95_ms": pct(overhead, 0.95),
        "direct_model_first_token_p50_ms": pct(direct_first, 0.5),
        "direct_model_p50_ms": pct(direct, 0.5),
        # Answers differ in length run to run, so compare the parts that do not depend on it.
        "first_delta_over_direct_first_token_p50": round(statistics.median(first) / statistics.median(direct_first), 3),
        "overhead_share_of_final_p50": round(statistics.median(overhead) / statistics.median(final), 3),
        "memory_runs": memory_runs,
        "cold_final_p50_ms": pct(cold, 0.5),
        "memory_final_p50_ms": pct(warm, 0.5),
        "memory_final_p95_ms": pct(warm, 0.95),
        "memory_speedup": round(statistics.median(cold) / statistics.median(warm), 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
