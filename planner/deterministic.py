"""The plans a request gets with no model call, tried in order before the proposer (planner.engine):
the cold path (a request that types its one tool's every argument, among the ranked candidates),
then facts to remember, edits spelled out in words, copies, actions on every file of a kind, and,
with a local model, numbers computed from a file and a question answered with the file."""

from __future__ import annotations

from dataclasses import replace

from planner import (
    batch,
    coldpath,
    compound,
    copies,
    dated,
    edits,
    facts,
    lines_out,
    lookup,
    new_text,
    run_request,
    tables,
    units,
)
from planner.candidates import ranking
from planner.catalog import Executor, catalog
from planner.intent import extract
from planner.plan import Plan
from planner.turn import TurnInput
from routing.chain import RouteDecision


def plan_for(
    inp: TurnInput, allowed: list[Executor], decision: RouteDecision, everything: list[Executor], *, whole: bool = True
) -> Plan | None:
    """The plan a request gets with no model call: one that types its tool's every argument (among
    the ranked candidates), a fact to remember, an edit it spells out in words, a copy of a file,
    an action on every file of a kind; with a local model, a total over one file's numbers is
    computed (planner.tables) and a question about one file is answered with the file
    (planner.lookup). Those after the first may use any tool this turn permits (`everything`):
    each is its own evidence. Last, a request of several actions gets each part's plan, joined
    (planner.compound); `whole` is False for a part."""
    tools, at = {c.name for c in everything}, inp.workspace_path
    return (
        coldpath.plan_for(inp.text, candidates=allowed, workspace=at)
        or units.plan_for(inp.text, tools=tools)
        or run_request.plan_for(inp.text, tools=tools)
        or new_text.plan_for(inp.text, tools=tools, workspace=at)
        or lines_out.plan_for(inp.text, tools=tools, workspace=at, previous=inp.previous)
        or facts.plan_for(inp.text, tools=tools, workspace=at)
        or dated.plan_for(inp.text, tools=tools, workspace=at)
        or edits.plan_for(inp.text, tools=tools, workspace=at)
        or copies.plan_for(inp.text, tools=tools, workspace=at)
        or batch.plan_for(inp.text, tools=tools, workspace=at)
        or (_local_reading(inp.text, tools, at) if decision.model.is_local else None)
        or (compound.plan_for(inp.text, workspace=at, plan_one=_part(inp, decision, everything)) if whole else None)
    )


def _part(inp: TurnInput, decision: RouteDecision, everything: list[Executor]):
    """The plan of one part of a request, among the tools ranked for that part."""
    permitted = {c.name: c for c in everything}

    def plan_one(part: str) -> Plan | None:
        ranked = [permitted[c.name] for c in ranking(catalog(), part, extract(part)) if c.name in permitted]
        return plan_for(replace(inp, text=part), ranked, decision, everything, whole=False)

    return plan_one


def _local_reading(text: str, tools: set[str], at) -> Plan | None:
    """What a local model cannot do with a file: add up its numbers, or answer from it."""
    return tables.plan_for(text, tools=tools, workspace=at) or lookup.plan_for(text, tools=tools, workspace=at)
