from __future__ import annotations

import json
import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, Q, QuerySet

from agents.models import ChatSession, Message, Turn, Workspace, WorkspaceMember
from core.ir import Message as IRMessage
from core.ir import ToolResultBlock, ToolUseBlock
from core.models import TraceEvent


def session_for_user(*, session_id, user: AbstractBaseUser) -> ChatSession | None:
    """A session the user owns, else None. Callers answer 404 either way, so another
    user's session is indistinguishable from one that does not exist."""
    try:
        session_id = uuid.UUID(str(session_id))
    except ValueError:
        return None
    if not user.is_authenticated:
        return None
    return ChatSession.objects.filter(id=session_id, owner=user).first()


def workspace_for_user(*, workspace_id, user: AbstractBaseUser) -> Workspace | None:
    """A workspace the user owns, else None (callers answer 404)."""
    try:
        workspace_id = uuid.UUID(str(workspace_id))
    except ValueError:
        return None
    if not user.is_authenticated:
        return None
    return Workspace.objects.filter(id=workspace_id, owner=user).first()


def workspace_access(*, workspace: Workspace, user: AbstractBaseUser) -> str | None:
    """owner | write | read for that user, or None when it is not theirs to use."""
    if not user.is_authenticated:
        return None
    if workspace.owner_id == user.pk:
        return "owner"
    return WorkspaceMember.objects.filter(workspace=workspace, user=user).values_list("access", flat=True).first()


def workspace_usable_by(*, workspace_id, user: AbstractBaseUser) -> tuple[Workspace, str] | None:
    """A workspace the user owns or is a member of, with their access; else None (a 404)."""
    try:
        workspace_id = uuid.UUID(str(workspace_id))
    except ValueError:
        return None
    workspace = Workspace.objects.filter(id=workspace_id).first()
    access = workspace and workspace_access(workspace=workspace, user=user)
    return (workspace, access) if access else None


def workspace_list(*, user: AbstractBaseUser) -> list[Workspace]:
    """Owned workspaces, then those the user is a member of; each with `.access`."""
    owned = list(Workspace.objects.filter(owner=user).order_by("created_at"))
    for w in owned:
        w.access = "owner"
    shared = []
    for m in WorkspaceMember.objects.filter(user=user).select_related("workspace").order_by("added_at"):
        m.workspace.access = m.access
        shared.append(m.workspace)
    return owned + shared


def session_list(*, user: AbstractBaseUser, query: str = "", workspace_id=None) -> QuerySet[ChatSession]:
    sessions = ChatSession.objects.filter(owner=user)
    if workspace_id is not None:
        sessions = sessions.filter(workspace_id=workspace_id)
    if query.strip():
        words = query.strip()[:200]
        sessions = sessions.filter(Q(title__icontains=words) | Q(messages__text__icontains=words)).distinct()
    return sessions.order_by("-updated_at")


EXPORT_FORMATS = {"md": "text/markdown; charset=utf-8", "json": "application/json", "jsonl": "application/x-ndjson"}


def session_export(*, session: ChatSession, format: str) -> tuple[str, str]:
    """(body, content type) of a session's conversation in one of EXPORT_FORMATS."""
    if format not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}")
    turns = []
    for turn in session.turns.order_by("created_at").prefetch_related("messages"):
        messages = {m.role: m.text for m in turn.messages.all()}
        turns.append(
            {
                "turn_id": str(turn.id),
                "created_at": turn.created_at.isoformat(),
                "user": messages.get("user", ""),
                "assistant": messages.get("assistant", ""),
                "final_kind": turn.final_kind,
                "layer": turn.layer,
                "model": (turn.route or {}).get("winner"),
                "cost_usd": str(turn.cost_usd),
            }
        )
    head = {"session_id": str(session.id), "title": session.title, "created_at": session.created_at.isoformat()}
    if format == "json":
        return json.dumps({**head, "turns": turns}, indent=2), EXPORT_FORMATS[format]
    if format == "jsonl":
        lines = [json.dumps({"kind": "session", **head})] + [json.dumps({"kind": "turn", **t}) for t in turns]
        return "\n".join(lines) + "\n", EXPORT_FORMATS[format]
    out = [f"# {session.title or 'Untitled session'}", "", f"_Exported from Metnos, session {session.id}._", ""]
    for t in turns:
        answered_by = t["layer"] or t["final_kind"]
        out += [
            f"## You ({t['created_at'][:19]})",
            "",
            t["user"],
            "",
            f"## Metnos ({answered_by})",
            "",
            t["assistant"],
            "",
        ]
    return "\n".join(out), EXPORT_FORMATS[format]


