"""Plan memory accuracy: does a remembered plan serve the requests it should, with the right
arguments, and never the ones it should not?

Each line of --cases is a JSON case:
    {"learn": REQUEST, "plan": PLAN, "probe": REQUEST, "expect": "hit" | "miss",
     "expect_args": {STEP: {ARG: VALUE}}}
STEP counts from 1 (as ${step1…} does); a case whose expect_args has a "0" key counts from 0.
For each case: a fresh memory and a fresh workspace in which every file and folder the case
names exists; the learn request is recorded as a success (L0 and L1, as after a completed
turn); the probe goes through L0/L1 lookup only, never a model.

It runs in its own database, metnos_bench beside DATABASE_URL's (METNOS_BENCH_DB names another:
each case empties the memory tables, so two benches must not share one).

--split held|tune|all picks the odd lines of each file, the even ones, or all. Cases carry a
`class` (paraphrase_verb, modifier_near_miss, …; the first round's have none: "round1"). A case
from the held-out half is never printed, whatever the flags: only the totals say how it went.

Last line: one JSON object with cases, hit_rate, false_reuse_rate (and false_reuse_own_expression:
those served a computation of the probe's own expression, or a statistic of
the list it gives: "the mean of 3, 4, 5 and 6" after "… 3, 4 and 5"), arg_accuracy,
stage1_p50_ms, stage2_p50_ms, lookup_p95_ms, and by_class (the same rates per class); also
invalid_plans, the expected hits whose learned plan the validator rejects on its own (its shape:
E+ (F|A)? of each pipeline, planner.validator), which memory can never serve, and
hit_rate_valid_plans without them. A case's plan that does several things in a row is read as our
plans write it, one pipeline for each (with_pipelines)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CASES_DIR = ROOT / "bench" / "cases"
# The first round's cases (our own) and those of rounds 2 to 4, written blind; in each file the odd
# lines (1-based) are the held-out half, the even lines the half rules may be tuned on.
DEFAULT_CASES = ",".join(str(CASES_DIR / f"plan_memory{part}.jsonl") for part in ("", "_round2", "_round3", "_round4"))
PATH_ARGS = ("path", "paths", "to")  # "to": where move_files puts them, a folder the workspace holds


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def named_paths(case: dict) -> set[str]:
    """Every workspace path a case names: in its plan's path arguments, its expected arguments,
    and the path-like values of both requests."""
    from planner import params as P

    found: set[str] = set()

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in PATH_ARGS and "${" not in node and "*" not in node:
            found.add(node)

    walk(case.get("plan", {}))
    walk(case.get("expect_args", {}))
    requests = (case["learn"], case["probe"])
    for text in requests:
        found |= {v.text for v in P.extract(text).values if v.type == "path"}
    # A shell command's arguments that a request names are places the command ran on ("find videos
    # -size +500M" for "find files in videos bigger than 500MB"): the user's workspace holds them.
    said = {w.lower() for text in requests for w in re.findall(r"[\w./-]+", text)}
    for command in commands(case):
        found |= {w for w in re.findall(r"(?<![\w./-])[A-Za-z][\w./-]*", command) if w.lower() in said and w[0] != "-"}
    return found


def commands(case: dict) -> list[str]:
    plans = case.get("plan", {})  # a shadow stream's workspace is one case of all its plans (a list)
    plans = plans if isinstance(plans, list) else [plans]
    steps = [s.get("args", {}) for plan in plans for s in plan.get("steps", [])]
    return [a["command"] for a in [*steps, *case.get("expect_args", {}).values()] if isinstance(a.get("command"), str)]


def make_workspace(case: dict) -> Path:
    root = Path(tempfile.mkdtemp(prefix="metnos-memory-case-"))
    for name in sorted(named_paths(case)):
        target = (root / name.lstrip("/~")).resolve()
        if root.resolve() not in target.parents and target != root.resolve():
            continue
        if name.endswith("/") or not Path(name).suffix:
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("line 1\nline 2\nTODO: something\n")
    return root


def args_match(plan, expect: dict) -> bool:
    zero_based = "0" in expect
    for step, wanted in expect.items():
        index = int(step) - (0 if zero_based else 1)
        if not 0 <= index < len(plan.steps):
            return False
        actual = plan.steps[index].args
        if any(actual.get(arg) != value for arg, value in wanted.items()):
            return False
    return True


def own_expression(plan, probe: str) -> bool:
    """Whether a served plan is one computation of exactly the expression the probe writes out
    (as planner.canonical spells it: "9 times 2" is "9 * 2")."""
    from planner import canonical

    if len(plan.steps) != 1 or plan.steps[0].tool != "compute":
        return False
    expression = str(plan.steps[0].args.get("expression", "")).replace(" ", "")
    form = canonical.of(probe)
    written = form.text.replace(" ", "")
    # A statistic of the list the probe gives ("the mean of 3, 4, 5 and 6" → mean([3, 4, 5, 6])).
    listed = re.fullmatch(r"(\w+)\((\[[-\d.,]+\])\)", expression)
    if listed and listed[2] in written and f"f:{listed[1]}" in form.tokens:
        return True
    return bool(expression) and expression in written


def load_cases(files: str, split: str) -> list[dict]:
    cases = []
    for name in files.split(","):
        lines = [line for line in Path(name).read_text().splitlines() if line.strip()]
        for number, line in enumerate(lines, 1):
            if split == "all" or (split == "held") == (number % 2 == 1):
                # only the default files keep a held-out half: a development set (--cases) is read whole
                held = number % 2 == 1 and name in DEFAULT_CASES.split(",")
                cases.append({"class": "round1", **json.loads(line), "_held": held})
    return cases


def with_pipelines(plan: dict, catalog) -> dict:
    """The case's plan in our plan format: a step that follows a closed pipeline (after an F or A
    step) begins a pipeline of its own (`pipelines`, planner.plan), as planner.compound writes the
    plans of requests with several actions. The cases were written blind, with plain step lists."""
    if plan.get("pipelines"):
        return plan
    starts, closed = [], False
    for number, step in enumerate(plan.get("steps", []), 1):
        if closed:
            starts.append(number)
        executor = catalog.get(step.get("tool"))
        closed = executor is not None and executor.category in ("F", "A")
    return {**plan, "pipelines": starts} if starts else plan


def rates(results: list[tuple[str, bool, bool | None]]) -> dict:
    """(expect, hit, args_ok) per case → hit rate, false reuse rate, argument accuracy."""
    hits = [hit for expect, hit, _ in results if expect == "hit"]
    misses = [hit for expect, hit, _ in results if expect != "hit"]
    checked = [ok for _, _, ok in results if ok is not None]
    return {
        "cases": len(results),
        "hit_rate": round(sum(hits) / len(hits), 4) if hits else None,
        "false_reuse_rate": round(sum(misses) / len(misses), 4) if misses else None,
        "arg_accuracy": round(sum(checked) / len(checked), 4) if checked else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=DEFAULT_CASES, help="JSONL files of cases, comma-separated")
    parser.add_argument("--split", choices=("all", "held", "tune"), default="all", help="odd lines, even lines, or all")
    parser.add_argument("--quick", action="store_true", help="the first 20 cases")
    parser.add_argument("--verbose", action="store_true", help="print every case's result")
    parser.add_argument("--shadow", metavar="FILE", help="replay a stream, shadow on and off (plan_memory_shadow)")
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos").rsplit("/", 1)[0]
    # METNOS_BENCH_DB: a database of its own, when another bench uses metnos_bench at the same time
    # (each case empties the memory tables).
    name = os.environ.get("METNOS_BENCH_DB", "metnos_bench")
    os.environ.update({"DATABASE_URL": f"{base}/{name}", "DJANGO_SETTINGS_MODULE": "metnos_site.settings"})
    subprocess.run([sys.executable, "scripts/ensure_database.py"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    import django

    django.setup()
    import logging

    from core.clock import monotonic_ms
    from planner import memory
    from planner.catalog import catalog
    from planner.embeddings import embed, warm
    from planner.memory import autopath, fastpath
    from planner.models import AntiAutopath, Autopath, Fastpath, Observation
    from planner.plan import parse
    from planner.validator import validate

    logging.getLogger("planner").setLevel(logging.WARNING)
    if args.shadow:  # the whole stream, --quick or not: its order is what it tests
        from bench import plan_memory_shadow

        print(json.dumps(plan_memory_shadow.replay(args.shadow, verbose=args.verbose)))
        return
    cases = load_cases(args.cases, args.split)
    if args.quick:
        cases = cases[:20]
    cat = catalog()
    for case in cases:
        case["plan"] = with_pipelines(case["plan"], cat)
    warm()  # loaded (and traced) once, outside the timings
    owner = 1
    hits_expected = hits_ok = misses_expected = false_reuse = args_checked = args_ok = 0
    invalid = invalid_hits = false_reuse_own = 0
    stage1, stage2, lookups = [], [], []
    by_class: dict[str, list] = {}
    for number, case in enumerate(cases, 1):
        for table in (Fastpath, Autopath, AntiAutopath, Observation):
            table.objects.all().delete()
        ws = make_workspace(case)
        try:
            learned = memory.Probe.of(case["learn"], ws, owner)
            fastpath.learn(learned, case["plan"], cat, turn_id=None)
            autopath.record_success(learned, case["plan"], cat)
            embed.cache_clear()  # stage 2 pays for its embedding in every case
            probe = memory.Probe.of(case["probe"], ws, owner)
            started = monotonic_ms()
            recall = memory.lookup(probe, cat)
            elapsed = monotonic_ms() - started
        finally:
            shutil.rmtree(ws, ignore_errors=True)
        lookups.append(elapsed)
        if recall is not None:
            (stage1 if recall.stage == 1 else stage2).append(elapsed)
        elif probe._embedding is not None:
            stage2.append(elapsed)  # a miss that went through stage 2
        else:
            stage1.append(elapsed)
        hit = recall is not None
        verdict = "ok"
        if case["expect"] == "hit":
            hits_expected += 1
            hits_ok += hit
            if any(p.blocking for p in validate(parse({"final_message": "", **case["plan"]}), cat)):
                invalid, invalid_hits = invalid + 1, invalid_hits + hit
            if hit and case.get("expect_args"):
                args_checked += 1
                matched = args_match(recall.plan, case["expect_args"])
                args_ok += matched
                verdict = "ok" if matched else "WRONG ARGS"
            elif not hit:
                verdict = "MISSED"
        else:
            misses_expected += 1
            false_reuse += hit
            own = hit and own_expression(recall.plan, case["probe"])
            false_reuse_own += own
            verdict = ("FALSE REUSE (the probe's own expression)" if own else "FALSE REUSE") if hit else "ok"
        checked_args = None
        if case["expect"] == "hit" and hit and case.get("expect_args"):
            checked_args = verdict == "ok"
        by_class.setdefault(case["class"], []).append((case["expect"], hit, checked_args))
        if (args.verbose or verdict != "ok") and not case["_held"]:
            detail = recall.to_trace() if recall else {}
            print(json.dumps({"case": number, "class": case["class"], "verdict": verdict, "learn": case["learn"],
                              "probe": case["probe"], "recall": detail}))  # fmt: skip
    print(
        json.dumps(
            {
                "bench": "plan_memory_accuracy",
                "cases": len(cases),
                "expected_hits": hits_expected,
                "expected_misses": misses_expected,
                "hit_rate": round(hits_ok / hits_expected, 4) if hits_expected else None,
                "false_reuse_rate": round(false_reuse / misses_expected, 4) if misses_expected else None,
                # of the false reuses, those whose served plan computes the probe's own expression (a
                # statistic of a longer list; an operator is a modifier since migration 0012)
                "false_reuse_own_expression": false_reuse_own,
                "arg_accuracy": round(args_ok / args_checked, 4) if args_checked else None,
                "invalid_plans": invalid,
                "hit_rate_valid_plans": round((hits_ok - invalid_hits) / (hits_expected - invalid), 4)
                if hits_expected > invalid
                else None,
                "stage1_p50_ms": pct(stage1, 0.5),
                "stage2_p50_ms": pct(stage2, 0.5),
                "lookup_p95_ms": pct(lookups, 0.95),
                "lookup_mean_ms": round(statistics.fmean(lookups), 3) if lookups else 0.0,
                "split": args.split,
                "by_class": {name: rates(results) for name, results in sorted(by_class.items())},
            }
        )
    )


if __name__ == "__main__":
    main()
