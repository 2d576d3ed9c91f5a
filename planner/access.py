"""What a workspace member with read access may run. Every executor in the catalog has an entry,
allowed or not, with the reason; one without an entry is refused (tests/security/
test_read_only_member.py fails until it has one). The table is checked twice: when the turn's
tools are chosen (planner/candidates.py) and again before any step runs (planner/execution.py
`act`), so a plan from memory, a follow-up, the cold path or ReAct cannot go around it.

Read access means: read the shared workspace's files, compute, tell the time. Nothing that
changes the workspace, reaches the network, runs code or starts work that outlives the turn."""

from __future__ import annotations

from planner.executors.base import ExecContext

READ_ONLY: dict[str, tuple[bool, str]] = {
    "read_files": (True, "reads the workspace's files, which read access is for"),
    "list_files": (True, "lists the workspace's folders"),
    "find_files": (True, "finds files by name in the workspace"),
    "grep_files": (True, "searches inside the workspace's files"),
    "skill_load": (True, "reads a skill's instructions, a file in the workspace's .metnos/skills"),
    "scratchpad_read": (True, "reads back this turn's own large observations"),
    "compute": (True, "arithmetic on values the request gives; touches nothing"),
    "get_time": (True, "reads the clock"),
    "final_answer": (True, "says the answer; changes nothing"),
    "todo_update": (True, "the task list lives in the reader's own session, not in the shared workspace"),
    "get_urls": (False, "reaches the network: a URL could carry the workspace's files out"),
    "write_files": (False, "changes the shared files"),
    "edit_file": (False, "changes the shared files"),
    "delete_files": (False, "deletes shared files"),
    "move_files": (False, "moves or renames shared files"),
    "make_dirs": (False, "changes the workspace's folders"),
    "run_shell": (False, "runs code in the workspace, which can change anything the shell reaches"),
    "memory_add": (False, "writes MEMORY.md/USER.md, which every member's prompt carries"),
    "memory_replace": (False, "rewrites MEMORY.md/USER.md, which every member's prompt carries"),
    "memory_consolidate": (False, "rewrites MEMORY.md/USER.md, which every member's prompt carries"),
    "run_task": (False, "starts a turn of its own, in a new session, beyond the reader's request"),
    "schedule_recurring": (False, "schedules turns that run later, unattended"),
    "run_now_recurring": (False, "starts a scheduled turn now"),
    "toggle_recurring": (False, "pauses or resumes scheduled turns"),
    "cancel_recurring": (False, "cancels scheduled turns"),
    "list_recurring": (False, "scheduling is not part of read access: a reader has no recurring tasks"),
    "show_recurring": (False, "scheduling is not part of read access: a reader has no recurring tasks"),
    "history_recurring": (False, "scheduling is not part of read access: a reader has no recurring tasks"),
}


def read_allowed(name: str) -> bool:
    allowed, _ = READ_ONLY.get(name, (False, "no entry"))
    return allowed


def refusal(name: str, ctx: ExecContext) -> str | None:
    """Why this step may not run in this turn, or None."""
    if ctx.read_only and not read_allowed(name):
        return f"read-only access: {name} is not allowed"
    return None
