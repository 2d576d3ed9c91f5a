"""The benches run in `make test`'s environment and end with their JSON line: the pre-filter and
route benches offline, the agent tasks bench on the live processes it starts. (Their figures are
for the closing notes; here only that they run.)"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peer-bench" / "metnos-prefilter"


def bench(script: str, *args: str, timeout: int = 120) -> dict:
    """Run bench/`script` with `args`; its last line, a JSON object."""
    done = subprocess.run(
        [sys.executable, f"bench/{script}", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_bench(*args: str) -> dict:
    return bench("prefilter_peer.py", "--quick", *args)


@pytest.mark.skipif(not PEER.is_dir(), reason="the peer bench data (../shared/peer-bench) is not beside this checkout")
def test_the_peer_prefilter_bench_reports_both_halves():
    for split in ("even", "odd"):
        result = run_bench("--split", split)
        assert result["split"] == split and result["queries"] == 117 and result["executors"] == 96
        assert {"recall_at_1", "recall_at_5", "mean_ms", "p95_ms"} <= set(result)


def test_the_prefilter_bench_on_our_catalog_runs():
    result = run_bench("--catalog", "ours", "--semantic")
    assert result["queries"] >= 40 and result["recall_at_5"] >= 0.9
    # the semantic stage is measured with the shipped model, offline
    assert {"alone", "fused", "embed_mean_ms", "embed_p95_ms"} <= set(result["semantic"])


ROUTE_CHOICE_CASES = ROOT / "bench" / "cases" / "route_choice.jsonl"


def test_the_route_choice_bench_reports_each_half():
    for split in ("tune", "held"):
        result = bench("route_choice.py", "--quick", "--split", split)
        lines = [line for line in ROUTE_CHOICE_CASES.read_text().splitlines() if line.strip()]
        assert result["split"] == split and result["cases"] == len(lines) // 2
        assert {"accuracy", "direct_recall", "tools_precision", "first_tool_accuracy", "before"} <= set(result)


def test_shadow_mode_stops_wrong_remembered_plans_before_they_serve():
    """The shadow replay (plan_memory_accuracy.py --shadow): a wrong plan the stream teaches is
    stopped on trial before it serves, and memory serves fewer wrong plans than without shadow."""
    result = bench("plan_memory_accuracy.py", "--shadow", "bench/cases/shadow_replay.jsonl", "--quick")
    assert result["bench"] == "plan_memory_shadow" and result["invalid_plans"] == 0
    assert result["wrong_stopped_before_serving"] >= 1
    assert result["wrong_serves_with_shadow"] < result["wrong_serves_without_shadow"]


@pytest.mark.live
def test_the_agent_tasks_bench_runs_the_quick_held_tasks_over_the_websocket():
    """It starts its own model server, daphne and worker on the benches' database; only that it
    runs and reports (many follow-ups miss until the follow-up layer resolves them)."""
    result = bench("agent_tasks.py", "--quick", "--split", "held", timeout=240)
    assert result["split"] == "held" and result["tasks"] == 2 and result["turns"] >= 4
    figures = {"success_rate", "followup_turns", "followup_resolved_rate", "model_calls_per_turn", "turn_p50_ms"}
    assert figures <= set(result)
