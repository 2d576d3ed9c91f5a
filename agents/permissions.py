"""The permission policy: sensitive tools (those that write files, run commands or reach the
network) wait for the user's approval, unless the session is in YOLO mode (`/yolo on`) or the
user chose "always allow" for that tool in this session. Reading, computing and the bounded
memory never ask."""

from __future__ import annotations

from agents.models import ChatSession

SENSITIVE = frozenset({"fs:write", "code:exec", "net:http"})


class SessionPermissions:
    """The executors' `ctx.permissions` (planner/executors/base.py) for one session, as it stood
    when the turn started."""

    def __init__(self, session: ChatSession, *, ask_again: bool = False):
        # An edit or a regeneration asks again, whatever the session allowed: it never replays a
        # write silently.
        self.yolo = session.yolo and not ask_again
        self.grants = frozenset() if ask_again else frozenset(session.grants or ())

    def needs_approval(self, name: str, capabilities: tuple[str, ...], args: dict) -> bool:
        if self.yolo or name in self.grants:
            return False
        return bool(SENSITIVE.intersection(capabilities))
