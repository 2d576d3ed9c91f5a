"""The route decision (planner/decision.py) on a labelled corpus: does each message go direct,
to the tools (and which tool first), or to one short question? No model runs: an uncertain
decision counts as what the local model gets (`direct`). Beside it, in the same run, the rule it
replaced (a pre-filter score of 3 or more sends a message to the engine), and our intent
extractor on Metnos's own intent gold (../shared/peer-bench/metnos-golden/).

--split tune|held|all picks the corpus lines by their 1-based number: tune = even, held = odd
(the held-out half, committed before any tuning). Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "metnos_site.settings")
CORPUS = ROOT / "bench" / "cases" / "route_choice.jsonl"
GOLD = ROOT.parent / "shared" / "peer-bench" / "metnos-golden" / "intent_accuracy_gold.json"
OLD_ENGINE_MIN_SCORE = 3

# Metnos's intent labels → ours, mapped once. A label with no counterpart in our lexicon is
# reported as not covered, not as a miss.
PEER_VERBS = {"read": "read", "get": ("read", "tell", "list"), "find": ("find", "count"), "list": "list",
              "delete": "delete", "describe": ("read", "summarize"), "filter": ("filter", "find"), "set": "set",
              "move": "move", "create": "create"}  # fmt: skip
PEER_OBJECTS = {"files": "files", "dirs": "folder", "urls": "web", "numbers": ("numbers", "time"),
                "persons": "person"}  # fmt: skip


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load(split: str, lines: str = "", corpus: Path = CORPUS) -> list[dict]:
    first, _, last = lines.partition("-")
    rows = []
    for number, line in enumerate(corpus.read_text().splitlines(), 1):
        if not line.strip() or (first and number < int(first)) or (last and number > int(last)):
            continue
        if (split == "tune" and number % 2 == 1) or (split == "held" and number % 2 == 0):
            continue
        rows.append({**json.loads(line), "line": number})
    return rows


def label_of(decision) -> str:
    route = decision.route if decision.sure or decision.route != "tools" else "direct"
    return f"tools:{decision.tool}" if route == "tools" else route


def scores(pairs: list[tuple[str, str]]) -> dict:
    """(expected, got) → the report's figures."""

    def share(hits: int, total: int) -> float | None:
        return round(hits / total, 3) if total else None

    direct_got = [e for e, g in pairs if g == "direct"]
    direct_expected = [g for e, g in pairs if e == "direct"]
    tools_got = [e for e, g in pairs if g.startswith("tools:")]
    tools_expected = [(e, g) for e, g in pairs if e.startswith("tools:")]
    return {
        "accuracy": share(sum(e == g for e, g in pairs), len(pairs)),
        "direct_precision": share(sum(e == "direct" for e in direct_got), len(direct_got)),
        "direct_recall": share(sum(g == "direct" for g in direct_expected), len(direct_expected)),
        "tools_precision": share(sum(e.startswith("tools:") for e in tools_got), len(tools_got)),
        "tools_recall": share(sum(g.startswith("tools:") for _, g in tools_expected), len(tools_expected)),
        "first_tool_accuracy": share(sum(e == g for e, g in tools_expected), len(tools_expected)),
        "ask_accuracy": share(sum(g == "ask" for e, g in pairs if e == "ask"), sum(e == "ask" for e, _ in pairs)),
    }


def peer_intents(extract) -> dict | None:
    if not GOLD.is_file():
        return None  # the peer data is not beside this checkout
    gold = json.loads(GOLD.read_text())
    cases = [c for group in gold.values() if isinstance(group, list) for c in group]
    verbs = objects = verb_total = object_total = 0
    for case in cases:
        verb, obj = case["intent"].split("/", 1)
        found = extract(case["q"])
        if verb in PEER_VERBS:
            verb_total += 1
            want = PEER_VERBS[verb]
            verbs += found.verb in (want if isinstance(want, tuple) else (want,))
        if obj in PEER_OBJECTS:
            object_total += 1
            want = PEER_OBJECTS[obj]
            objects += found.object in (want if isinstance(want, tuple) else (want,))
    return {
        "cases": len(cases),
        "verb_covered": verb_total,
        "verb_accuracy": round(verbs / verb_total, 3) if verb_total else None,
        "object_covered": object_total,
        "object_accuracy": round(objects / object_total, 3) if object_total else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("tune", "held", "all"), default="all")
    parser.add_argument("--quick", action="store_true", help="one timing pass (the default is 5)")
    parser.add_argument("--misses", action="store_true", help="print every case the decision gets wrong")
    parser.add_argument("--lines", default="", help="only the corpus lines FIRST-LAST (one batch: 1601-1800)")
    parser.add_argument("--cases", type=Path, default=CORPUS, help="another labelled file in the same format")
    args = parser.parse_args()
    import django

    django.setup()  # the decision needs no database, but the planner's modules load Django models
    from planner.catalog import catalog
    from planner.decision import decide
    from planner.intent import extract
    from planner.prefilter import Prefilter

    prefilter = Prefilter(catalog().executors.values())
    rows = load(args.split, args.lines, args.cases)
    ours, old, timings = [], [], []
    with tempfile.TemporaryDirectory() as workspace:
        for row in rows:
            for _ in range(1 if args.quick else 5):
                started = time.perf_counter()
                intent = extract(row["text"])
                ranked = prefilter.rank(row["text"], intent)
                decision = decide(row["text"], intent=intent, ranked=ranked, workspace=Path(workspace))
                timings.append((time.perf_counter() - started) * 1000)
            got = label_of(decision)
            ours.append((row["label"], got))
            old.append((row["label"], f"tools:{ranked[0].name}" if ranked and ranked[0].score >= OLD_ENGINE_MIN_SCORE
                        else "direct"))  # fmt: skip
            if args.misses and got != row["label"]:
                print(json.dumps({"line": row["line"], "text": row["text"], "label": row["label"], "got": got,
                                  "decision": decision.to_trace()}, ensure_ascii=False))  # fmt: skip
    result = {
        "bench": "route_choice",
        "split": args.split,
        "cases": len(rows),
        **scores(ours),
        "decision_p50_ms": round(pct(timings, 0.5), 3),
        "decision_p95_ms": round(pct(timings, 0.95), 3),
        "before": scores(old),
        "peer_intent_gold": peer_intents(extract),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