def turn_list(*, session: ChatSession) -> QuerySet[Turn]:
    return session.turns.order_by("created_at").prefetch_related(
        Prefetch("messages", queryset=Message.objects.order_by("created_at"))
    )


# Layers whose answer may be the model's own words (when no tool ran). Any other layer's answer was
# written by tools or by the terminator (memory, a fork, a dead end).
SPOKEN_LAYERS = frozenset({"direct", "pre_fastpath", "decision", "engine", "recovery", "react"})


def turn_history(*, turn: Turn, limit: int) -> tuple[IRMessage, ...]:
    """The canonical messages of the last `limit` answered turns before `turn`, after those the
    session's summary covers (session_history)."""
    return session_history(session=turn.session, before=turn.created_at, limit=limit)


def session_history(*, session: ChatSession, before=None, limit: int) -> tuple[IRMessage, ...]:
    """The canonical messages of the session's last `limit` answered turns (before `before`, when
    given), after those the session's summary covers. A turn whose answer came from tools, or
    from the terminator, is carried as what it was: the tools it called (tool_use) and its answer
    as their result (tool_result, an error for a dead end), never as words the assistant said,
    which a small model copies as a template ("0 result(s):")."""
    answered = Turn.objects.filter(session_id=session.pk, final_kind="answer", superseded_by__isnull=True)
    if before is not None:
        answered = answered.filter(created_at__lt=before)
    if session.summary_through is not None:
        answered = answered.filter(created_at__gt=session.summary_through)
    rows = list(answered.order_by("-created_at").values_list("id", "layer", "trace")[:limit])
    layers = {turn_id: layer for turn_id, layer, _ in rows}
    calls = {turn_id: steps for turn_id, _, trace in rows if (steps := _steps(trace or {}))}
    events = TraceEvent.objects.filter(turn_id__in=set(layers) - set(calls), type="tool.called").order_by("ts")
    for turn_id, payload in events.values_list("turn_id", "payload"):
        calls.setdefault(turn_id, []).append(payload)  # a turn whose trace kept no steps: names only
    history: list[IRMessage] = []
    rows = Message.objects.filter(turn_id__in=layers).order_by("created_at").values("turn_id", "role", "blocks")
    for row in rows:
        message = IRMessage.from_dict(row)
        used = calls.get(row["turn_id"], [])
        if row["role"] == "assistant" and (used or layers[row["turn_id"]] not in SPOKEN_LAYERS):
            history += _tool_exchange(row["turn_id"], used, message.text_content, layers[row["turn_id"]])
        else:
            history.append(message)
    return tuple(history)


# How far back the follow-up layer looks for the last plan, past turns answered in words.
PLAN_LOOKBACK = 5


def previous_facts(*, turn: Turn) -> dict:
    """What the session's last answered turns before `turn` left for follow-ups (planner.followup):
    the last one's request and answer ("save that"; a thanks in between does not count), the
    answers before it, newest first ("save these two totals to a.txt"), and the
    facts the last plan recorded (the plan, its last listing, the files it named, its scratchpad
    entries) with that turn's request and id, even when a turn answered in words came between
    ("read a.md", "thanks!", "do the same for b.md")."""
    recent = list(
        Turn.objects.filter(
            session_id=turn.session_id, created_at__lt=turn.created_at, final_kind="answer", superseded_by__isnull=True
        )
        .order_by("-created_at")
        .only("id", "layer", "trace")[:PLAN_LOOKBACK]
    )
    if not recent:
        return {}
    rows = Message.objects.filter(turn_id__in=[t.id for t in recent]).values_list("turn_id", "role", "text")
    said = {(turn_id, role): text for turn_id, role, text in rows}
    # A greeting or a thanks is not what "save that" means.
    last = next((t for t in recent if t.layer != "pre_fastpath"), recent[0])
    answers = [said.get((t.id, "assistant"), "") for t in recent if t.layer != "pre_fastpath"]
    previous = {"request": said.get((last.id, "user"), ""), "answer": said.get((last.id, "assistant"), ""),
                "answers": answers, **_first_and_last(turn)}  # fmt: skip
    planned = next((t for t in recent if (t.trace or {}).get("facts")), None)
    if planned is None:
        return previous
    facts = dict(planned.trace["facts"])
    # "list docs", "open the first one", "now the second one": an ordinal may count in an earlier listing.
    listed = next((t for t in recent if (t.trace or {}).get("facts", {}).get("listing")), None)
    facts["earlier_listing"] = listed.trace["facts"]["listing"] if listed is not None else []
    request = facts.get("plan_request") or said.get((planned.id, "user"), "")  # as the plan read it, when recorded
    return {**previous, **facts, "plan_request": request, "plan_turn_id": str(planned.id),
            "plan_is_last": planned.id == last.id}  # fmt: skip


