"""Shadow replay (plan_memory_accuracy.py --shadow FILE): how many wrong remembered plans shadow
mode (planner.memory.shadow) stops before they serve, and what it costs in engine plans.

FILE is JSONL, one turn of one person a line, in the order they happened:
    {"request": TEXT, "plan_from_engine": PLAN, "outcome": "ok" | "wrong" | "failed", "note": TEXT}
  ok      the engine's plan ran and was the right plan for the request;
  wrong   it ran and answered, but it was not the right plan ("all but the first 3 lines" planned
          as head_lines). Nothing in the turn tells it from `ok`, so memory learns it; only the
          label knows;
  failed  the engine gave no answer (its plan failed): nothing is learned, and no verdict.
`note` is for the reader only.

Each line goes as planner.dispatch takes a turn. Memory is looked up (planner.memory.lookup). An
entry recalled on trial is judged against the engine's plan (shadow.judge), and then the engine's
plan is learned, as after any turn the engine planned. An entry recalled off trial serves and the
engine plans nothing: the serve is correct when its bound steps are the engine's and the line is
`ok`; wrong when they differ from an `ok` plan, or repeat a `wrong` one; unjudged otherwise (the
right plan is not known). On a miss, the engine's plan is learned unless the line failed.

Only L0 learns (planner.memory.fastpath.learn): an L1 entry starts on no trial, so counting the
autopath in would measure its promotion rule, not shadow. No person's 👎 is replayed: a wrong
serve here is one a person would have to notice. An entry is wrong when the line that taught it is
`wrong`.

The stream runs twice, each time in a freshly emptied memory and one workspace holding every path
it names: with METNOS_MEMORY_SHADOW on and off. The result has both runs' counts and the summary:
wrong entries learned and stopped by shadow before they served, wrong and correct serves with and
without shadow, entries promoted, and the engine plans each run needed (shadow's cost: every
turn an entry on trial was recalled for is planned by the engine too)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from bench.plan_memory_accuracy import make_workspace

if TYPE_CHECKING:
    from planner.catalog import Catalog

OWNER = 1
OUTCOMES = ("ok", "wrong", "failed")
COUNTS = """learned wrong_learned serves correct_serves wrong_serves unjudged_serves wrong_entries_served
shadowed_turns agreed promoted stopped_wrong stopped_correct kept no_verdict engine_plans""".split()


def load(path: str) -> list[dict]:
    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    for number, line in enumerate(lines, 1):
        if not {"request", "plan_from_engine", "outcome"} <= set(line) or line["outcome"] not in OUTCOMES:
            raise ValueError(f"{path}:{number}: needs request, plan_from_engine and outcome ({'|'.join(OUTCOMES)})")
    return lines


def replay(path: str, *, verbose: bool = False) -> dict:
    from django.conf import settings
    from django.test import override_settings

    from planner.catalog import catalog
    from planner.embeddings import warm

    lines = load(path)
    cat = catalog()
    warm()  # loaded once, before the first line
    # One workspace with every path the stream names (plan_memory_accuracy's, for one case made
    # of all the lines).
    ws = make_workspace(
        {
            "plan": [line["plan_from_engine"] for line in lines],
            "learn": "\n".join(line["request"] for line in lines),
            "probe": "",
        }
    )
    try:
        checked = check(lines, ws, cat)
        runs = {}
        for mode in ("on", "off"):
            with override_settings(METNOS_MEMORY_SHADOW=mode):
                runs[mode] = run(lines, ws, cat, verbose=verbose)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    on, off = runs["on"], runs["off"]
    return {
        "bench": "plan_memory_shadow",
        "stream": Path(path).name,
        "lines": len(lines),
        "agreements_to_promote": settings.METNOS_MEMORY_SHADOW_AGREEMENTS,
        **checked,
        "wrong_entries_learned": on["wrong_learned"],
        "wrong_entries_learned_without_shadow": off["wrong_learned"],
        "wrong_stopped_before_serving": on["stopped_wrong"],
        "correct_stopped": on["stopped_correct"],
        "wrong_serves_with_shadow": on["wrong_serves"],
        "wrong_serves_without_shadow": off["wrong_serves"],
        "correct_serves_with_shadow": on["correct_serves"],
        "correct_serves_without_shadow": off["correct_serves"],
        "entries_promoted": on["promoted"],
        "engine_plans_with_shadow": on["engine_plans"],
        "engine_plans_without_shadow": off["engine_plans"],
        "shadow": on,
        "no_shadow": off,
    }


def check(lines: list[dict], ws: Path, cat: Catalog) -> dict:
    """Lines whose engine plan the validator rejects for its request (memory never serves such a
    plan: a mistake in the stream, printed), and those memory cannot learn (planner.memory.justify:
    a literal the request does not give), which is the engine's answer every time."""
    from planner import memory
    from planner import params as P
    from planner.memory.justify import learnable
    from planner.plan import PlanError, parse
    from planner.validator import validate

    invalid = unlearnable = 0
    for number, line in enumerate(lines, 1):
        plan = line["plan_from_engine"]
        try:
            problems = [
                str(p)
                for p in validate(parse({"final_message": "", **plan}), cat, request_text=line["request"], workspace=ws)
                if p.blocking
            ]
        except PlanError as exc:
            problems = [str(exc)]
        if problems:
            invalid += 1
            print(json.dumps({"line": number, "invalid_plan": problems[:3], "request": line["request"]}))
        try:
            learnable(plan, memory.Probe.of(line["request"], ws, OWNER).values, cat)
        except P.NotLearnable:
            unlearnable += 1
    return {"invalid_plans": invalid, "unlearnable_plans": unlearnable}


