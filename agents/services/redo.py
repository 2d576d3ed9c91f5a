"""Edit the last message, or regenerate the last answer. Either way a new turn replaces the
session's last one, which is kept and points at its replacement (`superseded_by`): it leaves the
history the model sees and the follow-up layer's "previous turn", and the chat shows it dimmed.

A replacement plans again (`options["redo"]`): plan memory neither serves nor learns it, and
every sensitive step asks for approval again, whatever the session granted, so a regeneration
never replays a write silently."""

from __future__ import annotations

from django.db import transaction

from agents.models import ChatSession, Turn
from agents.services.errors import InvalidInput
from agents.services.turns import turn_submit

KINDS = ("edit", "regenerate")


def last_turn(session: ChatSession) -> Turn | None:
    """The session's newest turn that nothing replaced (a subagent's turns live in their own session)."""
    return Turn.objects.filter(session=session, superseded_by__isnull=True).order_by("-created_at").first()


@transaction.atomic
def turn_redo(*, session: ChatSession, turn_id: str, kind: str, text: str = "", model: str = "") -> Turn:
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}")
    old = Turn.objects.select_for_update().filter(session=session, id=turn_id).first()
    if old is None:
        raise InvalidInput("no such turn in this session")
    if old.superseded_by_id is not None:
        raise InvalidInput("that turn was already replaced")
    if last_turn(session) != old:
        raise InvalidInput(f"only the last turn can be {'edited' if kind == 'edit' else 'regenerated'}")
    if old.status != Turn.Status.COMPLETED:
        raise InvalidInput("the turn is still running: stop it first")
    asked = old.messages.filter(role="user").values_list("text", flat=True).first() or ""
    if kind == "edit":
        if not (text or "").strip():
            raise InvalidInput("the edited message is empty")
        if text.strip() == asked.strip() and not model:
            raise InvalidInput("the message is unchanged: regenerate it instead")
    else:
        text = asked
    options = {k: v for k, v in old.options.items() if k != "redo"}
    # The replacement answers what the old turn answered (a reply to an earlier question).
    waiting, old.answers = old.answers, None
    old.save(update_fields=["answers"])
    new = turn_submit(
        session=session,
        text=text,
        model=model or (old.requested_model if kind == "regenerate" else ""),
        answers=waiting,
        options={**options, "redo": {"kind": kind, "of": str(old.id)}},
        replaces=old,
    )
    old.superseded_by = new
    fields = ["superseded_by"]
    if old.pending.get("kind") == "approval" and not old.pending.get("decision"):
        # Its approval can no longer be given: the step it waited for will not run.
        old.pending = {**old.pending, "decision": "superseded"}
        fields.append("pending")
    old.save(update_fields=fields)
    return new
