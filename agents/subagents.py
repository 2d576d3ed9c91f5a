"""Agent profiles and subagents. The `run_task` tool starts a subagent: a turn in a fresh session
(linked to the turn that started it), run by its own Celery task on the worker tier, with its
profile's tools and step limit, no memory and no memory tools. The parent's plan waits without
holding a worker; when the subagent's turn ends, its final answer becomes the step's result and
the parent resumes (services.turns). Calls are billed with role `worker`. Subagents nest at most
METNOS_SUBAGENT_MAX_DEPTH deep.

Built-in profiles: main (every tool, the wise tier), explore, plan and code (the worker tier).
`.metnos/agents/<name>.md` adds or overrides one: frontmatter `description`, `tools` (a list, or
comma-separated), `max_turns`, `tier` (worker | wise | fast) or `model`; the body is extra
instructions for the subagent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from agents.dotfiles import DOT, DotfileError, frontmatter
from agents.models import ChatSession, Turn
from agents.services import turns
from planner.executors.base import ExecutorError

READ = ("read_files", "list_files", "find_files", "grep_files", "get_time", "compute", "scratchpad_read", "skill_load")


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    tools: tuple[str, ...] | None  # None: every tool
    max_turns: int
    model: str = ""  # a model or alias; empty: the profile's tier
    instructions: str = ""
    tier: str = "worker"  # worker (METNOS_WORKER_MODEL) | wise (METNOS_PROPOSER_MODEL) | fast (METNOS_FILLER_MODEL)

    def model_name(self) -> str:
        tiers = {"worker": settings.METNOS_WORKER_MODEL, "wise": settings.METNOS_PROPOSER_MODEL,
                 "fast": settings.METNOS_FILLER_MODEL}  # fmt: skip
        return self.model or tiers.get(self.tier, settings.METNOS_WORKER_MODEL)


WRITE = ("write_files", "edit_file", "move_files", "delete_files", "make_dirs")
BUILTIN = {
    "main": Profile("main", "the main agent: every tool", None, 30, tier="wise"),
    "explore": Profile("explore", "reads and searches the workspace; changes nothing", READ, 10),
    "plan": Profile(
        "plan",
        "investigates and answers with a plan; changes nothing",
        READ,
        10,
        instructions="Answer with a plan in Markdown: goal, ordered steps, files, risks.",
    ),
    "code": Profile("code", "reads, writes files and runs commands", (*READ, *WRITE, "run_shell"), 20),
}


def profile(root: Path, name: str) -> Profile:
    """The workspace's own profile of that name, else the built-in one."""
    path = root / DOT / "agents" / f"{name}.md"
    if path.is_file() and not path.is_symlink():
        rel = f"{DOT}/agents/{name}.md"
        meta, body = frontmatter(path.read_text(errors="replace"), rel)
        tools = meta.get("tools")
        if isinstance(tools, str):
            tools = tuple(t.strip() for t in tools.split(",") if t.strip())
        elif isinstance(tools, list):
            tools = tuple(str(t) for t in tools)
        elif tools is not None:
            raise DotfileError(rel, 2, "`tools` must be a list or a comma-separated string")
        try:
            max_turns = int(meta.get("max_turns", 10))
        except (TypeError, ValueError):
            raise DotfileError(rel, 2, "`max_turns` must be a number") from None
        base = BUILTIN.get(name)
        tier = str(meta.get("tier") or (base.tier if base else "worker"))
        if tier not in ("worker", "wise", "fast"):
            raise DotfileError(rel, 2, "`tier` must be worker, wise or fast")
        return Profile(
            name=name,
            description=str(meta.get("description") or (base.description if base else "")),
            tools=tools if tools is not None else (base.tools if base else READ),
            max_turns=max(1, min(max_turns, 30)),
            model=str(meta.get("model") or ""),
            instructions=body.strip(),
            tier=tier,
        )
    if name not in BUILTIN:
        raise LookupError(f"no agent profile {name!r}; profiles: {', '.join(BUILTIN)} or {DOT}/agents/NAME.md")
    return BUILTIN[name]


class Delegate:
    """The executors' `ctx.delegate` (planner/executors/base.py) for one turn."""

    def __init__(self, turn: Turn, root: Path):
        self.turn, self.root = turn, root

    def start(self, name: str, task: str) -> str:
        session = self.turn.session
        limit = settings.METNOS_SUBAGENT_MAX_DEPTH
        if session.depth >= limit:
            raise ExecutorError("forbidden", f"a subagent may not start another past depth {limit}")
        try:
            chosen = profile(self.root, name)
        except (LookupError, DotfileError) as exc:
            raise ExecutorError("invalid_args", str(exc)) from None
        with transaction.atomic():
            child = ChatSession.objects.create(
                owner_id=session.owner_id, workspace_id=session.workspace_id, parent_turn=self.turn,
                depth=session.depth + 1, profile=chosen.name, yolo=session.yolo, grants=session.grants,
                title=f"subagent {chosen.name}: {task.strip()[:80]}",
            )  # fmt: skip
            turn = turns.turn_submit(session=child, text=task, model=chosen.model_name())
        return str(turn.id)