def run(lines: list[dict], ws: Path, cat: Catalog, *, verbose: bool) -> dict:
    from planner import memory
    from planner.memory import fastpath, shadow
    from planner.models import AntiAutopath, Autopath, Fastpath, Observation
    from planner.plan import parse
    from planner.turn import TurnOutcome

    for table in (Fastpath, Autopath, AntiAutopath, Observation):
        table.objects.all().delete()
    counts = dict.fromkeys(COUNTS, 0)
    wrong_entries: set = set()
    known: set = set()
    served_wrong: set = set()

    def learn(probe, planned: dict, outcome: str) -> str:
        entry = fastpath.learn(probe, planned, cat, turn_id=None)
        if entry is None or entry.pk in known:
            return "" if entry is None else "counted"
        known.add(entry.pk)
        counts["learned"] += 1
        if outcome == "wrong":
            wrong_entries.add(entry.pk)
            counts["wrong_learned"] += 1
        return "learned"

    for number, line in enumerate(lines, 1):
        answered = line["outcome"] != "failed"
        planned = parse({"final_message": "", **line["plan_from_engine"]}).to_dict()  # as the engine keeps it
        probe = memory.Probe.of(line["request"], ws, OWNER)
        recall = memory.lookup(probe, cat)
        event: dict = {"line": number, "outcome": line["outcome"]}
        if recall is None or memory.on_trial(recall):
            counts["engine_plans"] += 1
            if recall is not None:
                counts["shadowed_turns"] += 1
                verdict = shadow.judge(recall, planned, answered=answered, catalog=cat)
                if verdict == "stopped":
                    counts["stopped_wrong" if recall.entry.pk in wrong_entries else "stopped_correct"] += 1
                else:
                    counts[verdict or "no_verdict"] += 1
                event["verdict"] = verdict
            if answered:
                event["learn"] = learn(probe, planned, line["outcome"])
        else:
            bound = recall.plan.to_dict()
            same = shadow.steps_of(bound) == shadow.steps_of(planned)
            result = {("ok", True): "correct", ("ok", False): "wrong", ("wrong", True): "wrong"}.get(
                (line["outcome"], same), "unjudged"
            )
            counts["serves"] += 1
            counts[f"{result}_serves"] += 1
            if recall.entry.pk in wrong_entries:
                served_wrong.add(recall.entry.pk)
            done = TurnOutcome(final_kind="answer", text="", layer=recall.layer, plan=bound, plan_ok=True)
            memory.served(probe, recall, done, cat)  # a wrong plan answers too: nothing tells it apart
            event["served"] = result
        if recall is not None:
            event["recall"] = {
                "layer": recall.layer,
                "stage": recall.stage,
                "trial": recall.entry.trial,
                "wrong_entry": recall.entry.pk in wrong_entries,
            }
        if verbose:
            print(json.dumps({"shadow": shadow.active(), **event, "request": line["request"]}))
    counts["wrong_entries_served"] = len(served_wrong)
    return counts
