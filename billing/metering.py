"""Where a model call is metered: admission (rate limits, the budget reservation, the `pending`
ledger row), the provider call, its settlement and one `llm.call_completed` event. The planner and
the gateway both meter here.

Billing sits below routing, so it never sees an adapter or a ModelConfig: the provider call comes
in as a callable that says how it ended (an Outcome), and the model as anything with a name, a
provider, a provider kind and an API model. How a finished call is settled is the caller's choice:
`settle` does it at once; the gateway batches many into one transaction through `record`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from billing import gate, ledger
from billing.cost import format_usd
from core.clock import monotonic_ms
from core.events import bus
from core.ir import Usage


class Model(Protocol):
    """What metering reads of a model (routing's ModelConfig has it)."""

    @property
    def name(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def provider_kind(self) -> str: ...
    @property
    def api_model(self) -> str: ...


@dataclass(frozen=True)
class Call:
    """Who makes a call, on which model, and where it comes from."""

    model: Model
    identity: gate.Identity
    role: str
    inbound_shape: str = "chat"
    slot: str = ""
    session_id: Any = None
    turn_id: Any = None


@dataclass
class Outcome:
    """How a provider call ended. `result` is what the call produced for its caller (a response,
    the streamed text): billing reads only the usage and the reported cost."""

    usage: Usage = field(default_factory=Usage)
    status: str = "ok"  # ok | error | cancelled
    error: Exception | None = None
    reported_cost: Decimal | None = None
    ended: float | None = None  # monotonic ms; None: the latency runs until the call is recorded
    result: Any = None


@dataclass
class Admitted:
    """A call past the rate limits and the budget, its `pending` row committed."""

    call: Call
    opened: ledger.Open
    started: float  # monotonic ms: the call's latency runs from here


Settle = Callable[[Admitted, Outcome], Decimal | None]


def admit(call: Call, *, prompt_tokens: int, max_tokens: int, started: float | None = None) -> Admitted:
    """Rate limits, the budget reservation and the `pending` row (see ledger.admit). Raises
    gate.Refused, after writing a `refused` row. `started` defaults to now, after admission."""
    opened = ledger.admit(
        model=call.model.name,
        provider=call.model.provider,
        provider_kind=call.model.provider_kind,
        api_model=call.model.api_model,
        prompt_tokens=prompt_tokens,
        max_tokens=max_tokens,
        identity=call.identity,
        role=call.role,
        inbound_shape=call.inbound_shape,
        session_id=call.session_id,
        turn_id=call.turn_id,
        slot=call.slot,
    )
    return Admitted(call, opened, monotonic_ms() if started is None else started)


def latency_ms(admitted: Admitted, outcome: Outcome, *, now: float | None = None) -> int:
    ended = outcome.ended if outcome.ended is not None else (monotonic_ms() if now is None else now)
    return int(ended - admitted.started)


def settle(admitted: Admitted, outcome: Outcome) -> Decimal:
    """One call, settled at once: its row and rollups, the budget counters, then its event."""
    latency = latency_ms(admitted, outcome)
    cost = ledger.settle(admitted.opened, **_ledger_outcome(outcome, latency))
    _emit(admitted.call, outcome, cost, latency, admitted.opened.entry_id)
    return cost


def metered(
    admitted: Admitted, run: Callable[[], Outcome], *, settle_with: Settle = settle
) -> tuple[Outcome, Decimal | None]:
    """The provider call of an admitted call, then its settlement: at once unless `settle_with`
    says otherwise (the gateway hands a success to its batcher, and then the cost is not known
    yet: None)."""
    outcome = run()
    if outcome.ended is None:
        outcome.ended = monotonic_ms()
    return outcome, settle_with(admitted, outcome)


def record(calls: list[tuple[Admitted, Outcome]]) -> list[Decimal]:
    """settle()'s database half for many calls: their rows and rollups in one statement each, and
    their events. The caller holds the transaction (and a trace batch, for one INSERT of the
    events), then settles the budget counters with each call's cost, returned in order."""
    now = monotonic_ms()
    latencies = [latency_ms(admitted, outcome, now=now) for admitted, outcome in calls]
    charged = ledger.record_many([
        (admitted.opened, _ledger_outcome(outcome, latency))
        for (admitted, outcome), latency in zip(calls, latencies, strict=True)
    ])  # fmt: skip
    for (admitted, outcome), latency, cost in zip(calls, latencies, charged, strict=True):
        _emit(admitted.call, outcome, cost, latency, admitted.opened.entry_id)
    return charged


def refused(call: Call, error: Exception) -> None:
    """The event of a call that a budget or rate limit refused (its row is ledger.admit's)."""
    _emit(call, Outcome(status="refused", error=error), Decimal("0"), 0, None)


def _ledger_outcome(outcome: Outcome, latency: int) -> dict:
    return {
        "usage": outcome.usage,
        "status": outcome.status,
        "latency_ms": latency,
        "error": str(outcome.error) if outcome.error else "",
        "reported_cost": outcome.reported_cost,
    }


def _emit(call: Call, outcome: Outcome, cost: Decimal, latency: int, entry_id) -> None:
    bus.emit(
        "llm.call_completed",
        {
            "model": call.model.name,
            "provider": call.model.provider,
            "usage": outcome.usage.to_dict(),
            "cost_usd": format_usd(cost),
            "latency_ms": latency,
            "status": outcome.status,
            "error": str(outcome.error) if outcome.error else "",
            "role": call.role,
            "user_id": call.identity.user_id,
            "team_id": call.identity.team_id,
            "key_id": call.identity.key_id,
            "inbound_shape": call.inbound_shape,
            "ledger_id": str(entry_id) if entry_id else None,
        },
        session_id=call.session_id,
        turn_id=call.turn_id,
    )
