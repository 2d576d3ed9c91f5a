"""The session's task list, kept by the agent with the todo_update tool and shown beside the
chat. The list is replaced whole on each update (the model rewrites it as work moves on)."""

from __future__ import annotations

from agents import frames
from agents.models import ChatSession
from agents.push import pusher

MAX_ITEMS = 50
STATUSES = ("pending", "in_progress", "done")
MARK = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


class SessionTodos:
    """The executors' `ctx.todos` (planner/executors/base.py) for one session."""

    def __init__(self, session: ChatSession):
        self.session_id = session.pk

    def replace(self, items: list[dict]) -> list[dict]:
        clean = [
            {"text": str(i["text"]).strip()[:300], "status": i["status"]}
            for i in items[:MAX_ITEMS]
            if str(i.get("text", "")).strip() and i.get("status") in STATUSES
        ]
        ChatSession.objects.filter(pk=self.session_id).update(todos=clean)
        pusher.send(self.session_id, frames.todos(clean))
        return clean


def render(items: list[dict]) -> str:
    if not items:
        return "No tasks yet. The agent keeps this list with its todo_update tool."
    done = sum(i["status"] == "done" for i in items)
    lines = [f"{MARK[i['status']]} {i['text']}" for i in items]
    return f"Tasks ({done} of {len(items)} done):\n" + "\n".join(lines)