def _first_and_last(turn: Turn) -> dict:
    """The session's first and last messages before `turn` ("what did I ask you first?")."""
    said = Message.objects.filter(
        session_id=turn.session_id, role=Message.Role.USER, created_at__lt=turn.created_at,
        turn__superseded_by__isnull=True,
    )  # fmt: skip
    first = said.order_by("created_at").values_list("text", flat=True).first()
    last = said.order_by("-created_at").values_list("text", flat=True).first()
    return {"first_message": first or "", "last_message": last or ""}


def _steps(trace: dict) -> list[dict]:
    """The steps a turn ran, with their arguments: a remembered plan's, the engine's last attempt's,
    or the ReAct loop's."""
    attempts = trace.get("attempts") or [{}]
    steps = trace.get("memory_steps") or attempts[-1].get("steps") or trace.get("steps") or []
    return [s for s in steps if isinstance(s, dict) and s.get("tool")]


def _tool_exchange(turn_id, used: list[dict], answer: str, layer: str) -> list[IRMessage]:
    """A tool-made answer as a tool exchange: each step's call (its arguments) and result (short),
    the last result being the answer the person saw; with no tool known (a plan rejected before it
    ran), the result alone."""
    uses = tuple(
        ToolUseBlock(id=f"{turn_id}-{n}", name=c.get("tool", ""), input=c.get("args") or {})
        for n, c in enumerate(used, 1)
    )
    failed = layer == "terminator" or (bool(used) and not used[-1].get("ok", True))
    results = [
        ToolResultBlock(tool_use_id=use.id, content=str(step.get("result") or ""), is_error=not step.get("ok", True))
        for use, step in zip(uses[:-1], used[:-1], strict=True)
    ]
    last = uses[-1].id if uses else f"{turn_id}-0"
    results.append(ToolResultBlock(tool_use_id=last, content=answer, is_error=failed))
    return ([IRMessage("assistant", uses)] if uses else []) + [IRMessage("user", tuple(results))]


def turn_for_user(*, turn_id, user: AbstractBaseUser) -> Turn | None:
    """A turn in one of the user's sessions, else None (a 404 either way)."""
    try:
        turn_id = uuid.UUID(str(turn_id))
    except ValueError:
        return None
    if not user.is_authenticated:
        return None
    return Turn.objects.select_related("session").filter(id=turn_id, session__owner=user).first()


def turn_trace(*, turn: Turn) -> dict:
    messages = {m.role: m.text for m in turn.messages.all()}
    events = TraceEvent.objects.filter(turn_id=turn.id).order_by("ts").values("ts", "type", "payload")
    return {
        "turn_id": str(turn.id),
        "session_id": str(turn.session_id),
        "request": messages.get("user", ""),
        "final_message": messages.get("assistant", ""),
        "final_kind": turn.final_kind,
        "layer": turn.layer,
        "model_calls": turn.model_calls,
        "usage": turn.usage,
        "cost_usd": str(turn.cost_usd),
        "latency_ms": turn.latency_ms,
        "route": turn.route,
        **turn.trace,
        "events": [{"ts": e["ts"].isoformat(), "type": e["type"], "payload": e["payload"]} for e in events],
    }
