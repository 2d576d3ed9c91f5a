"""What the gateway adds: a loopback upstream speaking OpenAI's wire format with a fixed delay,
called straight and through the gateway (a gw_ key with a budget and a rate limit, the ledger on),
side by side in one run, at concurrency 1 and 32. For each web tier asked for (`--server daphne,
granian` and `--web-workers 1,2`, all in one run, each against the same upstream): the added
latency (p50, p95, p99), the throughput both ways, the time-to-first-byte added on streams, the
CPU the web processes spent per gateway call over the c32 window (user + system, from /proc), and
the same latency figures for the Responses shape (/v1/responses, a stored Response each).
The top-level figures are the first configuration's; `configs` has each.
Runs against its own database (metnos_bench). Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

DELAY_S = 0.02
BODY = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 50}
RESPONSES_BODY = {"model": "gpt-5", "input": "hi", "max_output_tokens": 50}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def measure(http, upstream_url: str, web_url: str, web_pid: int, headers: dict, per_level: int) -> dict:
    from tests import live

    chat, responses = f"{web_url}/v1/chat/completions", f"{web_url}/v1/responses"
    direct = f"{upstream_url}/chat/completions"

    def timed(url: str) -> float:
        started = time.perf_counter()
        response = http.post(url, json=RESPONSES_BODY if url == responses else BODY, headers=headers)
        assert response.status_code == 200, response.text[:300]
        return (time.perf_counter() - started) * 1000

    def ttfb(url: str) -> float:
        started = time.perf_counter()
        payload = (RESPONSES_BODY if url == responses else BODY) | {"stream": True}
        with http.stream("POST", url, json=payload, headers=headers) as response:
            for _ in response.iter_raw():
                return (time.perf_counter() - started) * 1000
        return 0.0

    for _ in range(20):
        timed(chat)  # warm: connections, caches, every worker process
        timed(responses)
    results, cpu = {}, {}
    for concurrency in (1, 32):
        for name, url in (("direct", direct), ("gateway", chat), ("responses", responses)):
            cpu_before, started = live.cpu_seconds(web_pid), time.perf_counter()
            with ThreadPoolExecutor(concurrency) as pool:
                latencies = list(pool.map(timed, [url] * per_level))
            elapsed = time.perf_counter() - started
            results[(concurrency, name)] = (latencies, per_level / elapsed)
            cpu[(concurrency, name)] = (live.cpu_seconds(web_pid) - cpu_before) * 1000 / per_level
    streams = {name: statistics.median([ttfb(url) for _ in range(30)])
               for name, url in (("direct", direct), ("gateway", chat), ("responses", responses))}  # fmt: skip

    def added(concurrency: int, q: float, shape: str = "gateway") -> float:
        return round(pct(results[(concurrency, shape)][0], q) - pct(results[(concurrency, "direct")][0], q), 2)

    return {
        "c1_direct_p50_ms": pct(results[(1, "direct")][0], 0.5),
        "c1_gateway_p50_ms": pct(results[(1, "gateway")][0], 0.5),
        "c1_added_p50_ms": added(1, 0.5),
        "c1_added_p95_ms": added(1, 0.95),
        "c32_added_p50_ms": added(32, 0.5),
        "c32_added_p95_ms": added(32, 0.95),
        "c32_added_p99_ms": added(32, 0.99),
        "c32_rps_direct": round(results[(32, "direct")][1], 1),
        "c32_rps_gateway": round(results[(32, "gateway")][1], 1),
        "cpu_ms_per_call_c1": round(cpu[(1, "gateway")], 2),
        "cpu_ms_per_call": round(cpu[(32, "gateway")], 2),
        "ttfb_direct_p50_ms": round(streams["direct"], 2),
        "ttfb_added_p50_ms": round(streams["gateway"] - streams["direct"], 2),
        "responses_c1_added_p50_ms": added(1, 0.5, "responses"),
        "responses_c32_added_p50_ms": added(32, 0.5, "responses"),
        "responses_c32_added_p95_ms": added(32, 0.95, "responses"),
        "responses_c32_rps": round(results[(32, "responses")][1], 1),
        "responses_cpu_ms_per_call": round(cpu[(32, "responses")], 2),
        "responses_ttfb_added_p50_ms": round(streams["responses"] - streams["direct"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--server", default="granian", help="web servers to compare, e.g. daphne,granian")
    parser.add_argument("--web-workers", default="1", help="web worker processes to compare, e.g. 1,2")
    args = parser.parse_args()
    per_level = 100 if args.quick else 400
    db_url = benchdb.setup()
    import httpx
    from django.contrib.auth import get_user_model

    from gateway import keys
    from routing.models import Provider
    from tests import live
    from tests.loopback import EndlessOpenAI

    # daphne serves from one process: it is measured with one worker only.
    configs = [(server, int(workers)) for server in args.server.split(",") for workers in args.web_workers.split(",")
               if server != "daphne" or int(workers) == 1]  # fmt: skip
    measured = []
    with EndlessOpenAI(DELAY_S) as upstream:
        provider = Provider.objects.get(name="openai")
        saved = provider.base_url
        provider.base_url = upstream.url
        provider.save()
        user, _ = get_user_model().objects.get_or_create(username=f"bench-gw-{uuid.uuid4().hex[:6]}")
        issued = keys.issue(name="bench", user=user, budget_usd=Decimal("1000000"), rpm=1_000_000, tpm=10**9)
        headers = {"Authorization": f"Bearer {issued.raw}"}
        try:
            with httpx.Client(timeout=30, limits=httpx.Limits(max_connections=64)) as http:
                for server, workers in configs:
                    port = live.free_port()
                    web = live.start_web(port, {"DATABASE_URL": db_url, "OPENAI_API_KEY": "sk-bench"},
                                         server=server, workers=workers)  # fmt: skip
                    try:
                        figures = measure(http, upstream.url, f"http://127.0.0.1:{port}", web.proc.pid, headers,
                                          per_level)  # fmt: skip
                    finally:
                        web.stop()
                    measured.append({"server": server, "web_workers": workers, **figures})
                    print(json.dumps(measured[-1]), file=sys.stderr)
        finally:
            provider.base_url = saved
            provider.save()
    print(json.dumps({"bench": "gateway_overhead", "upstream_delay_ms": DELAY_S * 1000,
                      "requests_per_level": per_level, **measured[0], "configs": measured}))  # fmt: skip


if __name__ == "__main__":
    main()
