"""Compaction: when the conversation no longer fits, its older turns become a few lines kept on
the session (ChatSession.summary, up to summary_through), and the history models see starts
after them (agents.selectors.session_history; planner.conversation puts the summary first).

It runs after a turn when the next turn's history would not fit the window of the model that
answered (the same fitting the prompt is built with), and on /compact. The fast tier writes the
summary; when no model answers, a deterministic one is kept instead: each request and the first
line of what answered it."""

from __future__ import annotations

import logging

from django.conf import settings

from agents.models import ChatSession, Turn
from agents.selectors import session_history
from core.ir import ChatRequest, Message, SystemPrompt
from planner import conversation, llm
from routing import registry

logger = logging.getLogger(__name__)

KEEP = 2  # exchanges /compact leaves as they are
SUMMARY_CHARS = 2000
LINE_CHARS = 160
PROMPT = (
    "Summarise the conversation below in at most 6 short lines: what the person asked, what was done "
    "(files and values), and what was decided. Write only the summary."
)


def after_turn(session: ChatSession, model_name: str) -> bool:
    """Compact when the next turn's history would not fit `model_name`'s window (the same fitting
    the prompt is built with): the turns left out are folded. True when it did."""
    try:
        model = registry.resolve(model_name)
    except registry.UnknownModel:
        return False  # memory or a command answered: no window to fit
    history = session_history(session=session, limit=settings.METNOS_HISTORY_TURNS)
    fitted = conversation.fit(history, "", model=model, reserved=model.output_budget(), summary=session.summary)
    if not fitted.left_out:
        return False
    compact(session, keep=fitted.kept)
    return True


def compact(session: ChatSession, *, keep: int = KEEP) -> str:
    """Fold all but the last `keep` answered turns into the session's summary; what it did, for
    the person (/compact)."""
    answered = _answered(session)
    folded = answered[: max(0, len(answered) - keep)]
    if not folded:
        return f"Nothing to compact: the conversation since the last summary has {len(answered)} turn(s)."
    transcript = "\n".join(_exchange(turn) for turn in folded)
    written = _written(session, transcript)
    summary = (written or _deterministic(session.summary, folded))[:SUMMARY_CHARS]
    session.summary, session.summary_through = summary, folded[-1].created_at
    session.save(update_fields=["summary", "summary_through", "updated_at"])
    how = "" if written else " (no model answered, so it lists each request)"
    return f"Compacted {len(folded)} earlier turn(s) into a summary{how}:\n{summary}"


def _answered(session: ChatSession) -> list[Turn]:
    turns = Turn.objects.filter(session=session, final_kind="answer", superseded_by__isnull=True).prefetch_related(
        "messages"
    )
    if session.summary_through is not None:
        turns = turns.filter(created_at__gt=session.summary_through)
    return list(turns.order_by("created_at"))


def _said(turn: Turn, role: str) -> str:
    return next((m.text for m in turn.messages.all() if m.role == role), "").strip()


def _exchange(turn: Turn) -> str:
    return f"Person: {_said(turn, 'user')[:600]}\nAgent ({turn.layer}): {_said(turn, 'assistant')[:600]}"


def _deterministic(previous: str, folded: list[Turn]) -> str:
    lines = [previous] if previous else []
    for turn in folded:
        asked = " ".join(_said(turn, "user").split())[:LINE_CHARS]
        answered = next((line.strip() for line in _said(turn, "assistant").splitlines() if line.strip()), "")
        lines.append(f"- Asked: {asked} → {answered[:LINE_CHARS]}")
    return "\n".join(lines)


def _written(session: ChatSession, transcript: str) -> str | None:
    """The fast tier's summary of the earlier summary and the folded turns, or None."""
    model = next((m for m in registry.current().all() if m.tier == "fast" and m.configured), None)
    if model is None:
        return None
    earlier = f"Earlier summary:\n{session.summary}\n\n" if session.summary else ""
    request = ChatRequest(
        model=model.api_model,
        system=SystemPrompt(stable=PROMPT),
        messages=(Message.text("user", f"{earlier}Conversation:\n{transcript}"),),
        max_tokens=model.budget("answer"),
        temperature=0.0,
    )
    try:
        result = llm.call(request, model, role="worker", ids={"session_id": str(session.pk)}, user_id=session.owner_id)
    except Exception:
        logger.warning("the fast tier could not summarise session %s", session.pk, exc_info=True)
        return None
    text = llm.model_text(result.text).strip() if result.ok else ""
    return text or None
