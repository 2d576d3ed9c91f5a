"""What the gateway adds: a loopback upstream speaking OpenAI's wire format with a fixed delay,
called straight and through the gateway (daphne, a gw_ key with a budget and a rate limit, the
ledger on), side by side in one run, at concurrency 1 and 32. Reports the added latency (p50,
p95, p99), the throughput both ways, and the time-to-first-byte added on streams; the same
for the Responses shape (/v1/responses, a stored Response each, against the same upstream).
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


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    per_level = 100 if args.quick else 400
    db_url = benchdb.setup()
    import httpx
    from django.contrib.auth import get_user_model

    from gateway import keys
    from routing.models import Provider
    from tests import live
    from tests.loopback import EndlessOpenAI

    body = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 50}
    responses_body = {"model": "gpt-5", "input": "hi", "max_output_tokens": 50}
    with EndlessOpenAI(DELAY_S) as upstream:
        provider = Provider.objects.get(name="openai")
        saved = provider.base_url
        provider.base_url = upstream.url
        provider.save()
        user, _ = get_user_model().objects.get_or_create(username=f"bench-gw-{uuid.uuid4().hex[:6]}")
        issued = keys.issue(name="bench", user=user, budget_usd=Decimal("1000000"), rpm=1_000_000, tpm=10**9)
        port = live.free_port()
        web = live.start_web(port, {"DATABASE_URL": db_url, "OPENAI_API_KEY": "sk-bench"})
        gateway = f"http://127.0.0.1:{port}/v1/chat/completions"
        responses = f"http://127.0.0.1:{port}/v1/responses"
        direct = f"{upstream.url}/chat/completions"
        headers = {"Authorization": f"Bearer {issued.raw}"}
        results: dict = {}
        try:
            with httpx.Client(timeout=30, limits=httpx.Limits(max_connections=64)) as http:

                def timed(url: str) -> float:
                    started = time.perf_counter()
                    response = http.post(url, json=responses_body if url == responses else body, headers=headers)
                    assert response.status_code == 200, response.text[:300]
                    return (time.perf_counter() - started) * 1000

                for _ in range(10):
                    timed(gateway)  # warm: connections, caches
                    timed(responses)
                for concurrency in (1, 32):
                    for name, url in (("direct", direct), ("gateway", gateway), ("responses", responses)):
                        started = time.perf_counter()
                        with ThreadPoolExecutor(concurrency) as pool:
                            latencies = list(pool.map(timed, [url] * per_level))
                        elapsed = time.perf_counter() - started
                        results[(concurrency, name)] = (latencies, per_level / elapsed)

                def ttfb(url: str) -> float:
                    started = time.perf_counter()
                    payload = (responses_body if url == responses else body) | {"stream": True}
                    with http.stream("POST", url, json=payload, headers=headers) as response:
                        for _ in response.iter_raw():
                            return (time.perf_counter() - started) * 1000
                    return 0.0

                stream_direct = [ttfb(direct) for _ in range(30)]
                stream_gateway = [ttfb(gateway) for _ in range(30)]
                stream_responses = [ttfb(responses) for _ in range(30)]
        finally:
            web.stop()
            provider.base_url = saved
            provider.save()

    def added(concurrency: int, q: float, shape: str = "gateway") -> float:
        return round(pct(results[(concurrency, shape)][0], q) - pct(results[(concurrency, "direct")][0], q), 2)

    print(json.dumps({
        "bench": "gateway_overhead",
        "upstream_delay_ms": DELAY_S * 1000,
        "requests_per_level": per_level,
        "c1_direct_p50_ms": pct(results[(1, "direct")][0], 0.5),
        "c1_gateway_p50_ms": pct(results[(1, "gateway")][0], 0.5),
        "c1_added_p50_ms": added(1, 0.5),
        "c1_added_p95_ms": added(1, 0.95),
        "c32_added_p50_ms": added(32, 0.5),
        "c32_added_p95_ms": added(32, 0.95),
        "c32_added_p99_ms": added(32, 0.99),
        "c32_rps_direct": round(results[(32, "direct")][1], 1),
        "c32_rps_gateway": round(results[(32, "gateway")][1], 1),
        "ttfb_direct_p50_ms": round(statistics.median(stream_direct), 2),
        "ttfb_added_p50_ms": round(statistics.median(stream_gateway) - statistics.median(stream_direct), 2),
        "responses_c1_added_p50_ms": added(1, 0.5, "responses"),
        "responses_c32_added_p50_ms": added(32, 0.5, "responses"),
        "responses_c32_added_p95_ms": added(32, 0.95, "responses"),
        "responses_c32_rps": round(results[(32, "responses")][1], 1),
        "responses_ttfb_added_p50_ms": round(statistics.median(stream_responses) - statistics.median(stream_direct), 2),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
