"""What plan memory hears after a turn: the plan that answered (learn), its outcome (one
Observation row, which the autopath counts failures from) and a person's verdict on it
(feedback: 👍, 👎 or "wrong plan")."""

from __future__ import annotations

from core.clock import as_uuid
from planner import params as P
from planner.catalog import Catalog
from planner.memory import accounts, autopath, bounds, fastpath
from planner.memory.justify import learnable
from planner.memory.probe import Probe, Recall, template_of
from planner.models import Autopath, Fastpath, Observation
from planner.turn import TurnOutcome


def learn(probe_: Probe, outcome: TurnOutcome, catalog: Catalog, turn_id: str) -> None:
    """A plan the engine completed is remembered (L0) and counted (L1); one that failed is
    counted against (anti-autopaths). Waiting for a person is neither. A plan with a value the
    request does not justify is never remembered (planner.memory.justify), even after a person
    approved it; the reason goes into the turn's trace (`learn`)."""
    if outcome.plan is None or outcome.final_kind == "awaiting":
        return
    if outcome.plan_ok and outcome.layer in ("engine", "recovery"):
        try:
            learnable(outcome.plan, probe_.values, catalog)
        except P.NotLearnable as exc:
            outcome.trace["learn"] = {"learned": False, "reason": str(exc)[:500]}
            return
        cold = accounts.Cold.of(outcome)
        fastpath.learn(probe_, outcome.plan, catalog, turn_id=turn_id, latency_ms=outcome.latency_ms, cold=cold)
        autopath.record_success(probe_, outcome.plan, catalog, latency_ms=outcome.latency_ms, cold=cold)
        outcome.trace["learn"] = {"learned": True}
    elif not outcome.plan_ok:
        autopath.record_failure(probe_, outcome.plan, reason=outcome.error or outcome.final_kind)


def observe(probe_: Probe, *, turn_id, outcome: TurnOutcome, recall: Recall | None) -> None:
    """One append-only row for the turn (planner.models.Observation)."""
    template = template_of(probe_, outcome.plan)
    Observation.objects.create(
        owner_id=probe_.owner_id,
        turn_id=as_uuid(turn_id),
        verb=probe_.intent.verb or "",
        object=probe_.intent.object or "",
        masked_request=probe_.masked[:4000],
        key=probe_.key,
        embedding=list(probe_._embedding) if probe_._embedding is not None else None,
        plan=template,
        plan_hash=P.plan_hash(template) if template else "",
        layer=outcome.layer,
        final_kind=outcome.final_kind,
        success=succeeded(outcome),
        latency_ms=outcome.latency_ms,
        memory_id=recall.entry.id if recall else None,
    )


def succeeded(outcome: TurnOutcome) -> bool:
    return (
        outcome.final_kind == "answer"
        and outcome.layer not in ("terminator",)
        and (outcome.plan is None or outcome.plan_ok)
    )


NEGATIVE = ("down", "wrong_plan")


def feedback(*, turn_id, trace: dict, value: str, owner_id: int | None) -> None:
    """A person's verdict on a turn. 👎 or "wrong plan" on an answer memory served stops that
    plan from serving this user at once, in both layers (an anti-autopath for them), and an
    entry their own turns taught is disabled (L0) or demoted (L1); a seed stays for the others.
    On an answer the engine planned, the fastpath that turn taught is disabled and its plan's
    autopath demoted; "wrong plan" bans that plan for the kind of request."""
    turn = as_uuid(turn_id)
    if Observation.objects.filter(turn_id=turn, feedback=value).exists():
        return  # the same verdict twice counts once
    Observation.objects.filter(turn_id=turn).update(feedback=value)
    served = (trace or {}).get("memory") or {}
    model = {"fastpath": Fastpath, "autopath": Autopath}.get(served.get("layer"))
    if model is not None and value in ("up", *NEGATIVE):
        accounts.count_feedback(model, served["id"], value)
    if value not in NEGATIVE:
        return
    reason = "wrong plan" if value == "wrong_plan" else "thumbs down"
    entry = model.objects.filter(pk=served["id"]).first() if model else None
    if entry is not None:
        # Judged wrong at this distance: nothing as far is served it again (planner.memory.bounds).
        bounds.after_use(model, entry.pk, stage=served.get("stage", 1), cosine=served.get("cosine", 1.0), success=False)
        autopath.ban(owner_id, entry.verb, entry.object, entry.plan, f"feedback: {reason}")
        if entry.owner_id == owner_id:
            if model is Fastpath:
                fastpath.disable(entry.pk, f"feedback: {reason}")
            else:
                autopath.demote(entry.pk, reason)
        return
    Fastpath.objects.filter(source_turn_id=turn, status=Fastpath.Status.ACTIVE).update(
        status=Fastpath.Status.DISABLED, reason=f"feedback: {reason} on the turn that taught it"
    )
    observed = Observation.objects.filter(turn_id=turn).exclude(plan_hash="").first()
    if observed is None:
        return
    for learned in Autopath.objects.filter(
        owner_id=owner_id, plan_hash=observed.plan_hash, verb=observed.verb, object=observed.object
    ):
        autopath.demote(learned.pk, reason)
    if value == "wrong_plan" and observed.plan:
        autopath.ban(owner_id, observed.verb, observed.object, observed.plan, "feedback: wrong plan")
