"""What each remembered plan has saved: hits, failures and feedback are counted on the row
(planner.memory.probe.count_use, planner.memory.verdicts.feedback); this module keeps the cold
path's cost and what each use from memory saved against it.

The cold path's cost is measured: every turn in which the engine planned an entry's plan adds its
time, model calls, tokens and cost to the entry (`add_cold`), so an entry's cold cost is the mean
over the turns that taught it. A use from memory then saves that mean less what the use itself
took (a filler may still call a model). An entry with no measured turn of its own (a seed) is
measured by the mean of every fastpath that has one. Money is the measured cost; when that is zero
(a local model costs nothing) the same tokens are priced at METNOS_BASELINE_MODEL
(billing.analytics.baseline_cost), and `basis` says which."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import F, Sum

from billing.analytics import baseline_cost
from planner.models import Fastpath
from planner.turn import TurnOutcome


@dataclass(frozen=True)
class Cold:
    """One turn's cost on the cold path."""

    ms: int
    usd: Decimal
    calls: int
    input_tokens: int
    output_tokens: int

    @classmethod
    def of(cls, outcome: TurnOutcome) -> Cold:
        usage = outcome.usage
        return cls(outcome.latency_ms, outcome.cost_usd, outcome.model_calls, usage.input_tokens, usage.output_tokens)


@dataclass(frozen=True)
class Saved:
    """What one use from memory saved against the cold path."""

    calls: int
    ms: int
    usd: Decimal
    basis: str  # measured | baseline | none

    def to_trace(self) -> dict:
        return {"calls": self.calls, "ms": self.ms, "usd": str(self.usd), "basis": self.basis}


def add_cold(model, entry_id, cold: Cold) -> None:
    model.objects.filter(pk=entry_id).update(
        cold_turns=F("cold_turns") + 1,
        cold_ms_total=F("cold_ms_total") + max(cold.ms, 0),
        cold_usd_total=F("cold_usd_total") + cold.usd,
        cold_calls_total=F("cold_calls_total") + max(cold.calls, 0),
        cold_input_tokens=F("cold_input_tokens") + max(cold.input_tokens, 0),
        cold_output_tokens=F("cold_output_tokens") + max(cold.output_tokens, 0),
    )


_COLD = ("cold_turns", "cold_ms_total", "cold_usd_total", "cold_calls_total", "cold_input_tokens", "cold_output_tokens")


def _mean_cold(entry) -> dict | None:
    """The entry's mean cold turn, else the mean over every entry that has one; None with none."""
    totals = {name: getattr(entry, name) for name in _COLD}
    if not totals["cold_turns"]:  # every cold turn is in one fastpath (the autopaths count it again)
        summed = Fastpath.objects.filter(cold_turns__gt=0).aggregate(**{n: Sum(n) for n in _COLD})
        totals = {name: Decimal(summed[name] or 0) for name in _COLD}
    turns = totals.pop("cold_turns")
    if not turns:
        return None
    return {name: Decimal(value) / Decimal(turns) for name, value in totals.items()}


def saved_by(entry, outcome: TurnOutcome) -> Saved:
    """What this use from memory saved: the entry's mean cold turn less what the use took."""
    cold = _mean_cold(entry)
    if cold is None:  # nothing measured yet: the proposer's call, at least, was not made
        return Saved(1, 0, Decimal("0"), "none")
    calls = max(round(cold["cold_calls_total"]) - outcome.model_calls, 1)
    ms = max(int(cold["cold_ms_total"]) - outcome.latency_ms, 0)
    usd, basis = cold["cold_usd_total"], "measured"
    if not usd:
        tokens = {"input_tokens": int(cold["cold_input_tokens"]), "output_tokens": int(cold["cold_output_tokens"])}
        usd, basis = baseline_cost(tokens), "baseline"
    usd = max(usd - outcome.cost_usd, Decimal("0")).quantize(Decimal("0.0000000001"))
    return Saved(calls, ms, usd, basis)


def added(saved: Saved) -> dict:
    """What a use that answered adds to the entry's totals, as fields for the row's UPDATE."""
    return {
        "calls_avoided": F("calls_avoided") + saved.calls,
        "ms_saved": F("ms_saved") + saved.ms,
        "usd_saved": F("usd_saved") + saved.usd,
    }


def count_feedback(model, entry_id, value: str) -> None:
    """👍 counts up; 👎 and "wrong plan" count down."""
    field = "feedback_up" if value == "up" else "feedback_down"
    model.objects.filter(pk=entry_id).update(**{field: F(field) + 1})
