"""Plan memory, as a turn uses it: `lookup` before planning (L0 fastpath, then L1 autopath),
`served` after a remembered plan ran, `on_trial` and `shadowed` when the engine plans a request a
shadowed entry was recalled for (planner.memory.shadow), `excluded` for the proposer, `learn`
after the engine planned, `observe` at the end of every turn; `feedback` when a person judges one."""

from __future__ import annotations

from collections.abc import Callable

from core.clock import monotonic_ms
from planner import params as P
from planner.catalog import Catalog
from planner.memory import autopath, fastpath
from planner.memory.probe import Probe, Recall, template_of
from planner.memory.uses import on_trial, served, shadowed
from planner.memory.verdicts import feedback, learn, observe

__all__ = ["Probe", "Recall", "excluded", "feedback", "learn", "lookup", "observe", "on_trial", "served", "shadowed"]


def lookup(probe: Probe, catalog: Catalog) -> Recall | None:
    """L0, then L1 when the intent is complete (verb and object)."""
    started = monotonic_ms()
    recall = fastpath.lookup(probe, catalog, started)
    if recall is None and probe.intent.verb and probe.intent.object:
        recall = autopath.lookup(probe, catalog, started)
    return recall


def excluded(probe: Probe) -> Callable[[dict], bool] | None:
    """Whether a proposed plan is banned for this kind of request (an anti-autopath); None when none is."""
    hashes = autopath.banned_hashes(probe.owner_id, probe.intent.verb, probe.intent.object)
    if not hashes:
        return None
    return lambda plan: P.plan_hash(template_of(probe, plan)) in hashes
