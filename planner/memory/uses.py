"""What plan memory hears when a recalled entry is used: `served` after a remembered plan ran
(its count, its own bound, what it saved), `on_trial` and `shadowed` when the entry is on trial
and the engine planned the request instead (planner.memory.shadow)."""

from __future__ import annotations

import logging

from core.events import bus
from planner.catalog import Catalog
from planner.memory import accounts, autopath, bounds, fastpath, shadow
from planner.memory.probe import Probe, Recall
from planner.turn import TurnOutcome

logger = logging.getLogger(__name__)


def served(probe: Probe, recall: Recall, outcome: TurnOutcome, catalog: Catalog) -> accounts.Saved | None:
    """A remembered plan ran to its end: its use is counted, its own bound moves (planner.memory.
    bounds), and a failure counts against it. Returns what an answer saved against the cold path
    (None for a failure). An entry on re-validation that answered is off trial."""
    ok = outcome.final_kind == "answer"
    layer = fastpath if recall.layer == "fastpath" else autopath
    saved = accounts.saved_by(recall.entry, outcome) if ok else None
    more = bounds.moved(stage=recall.stage, cosine=recall.cosine, success=ok) | (accounts.added(saved) if saved else {})
    layer.used(recall.entry, success=ok, latency_ms=int(recall.lookup_ms), **more)  # one UPDATE of the row
    if not ok:
        autopath.record_failure(probe, outcome.plan or recall.plan.to_dict(), reason=outcome.error or "failed")
    elif recall.entry.trial == shadow.REVALIDATE:
        shadow.prove(type(recall.entry), recall.entry.pk, recall.entry.plan, catalog)
    return saved


def on_trial(recall: Recall | None) -> bool:
    """Whether the recalled entry is shadowed: the engine plans the request, not memory."""
    return recall is not None and recall.entry.trial == shadow.SHADOW


def shadowed(recall: Recall | None, outcome: TurnOutcome, catalog: Catalog, ids: dict) -> None:
    """The engine answered a request an entry on trial was recalled for (none when `recall` is
    None): the entry's verdict (planner.memory.shadow), in the turn's trace. A side effect: it
    never fails the turn."""
    if recall is None:
        return
    answered = outcome.final_kind == "answer" and outcome.plan_ok
    try:
        verdict = shadow.judge(recall, outcome.plan, answered=answered, catalog=catalog)
    except Exception:
        logger.exception("plan memory could not judge the entry on trial %s", recall.entry.pk)
        return
    outcome.trace["shadow"] = {**recall.to_trace(), "verdict": verdict}
    bus.emit("pattern.shadowed", outcome.trace["shadow"], **ids)
