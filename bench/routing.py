"""Routing decision time with all seven slots populated (K-NN over 100k stored patterns
included), and the adapters' translation overhead against a raw HTTP round trip to a loopback
server speaking the same wire format. Uses a database of its own (metnos_bench).
Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PATTERNS = 100_000
WORDS = "summarize read list find compute explain translate write fix refactor show count".split()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def setup_db() -> None:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos").rsplit("/", 1)[0]
    os.environ.update(
        {
            "DATABASE_URL": f"{base}/metnos_bench",
            "DJANGO_SETTINGS_MODULE": "metnos_site.settings",
            "METNOS_AVAILABILITY_PREFIX": "metnos-bench:avail",
            "METNOS_ROUTING_FILE": "",
        }
    )
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        os.environ.pop(var, None)  # slots 1-3 name cloud models that are then rejected: the worst case
    subprocess.run([sys.executable, "scripts/ensure_database.py"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)


def random_needs(rng: random.Random):
    from routing.fingerprint import TurnNeeds

    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12)))
    if rng.random() < 0.3:
        text += f" notes/{rng.randint(1, 99)}.md"
    if rng.random() < 0.2:
        text += "?"
    return TurnNeeds(
        text=text,
        has_tools=rng.random() < 0.3,
        estimated_tokens=min(1800, int(rng.lognormvariate(5, 1))),
        role=rng.choice(["planner", "planner", "worker"]),
    )


def fill_patterns(rng: random.Random) -> float:
    """Store PATTERNS outcomes and their cells once; later runs reuse them. Returns seconds spent."""
    from collections import defaultdict

    from routing.fingerprint import fingerprint, fingerprint_key
    from routing.models import PatternCell, RoutingPattern

    if RoutingPattern.objects.count() >= PATTERNS and PatternCell.objects.exists():
        return 0.0
    started = time.monotonic()
    RoutingPattern.objects.all().delete()
    PatternCell.objects.all().delete()
    models = ["local-fast", "local-middle", "local-wise", "claude-haiku"]
    cells: dict[tuple[str, str], list] = defaultdict(lambda: [None, 0, 0.0, 0.0, 0])
    batch = []
    for _ in range(PATTERNS):
        fp = fingerprint(random_needs(rng))
        model, score, cost = rng.choice(models), rng.random(), rng.choice([0, 0, 0.0004, 0.002])
        latency = rng.randint(100, 3000)
        batch.append(
            RoutingPattern(
                fingerprint=fp, model_name=model, cost_usd=cost, latency_ms=latency, score=score, final_kind="answer"
            )
        )
        cell = cells[(fingerprint_key(fp), model)]
        cell[0] = fp
        cell[1] += 1
        cell[2] += score
        cell[3] += cost
        cell[4] += latency
        if len(batch) == 5000:
            RoutingPattern.objects.bulk_create(batch)
            batch = []
    RoutingPattern.objects.bulk_create(batch)
    PatternCell.objects.bulk_create(
        PatternCell(key=key, model_name=model, fingerprint=fp, samples=n, score_sum=s, cost_sum=c, latency_sum=lat)
        for (key, model), (fp, n, s, c, lat) in cells.items()
    )
    return time.monotonic() - started


def bench_decisions(runs: int, rng: random.Random) -> dict:
    from core.events import bus
    from routing.chain import RouteInputs, decide
    from routing.policy import parse

    policy = parse(
        "global_default: local-fast\n"
        "workspaces: [{name: bench, default: local-wise}]\n"
        "rules: [{name: r, when: {estimated_tokens: {gte: 0}}, model: gpt}]\n"
    )
    inputs = RouteInputs(per_message="opus", sticky="sonnet", policy=policy, delegate="local-middle")
    chain_ms, call_ms, slots = [], [], {}
    for i in range(runs + 20):
        needs = random_needs(rng)
        needs = type(needs)(**{**needs.__dict__, "workspace": "bench"})
        started = time.perf_counter()
        decision = decide(needs, inputs)
        elapsed = (time.perf_counter() - started) * 1000
        if i >= 20:  # warm-up
            chain_ms.append(decision.elapsed_ms)
            call_ms.append(elapsed)
            slots[decision.slot] = slots.get(decision.slot, 0) + 1
    del bus  # the trace store subscriber is part of decide_call_ms, not of the chain's own time
    return {
        "decision_p50_ms": pct(chain_ms, 0.5),
        "decision_p95_ms": pct(chain_ms, 0.95),
        "decide_call_p50_ms": pct(call_ms, 0.5),
        "decide_call_p95_ms": pct(call_ms, 0.95),
        "winning_slots": slots,
    }


def bench_translation(runs: int) -> dict:
    import httpx

    from core.ir import ChatRequest, Message, SystemPrompt, ToolSpec
    from routing.providers.anthropic import AnthropicAdapter
    from routing.providers.openai_compat import OpenAICompatAdapter
    from tests.loopback import LoopbackProvider, Reply

    completion = {
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok " * 50}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 50},
    }
    message = {
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "ok " * 50}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 900, "output_tokens": 50},
    }
    history = tuple(Message.text("user" if i % 2 == 0 else "assistant", "lorem ipsum " * 40) for i in range(10))
    tools = tuple(
        ToolSpec(f"tool_{i}", "a tool", {"type": "object", "properties": {"x": {"type": "string"}}}) for i in range(12)
    )
    request = ChatRequest(
        model="m", system=SystemPrompt("persona " * 200, "memory"), messages=history, tools=tools, max_tokens=100
    )
    out = {}
    for name, adapter_cls, reply, path in (
        ("openai", OpenAICompatAdapter, completion, "/v1/chat/completions"),
        ("anthropic", AnthropicAdapter, message, "/v1/messages"),
    ):
        with LoopbackProvider() as upstream, httpx.Client(base_url=upstream.url, timeout=10) as raw:
            adapter = adapter_cls(base_url=upstream.url)
            body = json.dumps(adapter.to_wire(request)).encode()
            adapted, direct = [], []
            for i in range(runs + 10):
                upstream.replies.extend([Reply(json_body=reply), Reply(json_body=reply)])
                upstream.requests.clear()
                started = time.perf_counter()
                raw.post(path, content=body, headers={"content-type": "application/json"}).json()
                t_raw = time.perf_counter() - started
                started = time.perf_counter()
                adapter.complete(request)
                t_adapter = time.perf_counter() - started
                if i >= 10:
                    direct.append(t_raw * 1000)
                    adapted.append(t_adapter * 1000)
            adapter.close()
        out[name] = {
            "raw_p50_ms": pct(direct, 0.5),
            "adapter_p50_ms": pct(adapted, 0.5),
            "overhead_p50_ms": round(statistics.median(a - d for a, d in zip(adapted, direct, strict=True)), 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short run (under a minute once patterns are stored)")
    args = parser.parse_args()
    runs = 300 if args.quick else 3000
    setup_db()
    import django

    django.setup()
    from routing.models import PatternCell, RoutingPattern

    rng = random.Random(7)
    fill_s = fill_patterns(rng)
    decisions = bench_decisions(runs, rng)
    translation = bench_translation(100 if args.quick else 1000)
    result = {
        "bench": "routing",
        "patterns": RoutingPattern.objects.count(),
        "pattern_cells": PatternCell.objects.count(),
        "patterns_fill_s": round(fill_s, 1),
        "runs": runs,
        **decisions,
        "translate_overhead_p50_ms": max(t["overhead_p50_ms"] for t in translation.values()),
        "translation": translation,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
