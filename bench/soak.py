"""A soak: the platform under steady mixed load for 3 minutes (--quick: 45 s), closed-loop, so at
the most it sustains on this machine. Gateway clients call /v1/chat/completions (a loopback
upstream with a fixed delay, a key with a budget and a rate limit, the ledger on) while 20
websocket clients each send a workspace request that plan memory serves (no model call; the
Celery worker runs every turn). Reports throughput, latency percentiles, errors, p99 in the first
and the last window (a minute, or a third of a quick run), and the resident memory of daphne and
the worker at start and end. A warm-up (20 s, --quick 10 s) under the same load comes first and is
not measured: threads, pools and caches fill there (the JSON also gives the memory before any
load). Own database (metnos_bench). Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

MEMORY_REQUEST = "list the files in notes"
CHAT_CLIENTS = 20
GATEWAY_CLIENTS = 8
UPSTREAM_DELAY_S = 0.02


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def rss_mib(pid: int) -> float:
    """Resident memory of a process and its children (the worker's pool, daphne has none)."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for one in pids:
        try:
            status = Path(f"/proc/{one}/status").read_text()
        except FileNotFoundError:
            continue
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return round(total / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="45 s instead of 180 s")
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args()
    duration = args.seconds or (45.0 if args.quick else 180.0)
    warmup = 10.0 if args.quick else 20.0
    window = min(60.0, duration / 3)

    db_url = benchdb.setup()
    queue = f"metnos-soak-{uuid.uuid4().hex[:8]}"
    import httpx
    from django.contrib.auth import get_user_model

    from gateway import keys
    from planner.models import AntiAutopath, Autopath, Fastpath, Observation
    from routing.models import Provider
    from tests import live
    from tests.e2e.client import ChatClient, run_turn
    from tests.loopback import EndlessOpenAI

    for table in (Fastpath, Autopath, AntiAutopath, Observation):
        table.objects.all().delete()
    model_port = live.free_port()
    model = live.start_model_server(model_port)
    workspaces = tempfile.mkdtemp(prefix="metnos-soak-workspaces-")
    samples: list[tuple[float, float, bool, str]] = []  # (started, latency ms, ok, kind)
    lock = threading.Lock()
    web = worker = user = None
    provider = Provider.objects.get(name="openai")
    saved = provider.base_url
    try:
        with EndlessOpenAI(UPSTREAM_DELAY_S) as upstream:
            provider.base_url = upstream.url
            provider.save()
            env = {
                "DATABASE_URL": db_url,
                "METNOS_LOCAL_MODEL_URL": f"http://127.0.0.1:{model_port}",
                "METNOS_CELERY_QUEUE": queue,
                "METNOS_WORKSPACES_ROOT": workspaces,
                "OPENAI_API_KEY": "sk-soak",
            }
            web_port = live.free_port()
            web = live.start_web(web_port, env)
            worker = live.start_worker(env, queue)
            username, password = f"soak-{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
            user = get_user_model().objects.create_user(username=username, password=password)
            issued = keys.issue(name="soak", user=user, budget_usd=Decimal("100000"), rpm=10**6, tpm=2 * 10**9)
            http_base, ws_base = f"http://127.0.0.1:{web_port}", f"ws://127.0.0.1:{web_port}"
            notes = Path(workspaces) / f"user-{user.pk}" / "notes"
            notes.mkdir(parents=True, exist_ok=True)
            (notes / "a.md").write_text("line 1\nline 2\n")
            learner = ChatClient(http_base, ws_base)
            learner.login(username, password)
            with learner.websocket(learner.create_session()) as ws:  # cold: planned by the model, remembered
                run_turn(ws, MEMORY_REQUEST, timeout_s=180)
            with learner.websocket(learner.create_session()) as ws:
                done = run_turn(ws, MEMORY_REQUEST)[-1][1]
            if done.get("layer") != "fastpath":
                raise SystemExit(f"the request is not served from memory (layer {done.get('layer')}): no soak")

            rss_idle = {"daphne": rss_mib(web.proc.pid), "worker": rss_mib(worker.proc.pid)}
            t0 = time.monotonic() + warmup  # the measured run starts after the warm-up
            stop_at = t0 + duration
            rss_start: dict = {}
            threading.Timer(warmup, lambda: rss_start.update(
                {"daphne": rss_mib(web.proc.pid), "worker": rss_mib(worker.proc.pid)})).start()  # fmt: skip

            def record(started: float, ok: bool, kind: str) -> None:
                if started >= t0:
                    with lock:
                        samples.append((started - t0, (time.monotonic() - started) * 1000, ok, kind))

            def chat_client() -> None:
                client = ChatClient(http_base, ws_base)
                client.login(username, password)
                with client.websocket(client.create_session()) as ws:
                    while time.monotonic() < stop_at:
                        started = time.monotonic()
                        try:
                            frames = run_turn(ws, MEMORY_REQUEST, timeout_s=60)
                            ok = frames[-1][1].get("final_kind") == "answer"
                        except Exception:  # any failure (a dropped socket, a timeout) is an error sample
                            ok = False
                        record(started, ok, "chat")

            def gateway_client() -> None:
                body = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 20}
                headers = {"Authorization": f"Bearer {issued.raw}"}
                with httpx.Client(timeout=30) as http:
                    while time.monotonic() < stop_at:
                        started = time.monotonic()
                        try:
                            ok = http.post(f"{http_base}/v1/chat/completions", json=body, headers=headers).is_success
                        except httpx.HTTPError:
                            ok = False
                        record(started, ok, "gateway")

            threads = [threading.Thread(target=chat_client) for _ in range(CHAT_CLIENTS)]
            threads += [threading.Thread(target=gateway_client) for _ in range(GATEWAY_CLIENTS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - t0
            rss_end = {"daphne": rss_mib(web.proc.pid), "worker": rss_mib(worker.proc.pid)}
    finally:
        for process in (worker, web, model):
            if process is not None:
                process.stop()
        if user is not None:
            user.delete()
        provider.base_url = saved
        provider.save()

    latencies = [s[1] for s in samples]
    first = [s[1] for s in samples if s[0] < window]
    last = [s[1] for s in samples if s[0] >= elapsed - window - 5 and s[0] < elapsed - 5]  # settled requests
    errors = sum(not s[2] for s in samples)
    growth = {name: round((rss_end[name] - rss_start[name]) / rss_start[name] * 100, 1) for name in rss_start}

    def kind(name: str) -> list[float]:
        return [s[1] for s in samples if s[3] == name]

    print(json.dumps({
        "bench": "soak",
        "seconds": round(elapsed, 1),
        "window_s": window,
        "requests": len(samples),
        "rps": round(len(samples) / elapsed, 1),
        "gateway_rps": round(len(kind("gateway")) / elapsed, 1),
        "chat_turns_per_s": round(len(kind("chat")) / elapsed, 2),
        "p50_ms": pct(latencies, 0.5),
        "p95_ms": pct(latencies, 0.95),
        "p99_ms": pct(latencies, 0.99),
        "gateway_p50_ms": pct(kind("gateway"), 0.5),
        "gateway_p99_ms": pct(kind("gateway"), 0.99),
        "chat_p50_ms": pct(kind("chat"), 0.5),
        "chat_p99_ms": pct(kind("chat"), 0.99),
        "p99_ms_first_min": pct(first, 0.99),
        "p99_ms_last_min": pct(last, 0.99),
        "p99_last_over_first": round(pct(last, 0.99) / max(pct(first, 0.99), 0.1), 2),
        "errors": errors,
        "error_rate": round(errors / max(len(samples), 1), 4),
        "warmup_s": warmup,
        "rss_mib_before_load": rss_idle,
        "rss_mib_start": rss_start,
        "rss_mib_end": rss_end,
        "rss_growth_pct": max(growth.values()),
        "rss_growth_pct_by_process": growth,
        "median_latency_ms": round(statistics.median(latencies), 1) if latencies else 0,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
